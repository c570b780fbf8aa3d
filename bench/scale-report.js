/**
 * The output of `npm run bench:scale`: each page's median and range over the runs of a size, its
 * ratios to the same page at the first size, and the Markdown tables (pages; seeding, disk and
 * memory) printed at the end.
 */
import { median } from './report.js';

/** The most a page's p50 may grow from the first size to the largest (docs/performance.md, "Pages at scale"). */
export const P50_RATIO_TARGET = 1.5;
/** The most the server may hold resident while it serves the largest size (250 MB). */
export const RSS_TARGET_BYTES = 250_000_000;

const statOf = (values) => ({ median: median(values), range: [Math.min(...values), Math.max(...values)] });

/** A page's runs at one size, as medians and ranges of req/s, p50 and p99 (ms). */
export function summarize(runs) {
  return {
    runs: runs.length,
    requestsPerSecond: statOf(runs.map((run) => run.requestsPerSecond)),
    p50: statOf(runs.map((run) => run.latencyMs.p50)),
    p99: statOf(runs.map((run) => run.latencyMs.p99)),
  };
}

/**
 * Adds to every page of every size after the first its ratios to the same page at the first size:
 * p50 (median ÷ median) and req/s, and whether the p50's is within the target.
 */
export function withRatios(sizes) {
  const [first] = sizes;
  const base = new Map(first.pages.map((page) => [page.key, page.summary]));
  return sizes.map((size) => ({
    ...size,
    pages: size.pages.map((page) => {
      const at = base.get(page.key);
      if (!at || size === first) return { ...page, vsFirstSize: null };
      const p50 = page.summary.p50.median / at.p50.median;
      return {
        ...page,
        vsFirstSize: {
          size: first.size,
          p50,
          requestsPerSecond: page.summary.requestsPerSecond.median / at.requestsPerSecond.median,
          withinTarget: p50 <= P50_RATIO_TARGET,
        },
      };
    }),
  }));
}

const count = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
const ms = (value) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
const mb = (bytes) => (Number.isFinite(bytes) && bytes > 0 ? `${(bytes / 1e6).toFixed(0)} MB` : 'n/a');

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** A size's figures of one page: p50 (and its range over the runs), req/s. */
function figuresCell(summary) {
  const { p50, requestsPerSecond } = summary;
  const range = summary.runs > 1 ? ` [${ms(p50.range[0])}–${ms(p50.range[1])}]` : '';
  return `${ms(p50.median)} ms${range}, ${count(requestsPerSecond.median)}/s`;
}

/**
 * One row per page of each search and database: the totalCount it found at each size, its p50 and
 * req/s at each size, and at each later size its ratios to the first (p50 ×, req/s ×), the p50's
 * at the largest size against the target.
 */
export function formatPagesTable(databases) {
  const sizes = databases[0].sizes.map((size) => size.size);
  const first = count(sizes[0]);
  const header = [
    'Search',
    'Page',
    'Database',
    `totalCount at ${sizes.map(count).join(' / ')}`,
    ...sizes.map((size) => `p50, req/s at ${count(size)}`),
    ...sizes.slice(1).map((size) => `at ${count(size)} ÷ at ${first}: p50, req/s`),
    `p50 ≤ ${P50_RATIO_TARGET}× at ${count(sizes.at(-1))}`,
  ];
  const rows = [];
  const keys = databases[0].sizes[0].pages.map((page) => page.key);
  for (const key of keys) {
    for (const database of databases) {
      const pages = database.sizes.map((size) => size.pages.find((page) => page.key === key));
      if (pages.some((page) => !page)) continue;
      const last = pages.at(-1).vsFirstSize;
      rows.push([
        pages[0].search,
        pages[0].page,
        database.label,
        pages.map((page) => count(page.checks[0].totalCount)).join(' / '),
        ...pages.map((page) => figuresCell(page.summary)),
        ...pages.slice(1).map((page) => `${page.vsFirstSize.p50.toFixed(2)}×, ${page.vsFirstSize.requestsPerSecond.toFixed(2)}×`),
        last ? (last.withinTarget ? 'within' : 'NOT within') : '—',
      ]);
    }
  }
  return table(header, rows);
}

/** One row per database and size: what the seeding made and took, the database on disk, the server's memory. */
export function formatSeedingTable(databases) {
  const header = [
    'Database',
    'Orders',
    'Seeding s (batches + fan-out + upkeep)',
    'Orders/s',
    'Deliveries s',
    'Receipts',
    'Shipped',
    'Cancelled',
    'Adjustments',
    'Items',
    'Events (newest Sequence)',
    'Deliveries',
    'On disk',
    'Server RSS while measured: max sampled (peak)',
  ];
  const rows = [];
  for (const database of databases) {
    let previous = 0;
    for (const size of database.sizes) {
      const { seconds } = size.seeding;
      const total = seconds.batches + seconds.fanOut + seconds.upkeep;
      const { counts } = size.seeding;
      rows.push([
        database.label,
        count(size.size),
        `${total.toFixed(0)} (${seconds.batches.toFixed(0)} + ${seconds.fanOut.toFixed(0)} + ${seconds.upkeep.toFixed(0)})`,
        count((size.size - previous) / total),
        size.deliveries.seconds.toFixed(0),
        count(counts.receipts),
        count(counts.shipments),
        count(counts.cancels),
        count(counts.adjustments),
        count(counts.items),
        count(size.facts.lastSequence),
        count(size.deliveries.total),
        mb(size.diskBytes),
        `${mb(size.memory.maxBytes)} (${mb(size.memory.peakBytes)})`,
      ]);
      previous = size.size;
    }
  }
  return table(header, rows);
}

/**
 * What the run says of its targets at the largest size, a line a database: how many pages keep
 * their p50 within P50_RATIO_TARGET of the first size's, and the server's resident memory against
 * RSS_TARGET_BYTES.
 */
export function formatTargets(databases) {
  return databases.map((database) => {
    const largest = database.sizes.at(-1);
    const ratios = largest.pages.filter((page) => page.vsFirstSize);
    const within = ratios.filter((page) => page.vsFirstSize.withinTarget).length;
    const { maxBytes, peakBytes } = largest.memory;
    const pagesText =
      ratios.length > 0
        ? `${within} of ${ratios.length} pages with a p50 within ${P50_RATIO_TARGET}× of the same page at ${count(database.sizes[0].size)}`
        : 'one size only: no ratios';
    return (
      `${database.label} at ${count(largest.size)} orders: ${pagesText}; the server held at most ${mb(maxBytes)} resident ` +
      `while measured (peak ${mb(peakBytes)}; target < ${mb(RSS_TARGET_BYTES)}: ${peakBytes < RSS_TARGET_BYTES ? 'within' : 'NOT within'}).`
    );
  });
}
