/**
 * Where a US ZIP3 is and how far apart two of them are, from the generated table alone: the rate
 * engine is pure, so this module reads no file, database or network.
 */
import { ZIP3_TABLE } from './zip3-table.js';

/** A ZIP3 (the first three digits of a US ZIP code): the centroid of its ZIPs and the state most of them are in. */
export interface Zip3Place {
  zip3: string;
  latitude: number;
  longitude: number;
  state: string;
}

/** The mean Earth radius (IUGG), in statute miles. */
const EARTH_RADIUS_MILES = 3958.8;

const RADIANS_PER_DEGREE = Math.PI / 180;

const placesByZip3: ReadonlyMap<string, Zip3Place> = parseTable(ZIP3_TABLE);

function parseTable(table: string): Map<string, Zip3Place> {
  const places = new Map<string, Zip3Place>();
  for (const record of table.split('\n')) {
    const [zip3, latitude, longitude, state] = record.split(',');
    if (zip3 === undefined || latitude === undefined || longitude === undefined || state === undefined) {
      throw new Error(`malformed ZIP3 record: ${record}`);
    }
    // Frozen because every caller shares these objects.
    places.set(zip3, Object.freeze({ zip3, latitude: Number(latitude), longitude: Number(longitude), state }));
  }
  return places;
}

/** The place of a ZIP3 given as its three digits ("100"), or undefined when the table has no such ZIP3. */
export function findZip3Place(zip3: string): Zip3Place | undefined {
  return placesByZip3.get(zip3);
}

/**
 * The great-circle (haversine) distance between two places in statute miles on a sphere of the mean
 * Earth radius, 3958.8 mi, rounded to the nearest whole mile so that a distance, and the distance band
 * it falls in, is a deterministic integer. The same place is 0 miles from itself.
 */
export function greatCircleMiles(from: Zip3Place, to: Zip3Place): number {
  const fromLatitude = from.latitude * RADIANS_PER_DEGREE;
  const toLatitude = to.latitude * RADIANS_PER_DEGREE;
  const halfLatitudeDelta = (toLatitude - fromLatitude) / 2;
  const halfLongitudeDelta = ((to.longitude - from.longitude) * RADIANS_PER_DEGREE) / 2;
  const haversine = Math.sin(halfLatitudeDelta) ** 2 + Math.cos(fromLatitude) * Math.cos(toLatitude) * Math.sin(halfLongitudeDelta) ** 2;
  // Rounding can push nearly antipodal points a hair past 1, outside asin's domain.
  return Math.round(2 * EARTH_RADIUS_MILES * Math.asin(Math.sqrt(Math.min(1, haversine))));
}
