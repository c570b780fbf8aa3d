/**
 * The parcels the rate scenarios quote, over HTTP (bench/scenarios.js) and in process
 * (bench/quote-in-process.js): one parcel from Los Angeles to each of DEST_ZIPS, in turn. The
 * destinations are real ZIPs all over the contiguous US, so that the zone comes from distance bands
 * 2 to 8 and every quote computes its own great-circle distance; a few are in the example card's
 * delivery-area lists (a surcharge more). None is in its zone-9 or remote lists, where Economy does
 * not go: every parcel gets both services, so every answer has the same shape and the run can
 * check each one.
 */

/** The UserID of the bench's rater key: the example card's company default prices it. */
export const RATE_USER_ID = 1001;
export const RATE_PATH = '/api/RateEngine/SVC/lastmile';
/** The card loaded for the bench company, from the repository root. */
export const RATE_CARD_FILE = 'examples/rate-card.json';
/** The services of the example card: every parcel here gets one entry of each. */
export const RATE_SERVICES = ['Economy', 'Ground'];

export const ORIGIN_ZIP = '90001';

export const DEST_ZIPS = [
  '10001', // New York, NY
  '02108', // Boston, MA
  '03101', // Manchester, NH
  '04401', // Bangor, ME (delivery area)
  '05401', // Burlington, VT
  '06103', // Hartford, CT
  '07102', // Newark, NJ
  '12207', // Albany, NY
  '15222', // Pittsburgh, PA
  '19103', // Philadelphia, PA
  '20001', // Washington, DC
  '21201', // Baltimore, MD
  '23219', // Richmond, VA
  '25301', // Charleston, WV
  '27601', // Raleigh, NC
  '28202', // Charlotte, NC
  '29201', // Columbia, SC
  '30303', // Atlanta, GA
  '32801', // Orlando, FL
  '33130', // Miami, FL
  '35203', // Birmingham, AL
  '37203', // Nashville, TN
  '38103', // Memphis, TN
  '39201', // Jackson, MS
  '40202', // Louisville, KY
  '43215', // Columbus, OH
  '46204', // Indianapolis, IN
  '48226', // Detroit, MI
  '53202', // Milwaukee, WI
  '55401', // Minneapolis, MN
  '57104', // Sioux Falls, SD
  '58102', // Fargo, ND
  '60601', // Chicago, IL
  '63101', // St. Louis, MO
  '64105', // Kansas City, MO
  '68102', // Omaha, NE
  '70112', // New Orleans, LA
  '73102', // Oklahoma City, OK
  '75201', // Dallas, TX
  '78205', // San Antonio, TX
  '80202', // Denver, CO
  '82301', // Rawlins, WY (extended delivery area)
  '84101', // Salt Lake City, UT
  '85004', // Phoenix, AZ
  '88001', // Las Cruces, NM (delivery area)
  '89101', // Las Vegas, NV
  '92101', // San Diego, CA
  '94103', // San Francisco, CA
  '97204', // Portland, OR
  '98101', // Seattle, WA
];

/** The n-th parcel (n from 0, going round DEST_ZIPS), as the request's `Data` gives it. */
export function rateData(n) {
  return {
    OriginZip: ORIGIN_ZIP,
    DestZip: DEST_ZIPS[n % DEST_ZIPS.length],
    Length: '12',
    Width: '10',
    Hight: '8',
    Weight: '5.2',
  };
}

/** The n-th request body, as a client sends it. */
export const rateBody = (n) => JSON.stringify({ UserID: RATE_USER_ID, Data: rateData(n) });

/** The n-th parcel as the engine takes it (what the rate service makes of the request's `Data`). */
export function engineParcel(n) {
  const data = rateData(n);
  return {
    originZip: data.OriginZip,
    destZip: data.DestZip,
    length: data.Length,
    width: data.Width,
    height: data.Hight,
    weight: data.Weight,
  };
}

const PRICE = /^\d+\.\d{4}$/;

/**
 * What is wrong with a rate answer (parsed), or undefined when it is a quote of RATE_SERVICES with
 * four-decimal prices: the shape every answer of the scenarios must have.
 */
export function rateAnswerProblem(answer) {
  if (answer?.Status !== true) return `Status ${answer?.Status}: ${answer?.ErrorMsg}`;
  const result = answer.Result;
  if (!Array.isArray(result) || result.length !== RATE_SERVICES.length) return `${result?.length} Result entries`;
  const names = result.map((entry) => entry.name).sort();
  if (names.join() !== RATE_SERVICES.join()) return `services ${names.join(', ')}`;
  const bad = result.find((entry) => typeof entry.Price !== 'string' || !PRICE.test(entry.Price));
  if (bad) return `price ${JSON.stringify(bad.Price)} of ${bad.name}`;
  return undefined;
}
