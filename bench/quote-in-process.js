/**
 * The rate engine without HTTP: compiles the example card once with the built code
 * (dist/modules/rating/), then calls `quoteParcel` on the parcels of the HTTP rate scenario
 * (bench/rate-parcels.js, the destination going round the same 50 ZIPs) for a warm-up that is not
 * counted and then a measured run, and prints quotes a second and the time of one quote (µs,
 * mean, p50, p90, p99, max). Only the engine is timed: no key check, no choice of card, no
 * validation, no envelope and no serialization, which is what the HTTP figure adds.
 *
 * `npm run bench` runs it on the servers' core (taskset -c 1) after the HTTP scenarios, and
 * compares it with B0. On its own (after `npm run build`):
 *
 *   taskset -c 1 node bench/quote-in-process.js [--seconds 5] [--warmup 2] [--json]
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEST_ZIPS, RATE_CARD_FILE, RATE_SERVICES, RATE_USER_ID, engineParcel } from './rate-parcels.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const rating = (file) => import(join(root, 'dist', 'modules', 'rating', file));

/** The p-th percentile (nearest rank) of ascending `sorted`, as bench/load.js takes it. */
function percentile(sorted, p) {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Today in the card's time zone, yyyy-MM-dd: the day the rate service quotes with. */
function todayIn(timeZone) {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

/** The card as the server compiles it: parsed like a loaded file, then compiled once. */
async function compileExampleCard() {
  const [{ compileRateCard }, { parseRateCardText }] = await Promise.all([rating('rate-card.compile.js'), rating('rating.service.js')]);
  return compileRateCard(parseRateCardText(readFileSync(join(root, RATE_CARD_FILE), 'utf8')));
}

/**
 * Quotes every parcel once and fails unless each gets both services: the timed loop must measure
 * the path the HTTP scenario measures, not a refusal.
 */
function checkParcels(quoteParcel, card, parcels, context) {
  for (const [i, parcel] of parcels.entries()) {
    const quotation = quoteParcel(card, parcel, context);
    const services = quotation.quotes.map((quote) => quote.service).sort();
    if (services.join() !== RATE_SERVICES.join()) {
      throw new Error(
        `to ${DEST_ZIPS[i]}: quoted ${services.join(', ') || 'nothing'} (${quotation.notServiceable ?? JSON.stringify(quotation.refusals)})`,
      );
    }
  }
}

/**
 * Calls `quote(n)` for n = 0, 1, … until `seconds` have passed; returns the count, the elapsed
 * seconds and, when `timings` is given, each call's time in µs (the array grows by doubling, so
 * that a faster engine still fits). Each call is timed with two performance.now() calls, about
 * 0.1 µs against the tens of µs a quote takes.
 */
function loop(quote, seconds, timings) {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let samples = timings ? new Float64Array(1 << 20) : undefined;
  let n = 0;
  let now = started;
  while (now < deadline) {
    const before = now;
    quote(n);
    now = performance.now();
    if (samples) {
      if (n === samples.length) {
        const grown = new Float64Array(samples.length * 2);
        grown.set(samples);
        samples = grown;
      }
      samples[n] = (now - before) * 1000;
    }
    n += 1;
  }
  return { count: n, seconds: (now - started) / 1000, samples: samples?.subarray(0, n) };
}

export async function measureInProcess({ seconds = 5, warmupSeconds = 2 } = {}) {
  const { quoteParcel } = await rating('engine.js');
  const card = await compileExampleCard();
  const context = { date: todayIn(card.timeZone), userId: RATE_USER_ID };
  const parcels = DEST_ZIPS.map((_, i) => engineParcel(i));
  checkParcels(quoteParcel, card, parcels, context);

  // Kept, so that the engine's result is used and no call can be optimized away.
  let quoted = 0;
  const quote = (n) => {
    quoted += quoteParcel(card, parcels[n % parcels.length], context).quotes.length;
  };
  loop(quote, warmupSeconds);
  quoted = 0;
  const { count, seconds: elapsed, samples } = loop(quote, seconds, true);
  if (quoted !== count * RATE_SERVICES.length) throw new Error(`${quoted} services quoted in ${count} quotes`);

  const sorted = Float64Array.from(samples).sort();
  return {
    what: 'quoteParcel(compiled example card, parcel, {date, userId}), the destination going round DEST_ZIPS',
    parcels: parcels.length,
    date: context.date,
    node: process.version,
    warmupSeconds,
    seconds: elapsed,
    quotes: count,
    quotesPerSecond: count / elapsed,
    microsPerQuote: {
      mean: (elapsed * 1e6) / count,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1],
    },
  };
}

/** One line for people: what bench/run.js prints next to its table. */
export function describeInProcess(figures) {
  const us = figures.microsPerQuote;
  return (
    `${Math.round(figures.quotesPerSecond).toLocaleString('en-US')} quotes/s ` +
    `(${figures.quotes.toLocaleString('en-US')} quotes in ${figures.seconds.toFixed(1)} s after a ${figures.warmupSeconds} s warm-up; ` +
    `µs a quote: mean ${us.mean.toFixed(1)}, p50 ${us.p50.toFixed(1)}, p99 ${us.p99.toFixed(1)}, max ${us.max.toFixed(0)})`
  );
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '2' },
      json: { type: 'boolean', default: false },
    },
  });
  const figures = await measureInProcess({ seconds: Number(values.seconds), warmupSeconds: Number(values.warmup) });
  process.stdout.write(values.json ? `${JSON.stringify(figures)}\n` : `quoteParcel in process: ${describeInProcess(figures)}\n`);
}
