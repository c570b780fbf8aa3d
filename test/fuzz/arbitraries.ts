/**
 * fast-check arbitraries derived from a route's body schema (the JSON Schema TypeBox builds), and
 * hostile values to plant in them: what a careless or malicious client may send.
 */
import fc from 'fast-check';

type Schema = Record<string, any>;

/** Valid examples of Wharf's string formats (src/http/formats.ts), beside random text. */
const FORMAT_EXAMPLES: Record<string, string[]> = {
  'schedule-date': ['3/5/2026 2:07:09 PM', '2026-03-05T14:07:09', ''],
  'order-date': ['20260305140709', '3/5/2026 2:07:09 PM', '2026-03-05T14:07:09'],
  'local-date-time': ['2026-03-05T14:07:09', '2026-03-05T14:07:09.123', '2026-03-08T02:30:00'],
  'offset-date-time': ['2026-03-05T14:07:09Z', '2026-03-05T14:07:09+02:00'],
  'calendar-date': ['2026-03-05', '2026-02-30'],
};

const MAX_DEPTH = 6;

/** Values a schema may admit: mostly within its bounds, sometimes just past them. */
export function arbitraryOf(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((member: Schema) => arbitraryOf(member, depth + 1)));
  switch (schema.type) {
    case 'object':
      return objectOf(schema, depth);
    case 'array': {
      const maxLength = Math.min(schema.maxItems ?? 5, 5);
      return fc.array(arbitraryOf(schema.items ?? {}, depth + 1), { minLength: Math.min(schema.minItems ?? 0, maxLength), maxLength });
    }
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER) }),
        fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER),
      );
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }), fc.integer({ min: -1000, max: 1000 }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const maxLength = Math.min(schema.maxLength ?? 40, 60);
  const text = fc.string({ minLength: schema.minLength ?? 0, maxLength });
  if (typeof schema.pattern === 'string') {
    return fc.oneof({ weight: 4, arbitrary: fc.stringMatching(new RegExp(schema.pattern)) }, { weight: 1, arbitrary: text });
  }
  const examples = FORMAT_EXAMPLES[schema.format as string];
  if (examples) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...examples) }, { weight: 1, arbitrary: text });
  return text;
}

function objectOf(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const shape = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, arbitraryOf(property, depth + 1)]));
  // The optional keys are left out at random.
  return fc.record(shape, { requiredKeys: [...required].filter((name) => name in properties) as never[] }) as fc.Arbitrary<
    Record<string, unknown>
  >;
}

/** `prefix`, then `fill` repeated, then `suffix`: exactly `length` characters. */
const padded = (prefix: string, fill: string, suffix: string, length: number) => {
  const room = Math.max(0, length - prefix.length - suffix.length);
  return prefix + fill.repeat(Math.ceil(room / fill.length)).slice(0, room) + suffix;
};

/**
 * Long texts shaped to make a backtracking check take time quadratic in their length: runs of
 * white space and digits that a regular expression with a quantifier over them, followed by
 * something that fails at the end, reads again from every position. Each is a function of the
 * length, so that a test can compare two lengths.
 */
export const ADVERSARIAL_TEXTS: Record<string, (length: number) => string> = {
  'a run of spaces': (length) => ' '.repeat(length),
  'a run of digits': (length) => '1'.repeat(length),
  '"1", spaces, "x"': (length) => padded('1', ' ', 'x', length),
  'a US date-time, spaces, no AM/PM': (length) => padded('3/5/2024 2:07:09', ' ', 'x', length),
  'an ISO date, a long time, no offset': (length) => padded('2024-03-05T', '1:', 'x', length),
  'a decimal of zeros that ends badly': (length) => padded('-', '0', '.0x', length),
};

/** The kinds of value no well-behaved client sends, each aimed at a parser, a validator or a database. */
export const HOSTILE_KINDS: Record<string, fc.Arbitrary<unknown>> = {
  'deep nesting': fc.integer({ min: 65, max: 6000 }).map((depth) => `${DEEP}${depth}${DEEP}`),
  'integer past 2^53': fc.constantFrom('9007199254740993', '9007199254740995', '-9007199254740993', '12345678901234567890').map(rawNumber),
  'odd number': fc.constantFrom(1e308, -0, 1e-7, 0.1 + 0.2, -1),
  'lone surrogate': fc.constantFrom('A\ud800', '\udfff', '\ud83dX'),
  'NUL character': fc.constantFrom('A\u0000B', '\u0000'),
  'blank text': fc.constantFrom('', ' ', '   ', '\t'),
  'odd time': fc.constantFrom('13:00:00 PM', '3/8/2026 2:30:00 AM', '2026-03-08T02:30:00', '2026-02-30'),
  injection: fc.constantFrom('__proto__', 'constructor', "'; drop table receipts; --", '%00', '${jndi}', '\u202e'),
  'binary text': fc.string({ unit: 'binary', maxLength: 80 }),
  'long text': fc.constantFrom('x'.repeat(10_000), 'y'.repeat(300), '😀'.repeat(200)),
  // Each shape at 100,000 characters: a check that backtracks over them would stall the request for seconds.
  'long adversarial text': fc.constantFrom(...Object.values(ADVERSARIAL_TEXTS).map((shape) => shape(100_000))),
  'wrong type': fc.constantFrom(true, false, null, [], {}, [[[]]], 0, 'text'),
  'any JSON': fc.jsonValue({ maxDepth: 3 }),
};

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(...Object.values(HOSTILE_KINDS));

/** A number written as these exact digits when sent: as a JS number it would already be rounded. */
function rawNumber(digits: string): string {
  return `${RAW}${digits}${RAW}`;
}
const RAW = '\u0001raw\u0001';

/**
 * A nesting thousands of levels deep stands in a body as this marker around its depth, and becomes
 * JSON text only when sent: as a value it would overflow the test's own stack.
 */
const DEEP = '\u0001deep\u0001';

/** The JSON text of a drawn body, deep nestings written out. */
export function serialize(body: unknown): string {
  if (body === undefined) return '';
  return JSON.stringify(body)
    .replace(/"\\u0001deep\\u0001(\d+)\\u0001deep\\u0001"/g, (_marker, depth: string) => {
      const levels = Number(depth);
      return `${'[{"a":'.repeat(levels)}"deep"${'}]'.repeat(levels)}`;
    })
    .replace(/"\\u0001raw\\u0001(-?\d+)\\u0001raw\\u0001"/g, (_marker, digits: string) => digits);
}

/** Every place in a JSON value where another value could go: [container, key] pairs. */
function slotsOf(value: unknown, slots: [Record<string, unknown> | unknown[], string | number][] = []) {
  if (Array.isArray(value)) value.forEach((item, index) => (slots.push([value, index]), slotsOf(item, slots)));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      slots.push([value as Record<string, unknown>, key]);
      slotsOf(item, slots);
    }
  }
  return slots;
}

/** `base` with one of its values replaced by a hostile one, or a hostile key added beside them. */
export function mutated(base: fc.Arbitrary<unknown>, hostiles: fc.Arbitrary<unknown> = hostileValue): fc.Arbitrary<unknown> {
  return fc.tuple(base, fc.nat(), hostiles, fc.boolean()).map(([value, pick, hostile, addKey]) => {
    const copy = structuredClone(value);
    const slots = slotsOf(copy);
    if (addKey || slots.length === 0) {
      if (copy !== null && typeof copy === 'object' && !Array.isArray(copy))
        (copy as Record<string, unknown>)[`Extra${pick % 7}`] = hostile;
      return slots.length === 0 && (copy === null || typeof copy !== 'object') ? hostile : copy;
    }
    const [container, key] = slots[pick % slots.length]!;
    (container as Record<string | number, unknown>)[key] = hostile;
    return copy;
  });
}
