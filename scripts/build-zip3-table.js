/**
 * `npm run zip3-table`: derives the rate engine's ZIP3 geography from the `zipcodes` package and
 * writes src/modules/rating/zip3-table.ts, so that Wharf needs neither that package nor a network at
 * run time. For each ZIP3 (the first three digits of a US ZIP) it records the centroid of its ZIPs
 * (the mean of their latitudes and longitudes, to 4 decimals) and the state most of them are in.
 *
 * The output depends on nothing but the package's data: the same package gives a byte-identical file.
 * `--check` writes nothing and exits 1 when the committed file differs from what this script would
 * write (0 when it is the same), so a test can keep the two from drifting apart.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const tablePath = join(repositoryRoot, 'src/modules/rating/zip3-table.ts');

/**
 * Source ZIPs whose coordinates are plainly wrong, skipped rather than corrected so that every
 * coordinate we use is one the source gives. Each must still read as recorded here: when a new
 * package version changes it, the script stops so that someone looks at it again.
 */
const KNOWN_BAD_COORDINATES = new Map([
  [
    '10200',
    {
      latitude: 40.77,
      longitude: 73.95,
      why: 'New York with its longitude sign flipped (73.95° E is in Central Asia); it would pull ZIP3 102 about 240 miles out to sea',
    },
  ],
]);

/**
 * Military post offices (APO/FPO/DPO) are left out: their ZIP3s gather posts on several continents,
 * so a centroid distance means nothing, and carriers do not deliver there. A rate card that serves
 * them names them in its zone rules.
 */
const MILITARY_STATES = new Set(['AA', 'AE', 'AP']);

/** The package's US records, version and licence text, and a check that the attribution we write is still true. */
function readZipcodesPackage() {
  const manifestPath = require.resolve('zipcodes/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  if (manifest.license !== 'BSD') {
    throw new Error(`zipcodes ${manifest.version} is licensed "${manifest.license}", not BSD: review the attribution before using it`);
  }
  const readme = readFileSync(join(dirname(manifestPath), 'README.md'), 'utf8');
  if (!readme.includes('federalgovernmentzipcodes.us')) {
    throw new Error(`zipcodes ${manifest.version} no longer names federalgovernmentzipcodes.us as its source: review the attribution`);
  }
  const licence = readFileSync(join(dirname(manifestPath), 'LICENSE'), 'utf8');
  return { version: manifest.version, licence, codes: require('zipcodes').codes };
}

function hasCoordinates(record) {
  const { latitude, longitude } = record;
  return Number.isFinite(latitude) && Number.isFinite(longitude) && !(latitude === 0 && longitude === 0);
}

/** The US ZIPs with usable coordinates, in ZIP order, and how many were left out and why. */
function usableZips(codes) {
  const zips = [];
  let withoutCoordinates = 0;
  let knownBad = 0;
  let military = 0;
  for (const key of Object.keys(codes).sort()) {
    const record = codes[key];
    if (record.country !== 'US') continue;
    if (!/^\d{5}$/.test(record.zip) || record.zip !== key || !/^[A-Z]{2}$/.test(record.state)) {
      throw new Error(`unexpected US record under ${key}: ${JSON.stringify(record)}`);
    }
    if (MILITARY_STATES.has(record.state)) {
      military += 1;
      continue;
    }
    if (!hasCoordinates(record)) {
      withoutCoordinates += 1;
      continue;
    }
    const bad = KNOWN_BAD_COORDINATES.get(record.zip);
    if (bad) {
      if (record.latitude !== bad.latitude || record.longitude !== bad.longitude) {
        throw new Error(`${record.zip} no longer has the coordinates KNOWN_BAD_COORDINATES records; review that entry`);
      }
      knownBad += 1;
      continue;
    }
    if (Math.abs(record.latitude) > 90 || Math.abs(record.longitude) > 180) {
      throw new Error(`${record.zip} has coordinates out of range: ${record.latitude}, ${record.longitude}`);
    }
    zips.push(record);
  }
  return { zips, withoutCoordinates, knownBad, military };
}

function groupByZip3(zips) {
  const groups = new Map();
  for (const zip of zips) {
    const zip3 = zip.zip.slice(0, 3);
    const group = groups.get(zip3);
    if (group) group.push(zip);
    else groups.set(zip3, [zip]);
  }
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The mean longitude, measured along the narrowest arc that holds them all. A plain arithmetic mean
 * is wrong across the antimeridian, and the US data does cross it inside one ZIP3: 968 is Honolulu
 * plus Wake Island (166.6° E), 965 is APO/FPO posts from Asia to Alaska. Where the narrowest arc is
 * the ordinary one (every other ZIP3) this is exactly the plain mean. A group that no 180° arc holds
 * has no meaningful centre, and the script stops.
 */
function meanLongitude(zip3, longitudes) {
  const sorted = [...new Set(longitudes)].sort((a, b) => a - b);
  // The arc runs everywhere except across the widest gap between neighbours; the wrap-around gap
  // wins ties, so an ambiguous group keeps the plain mean.
  let widestGap = sorted[0] + 360 - sorted[sorted.length - 1];
  let westIndex = 0;
  for (let i = 1; i < sorted.length; i += 1) {
    const gap = sorted[i] - sorted[i - 1];
    if (gap > widestGap) {
      widestGap = gap;
      westIndex = i;
    }
  }
  const span = 360 - widestGap;
  if (span > 180) {
    throw new Error(`ZIP3 ${zip3}: its longitudes span ${span.toFixed(1)}°, more than 180°, so they have no meaningful mean`);
  }
  const west = sorted[westIndex];
  const mean = average(longitudes.map((longitude) => (longitude < west ? longitude + 360 : longitude)));
  return mean > 180 ? mean - 360 : mean;
}

function average(values) {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The state most of the ZIPs are in; a tie goes to the alphabetically first. */
function majorityState(zips) {
  const counts = new Map();
  for (const { state } of zips) counts.set(state, (counts.get(state) ?? 0) + 1);
  const [[state]] = [...counts].sort(([stateA, countA], [stateB, countB]) => countB - countA || (stateA < stateB ? -1 : 1));
  return state;
}

/** Four decimals (about 11 m), never "-0.0000". */
function coordinate(value) {
  const text = value.toFixed(4);
  return text === '-0.0000' ? '0.0000' : text;
}

function zip3Records(groups) {
  return [...groups].map(([zip3, zips]) => {
    const latitude = average(zips.map((zip) => zip.latitude));
    const longitude = meanLongitude(
      zip3,
      zips.map((zip) => zip.longitude),
    );
    return `${zip3},${coordinate(latitude)},${coordinate(longitude)},${majorityState(zips)}`;
  });
}

/** The licence as line comments: the BSD licence asks that copies of the data keep it. */
function licenceComment(licence) {
  return licence
    .trim()
    .split(/\r?\n/)
    .map((line) => `// ${line}`.trimEnd())
    .join('\n');
}

function renderTable(records, version, licence) {
  return `// Generated by \`npm run zip3-table\` (scripts/build-zip3-table.js): do not edit by hand.
// Derived from the zipcodes package ${version} (BSD licence, copyright (c) 2007 Dav Glass), whose US data
// comes from federalgovernmentzipcodes.us, with most coordinates from GeoNames (www.geonames.org,
// CC BY). See docs/geography.md. The package's licence:
//
${licenceComment(licence)}

/**
 * One \`zip3,latitude,longitude,state\` record per line, sorted by ZIP3: the centroid of the ZIP3's
 * ZIPs in decimal degrees and the state most of them are in.
 */
export const ZIP3_TABLE = \`${records.join('\n')}\`;
`;
}

function main(args) {
  const check = args.length === 1 && args[0] === '--check';
  if (args.length > 0 && !check) {
    process.stderr.write('usage: node scripts/build-zip3-table.js [--check]\n');
    return 2;
  }
  const { version, licence, codes } = readZipcodesPackage();
  const { zips, withoutCoordinates, knownBad, military } = usableZips(codes);
  const records = zip3Records(groupByZip3(zips));
  const table = renderTable(records, version, licence);
  const shownPath = relative(repositoryRoot, tablePath);

  if (check) {
    const committed = existsSync(tablePath) ? readFileSync(tablePath, 'utf8') : undefined;
    if (committed !== table) {
      process.stderr.write(
        `${shownPath} is not what scripts/build-zip3-table.js writes from zipcodes ${version}: run npm run zip3-table\n`,
      );
      return 1;
    }
    process.stdout.write(`${shownPath} is up to date: ${records.length} ZIP3s from zipcodes ${version}\n`);
    return 0;
  }
  mkdirSync(dirname(tablePath), { recursive: true });
  writeFileSync(tablePath, table);
  process.stdout.write(
    `Wrote ${records.length} ZIP3s (${Buffer.byteLength(table)} bytes) to ${shownPath} from ${zips.length} ZIPs of zipcodes ${version}; ` +
      `skipped ${military} military ZIPs, ${withoutCoordinates} without coordinates and ${knownBad} with known-bad ones\n`,
  );
  return 0;
}

process.exitCode = main(process.argv.slice(2));
