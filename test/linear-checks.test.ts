import { beforeAll, describe, expect, it } from 'vitest';
import { dateTimeFormats, explainFormatFailure } from '../src/http/formats.js';
import { MAX_DATE_TEXT } from '../src/http/time.js';
import { ADMIN_PREFIX } from '../src/modules/admin/admin.routes.js';
import { RateCardSchema } from '../src/modules/rating/rate-card.schemas.js';
import { useTestApp } from './helpers/app.js';
import { createKey, createTenant } from './helpers/factories.js';
import { ADVERSARIAL_TEXTS } from './fuzz/arbitraries.js';
import { routeCollector, type FuzzedRoute } from './fuzz/harness.js';

/**
 * Every check of request text runs in time linear in the text, and sizes come first: a value
 * over its `maxLength` is refused unread. Driven from the app's own route table: every string
 * field of every route's JSON body (nested ones and array elements included, and the rate card's
 * fields, which POST /admin/v1/rate-cards checks against the card's own schema) gets each
 * adversarial shape at 10,000 and at 100,000 characters. Linear checks take about 10 times as
 * long for the longer text (less, with the request's fixed cost), quadratic ones about 100 times:
 * a field fails when the ratio of the two times exceeds 30. Times are only compared with times of
 * this test, never with an absolute figure. They are the process's CPU time, which other processes
 * on a busy machine do not stretch as they stretch the wall clock, and a ratio counts as the
 * quickest of several tries of each size, so that a pause (a garbage collection) fails nothing.
 *
 * SQLite only: each body carries just the path to its field (no tenant, no document number), so
 * every request is refused by its route's checks before any service runs, and nothing, not even a
 * failure ACK, reads or writes the database. The database plays no part in what is measured.
 */

const SHORT = 10_000;
const LONG = 100_000;
const MAX_RATIO = 30;
/**
 * Most texts need not be sent at both sizes. Each route's quickest short request is measured first
 * (its floor); a long text that takes at most SCREEN_RATIO times the floor has a ratio under 30,
 * since no short text of the route costs less than half the floor (the request's fixed cost
 * dominates a short text). A long text over that is judged by its ratio: the short text's time is
 * the quickest of TRIES sends, the long one's the quickest of up to 1 + RETRIES (a collection may
 * have run during one).
 */
const SCREEN_RATIO = 15;
const TRIES = 7;
const RETRIES = 2;

type Schema = Record<string, any>;
type Step = string | number;

/** A string field: the steps from the body to it, and its schema. */
interface StringField {
  path: Step[];
  schema: Schema;
}

const isStringSchema = (schema: Schema) => [schema.type].flat().includes('string');

/** A text that `pattern` (of a patternProperties key, or a path parameter) admits. */
function textMatching(pattern: string): string {
  const text = ['1', 'X'].find((candidate) => new RegExp(pattern, 'u').test(candidate));
  if (text === undefined) throw new Error(`no sample text for the pattern ${pattern}`);
  return text;
}

/**
 * Every string field of `schema`, once per path: through objects' properties, array elements
 * (index 0), every branch of a union, `$ref`s (each schema once along a path, so recursive ones
 * end), and keys that `patternProperties` or `additionalProperties` take.
 */
function stringFields(root: Schema): StringField[] {
  const byId = new Map<string, Schema>();
  const collect = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    if (typeof (node as Schema).$id === 'string') byId.set((node as Schema).$id, node as Schema);
    for (const member of Object.values(node)) collect(member);
  };
  collect(root);
  const fields = new Map<string, StringField>();
  const walk = (schema: Schema, path: Step[], along: Set<Schema>) => {
    if (along.has(schema)) return;
    const inside = new Set(along).add(schema);
    if (typeof schema.$ref === 'string') walk(byId.get(schema.$ref) ?? {}, path, inside);
    for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) walk(branch, path, inside);
    if (isStringSchema(schema) && !fields.has(JSON.stringify(path))) fields.set(JSON.stringify(path), { path, schema });
    for (const [key, member] of Object.entries<Schema>(schema.properties ?? {})) walk(member, [...path, key], inside);
    for (const [pattern, member] of Object.entries<Schema>(schema.patternProperties ?? {}))
      walk(member, [...path, textMatching(pattern)], inside);
    if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, [...path, 'AnotherKey'], inside);
    if (schema.items && !Array.isArray(schema.items)) walk(schema.items, [...path, 0], inside);
  };
  walk(root, [], new Set());
  return [...fields.values()];
}

/** The body that holds `value` at `path` and nothing else. */
function bodyWith(path: Step[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, step) => (typeof step === 'number' ? [inner] : { [step]: inner }), value);
}

const label = (path: Step[]) => path.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('');

/** A value its schema takes, for a path parameter (the body is checked only after them). */
const parameterValue = (schema: Schema | undefined) => (typeof schema?.pattern === 'string' ? textMatching(schema.pattern) : 'X');

describe('linear checks of request text, sizes first', () => {
  const { routes, onRoute } = routeCollector();
  const ctx = useTestApp('sqlite', {}, { onRoute });
  let key: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    const tenant = await createTenant(database.db, clock, { customers: 1, facilities: 1 });
    key = await createKey(database.db, clock, tenant, 'admin', { rateLimit: 0 });
  });

  /** What each route with a JSON body reads: the route, its URL with parameters filled in, and its string fields. */
  const targets = () =>
    routes
      .filter((route): route is FuzzedRoute & { body: Schema } => route.body !== undefined)
      .map((route) => {
        const params = (route.params?.properties ?? {}) as Record<string, Schema>;
        const url = route.url.replace(/:(\w+)/g, (_whole, name: string) => encodeURIComponent(parameterValue(params[name])));
        const fields = stringFields(route.body);
        // The rate card is checked against its own schema, not the route's (which takes any object as Card).
        if (route.method === 'POST' && route.url === `${ADMIN_PREFIX}/rate-cards`) {
          fields.push(...stringFields(RateCardSchema).map(({ path, schema }) => ({ path: ['Card', ...path], schema })));
        }
        return { route, url, fields };
      });

  it('every date field takes at most MAX_DATE_TEXT characters, and every date format refuses a longer text, even a valid date padded', () => {
    const dateFields = targets().flatMap(({ route, fields }) =>
      fields.filter(({ schema }) => schema.format in dateTimeFormats).map((field) => ({ route: `${route.method} ${route.url}`, ...field })),
    );
    expect(dateFields.length).toBeGreaterThan(20);
    for (const { route, path, schema } of dateFields) {
      expect(schema.maxLength, `${route} ${label(path)}`).toBeLessThanOrEqual(MAX_DATE_TEXT);
    }
    for (const [format, check] of Object.entries(dateTimeFormats)) {
      expect(check(`3/5/2024 1:00:00 PM${' '.repeat(MAX_DATE_TEXT)}`), format).toBe(false);
      for (const shape of Object.values(ADVERSARIAL_TEXTS)) {
        expect(check(shape(LONG)), format).toBe(false);
        expect(explainFormatFailure(format, shape(LONG))).toBeUndefined();
      }
    }
  });

  it(`every string field of every route's body: ${LONG} characters take at most ${MAX_RATIO} times as long as ${SHORT}`, async () => {
    const { app } = ctx();
    /** The quickest of `tries` sends of a payload, in milliseconds of the process's CPU time, and the status it got. */
    const quickest = async (method: string, url: string, payloadOf: () => string, tries: number) => {
      let ms = Infinity;
      let status = 0;
      for (let attempt = 0; attempt < tries; attempt++) {
        const payload = payloadOf();
        const start = process.cpuUsage();
        const answer = await app.inject({
          method: method as 'POST',
          url,
          headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
          payload,
        });
        const used = process.cpuUsage(start);
        ms = Math.min(ms, (used.user + used.system) / 1000);
        status = answer.statusCode;
      }
      return { ms, status };
    };
    // Every text sent is a new one, a few characters longer than the last: a check that remembered
    // a text would answer it again for nothing. There are more of them than any cache keeps (1,000).
    let sent = 0;
    const VARIANTS = 1201;
    const mark = '\u0000text\u0000';
    const textAt = (path: Step[], shape: (length: number) => string, length: number) =>
      JSON.stringify(bodyWith(path, mark)).replace(JSON.stringify(mark), () => JSON.stringify(shape(length + (sent++ % VARIANTS))));
    const digits = ADVERSARIAL_TEXTS['a run of digits']!;

    const all = targets();
    expect(all.length).toBeGreaterThan(40);
    const fieldCount = all.reduce((sum, { fields }) => sum + fields.length, 0);
    expect(fieldCount).toBeGreaterThan(600);
    const statuses = new Set<number>();
    let measured = 0;
    for (const { route, url, fields } of all.filter((target) => target.fields.length > 0)) {
      const where = (path: Step[]) => `${route.method} ${route.url} ${label(path)}`;
      // The route's quickest request with a short text: no short text of any field costs much less.
      const floor = await quickest(route.method, url, () => textAt(fields[0]!.path, digits, SHORT), TRIES);
      for (const { path } of fields) {
        for (const [name, shape] of Object.entries(ADVERSARIAL_TEXTS)) {
          const longText = () => textAt(path, shape, LONG);
          let long = await quickest(route.method, url, longText, 1);
          statuses.add(long.status);
          measured += 1;
          if (long.ms <= SCREEN_RATIO * floor.ms) continue;
          const short = await quickest(route.method, url, () => textAt(path, shape, SHORT), TRIES);
          for (let retry = 0; retry < RETRIES && long.ms > MAX_RATIO * short.ms; retry++) {
            const again = await quickest(route.method, url, longText, 1);
            if (again.ms < long.ms) long = again;
          }
          // A slow check fails the test at once: each of its long texts may take seconds.
          const times = `${short.ms.toFixed(2)} ms → ${long.ms.toFixed(2)} ms`;
          expect(long.ms / short.ms, `${where(path)} with ${name}: ${times}`).toBeLessThanOrEqual(MAX_RATIO);
        }
      }
    }
    expect(measured).toBe(fieldCount * Object.keys(ADVERSARIAL_TEXTS).length);
    // Every such body is refused by the checks (it names no tenant): no service ran.
    expect([...statuses]).toEqual([400]);
  }, 300_000);
});
