/** What the outbound order tests share: a ship-to address every DN import needs. */
export const SHIP_TO = {
  ShipToName: 'Jane Doe',
  ShipToAddress1: '1 Market St',
  ShipToCity: 'San Francisco',
  ShipToState: 'CA',
  ShipToZipCode: '94105',
  ShipToCountry: 'US',
};
