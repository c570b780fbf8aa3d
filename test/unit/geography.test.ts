import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findZip3Place, greatCircleMiles, type Zip3Place } from '../../src/modules/rating/geography.js';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

function place(zip3: string): Zip3Place {
  const found = findZip3Place(zip3);
  if (!found) throw new Error(`ZIP3 ${zip3} is not in the table`);
  return found;
}

function point(latitude: number, longitude: number): Zip3Place {
  return { zip3: 'test', latitude, longitude, state: 'XX' };
}

describe('findZip3Place', () => {
  it('finds the centroid and state of a ZIP3, as zipcodes 8.0.0 gives them', () => {
    expect(findZip3Place('100')).toEqual({ zip3: '100', latitude: 40.7543, longitude: -73.9817, state: 'NY' });
    expect(findZip3Place('900')).toEqual({ zip3: '900', latitude: 34.0337, longitude: -118.2842, state: 'CA' });
    expect(findZip3Place('995')).toEqual({ zip3: '995', latitude: 60.0999, longitude: -155.202, state: 'AK' });
    expect(findZip3Place('967')).toEqual({ zip3: '967', latitude: 20.4129, longitude: -157.2023, state: 'HI' });
    expect(findZip3Place('006')).toEqual({ zip3: '006', latitude: 18.2886, longitude: -66.8516, state: 'PR' });
    expect(findZip3Place('200')).toEqual({ zip3: '200', latitude: 38.9006, longitude: -77.0205, state: 'DC' });
  });

  it('gives a ZIP3 spread over several states the state most of its ZIPs are in', () => {
    // 205 holds DC, MD and VA ZIPs; 969 Guam, Palau, Micronesia, the Marianas and the Marshalls.
    expect(place('205').state).toBe('DC');
    expect(place('969').state).toBe('GU');
  });

  it('averages across the antimeridian: 968 (Honolulu plus Wake Island at 166.6° E) stays on Oahu', () => {
    expect(findZip3Place('968')).toEqual({ zip3: '968', latitude: 21.2885, longitude: -158.5426, state: 'HI' });
  });

  it('leaves out the source ZIP with a sign-flipped longitude, so 102 stays in New York', () => {
    expect(findZip3Place('102')).toEqual({ zip3: '102', latitude: 40.7329, longitude: -73.9979, state: 'NY' });
  });

  it('answers undefined for a ZIP3 that does not exist and for anything that is not three digits', () => {
    expect(findZip3Place('000')).toBeUndefined();
    expect(findZip3Place('10001')).toBeUndefined();
    expect(findZip3Place('10')).toBeUndefined();
    expect(findZip3Place('')).toBeUndefined();
  });

  it('leaves out the military post offices (APO/FPO/DPO), whose ZIP3s gather posts on several continents', () => {
    for (const zip3 of ['090', '096', '098', '340', '962', '966']) expect(findZip3Place(zip3)).toBeUndefined();
  });

  it('holds 916 ZIP3s, each with coordinates in range and a two-letter state', () => {
    const places = Array.from({ length: 1000 }, (_, n) => findZip3Place(String(n).padStart(3, '0'))).filter(
      (found): found is Zip3Place => found !== undefined,
    );
    expect(places).toHaveLength(916);
    for (const { zip3, latitude, longitude, state } of places) {
      expect(zip3).toMatch(/^\d{3}$/);
      expect(Math.abs(latitude)).toBeLessThanOrEqual(90);
      expect(Math.abs(longitude)).toBeLessThanOrEqual(180);
      expect(state).toMatch(/^[A-Z]{2}$/);
      expect(['AA', 'AE', 'AP']).not.toContain(state);
    }
  });

  it('hands out places that cannot be changed', () => {
    expect(Object.isFrozen(place('100'))).toBe(true);
  });
});

describe('greatCircleMiles', () => {
  // Known figures: the WGS84 ellipsoidal (Vincenty) distances between the city halls, worked out
  // independently of this code; ZIP3 centroids are not city halls, so allow 2%.
  const cityPairs: [string, string, string, number, number][] = [
    ['New York ↔ Los Angeles', '100', '900', 2451, 2449],
    ['Chicago ↔ New York', '606', '100', 713, 714],
    ['Washington ↔ New York', '200', '100', 204, 206],
    ['Honolulu ↔ Los Angeles', '968', '900', 2563, 2597],
    ['Miami ↔ Seattle', '331', '981', 2734, 2728],
  ];

  it.each(cityPairs)('%s: the exact whole miles, within 2%% of the known distance', (_name, from, to, known, expected) => {
    const miles = greatCircleMiles(place(from), place(to));
    expect(miles).toBe(expected);
    expect(Math.abs(miles - known) / known).toBeLessThan(0.02);
  });

  it('is symmetric', () => {
    for (const [, from, to] of cityPairs) {
      expect(greatCircleMiles(place(to), place(from))).toBe(greatCircleMiles(place(from), place(to)));
    }
  });

  it('is zero between a ZIP3 and itself', () => {
    expect(greatCircleMiles(place('100'), place('100'))).toBe(0);
    expect(greatCircleMiles(place('968'), place('968'))).toBe(0);
  });

  it('matches distances worked out by hand on a 3958.8-mile sphere', () => {
    // One degree of a great circle is 3958.8 × π / 180 = 69.094 mi, the short way across the antimeridian.
    expect(greatCircleMiles(point(0, 179.5), point(0, -179.5))).toBe(69);
    // Pole to pole is half the circumference, 3958.8 × π = 12436.94 mi.
    expect(greatCircleMiles(point(90, 0), point(-90, 0))).toBe(12437);
    // A quarter of the equator: 3958.8 × π / 2 = 6218.47 mi.
    expect(greatCircleMiles(point(0, 0), point(0, 90))).toBe(6218);
  });
});

describe('the committed ZIP3 table', () => {
  it('is exactly what scripts/build-zip3-table.js writes (run npm run zip3-table if not)', () => {
    // execFileSync throws, and the test fails, when --check exits with anything but 0.
    const output = execFileSync(process.execPath, ['scripts/build-zip3-table.js', '--check'], {
      cwd: repositoryRoot,
      encoding: 'utf8',
    });
    expect(output).toContain('is up to date: 916 ZIP3s');
  });
});
