import type { DecimalRule } from '../lib/decimal.js';
import type { dateTimeFormats } from './formats.js';
import { Type, type SchemaOptions, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** Shared TypeBox building blocks for request and response schemas. */

/** A string limited to the given values; one `enum` keyword, so one clear validation message. */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** A value of the given schema, or null; one `type` keyword (`["string","null"]`), not an anyOf. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<T['static'] | null> {
  const { type, ...rest } = schema as TSchema & { type?: string | string[] };
  if (Array.isArray(type)) return Type.Unsafe<T['static'] | null>({ ...rest, type: [...type, 'null'] });
  if (typeof type !== 'string') {
    // A union: null becomes one more branch, and the union's own message stays on the outside.
    const { 'x-message': message, description } = schema as TSchema & { 'x-message'?: string };
    return Type.Unsafe<T['static'] | null>(
      Type.Union([schema, Type.Null()], {
        ...(message ? { 'x-message': `${message} or null` } : {}),
        ...(description ? { description } : {}),
      }),
    );
  }
  // An enum lists its values; null must be one of them too, or `type` alone would not admit it.
  const values = (rest as { enum?: unknown[] }).enum;
  return Type.Unsafe<T['static'] | null>({ ...rest, ...(values ? { enum: [...values, null] } : {}), type: [type, 'null'] });
}

/** The spec's identifiers (CompanyID, CustomerID, FacilityID): 1 to 15 characters. */
export const Identifier = (description: string) => Type.String({ minLength: 1, maxLength: 15, description });

export const CompanyID = Identifier("Fixed value assigned by the operator's system administrator.");
export const CustomerID = Identifier("Fixed value assigned by the operator's accounting department.");
export const FacilityID = Identifier("The warehouse, assigned by the operator's customer service.");

/** The units of measure the spec allows on every line: EA (each) and CS (case). */
export const UOMS = ['EA', 'CS'] as const;
export const Uom = (description = 'EA (each) or CS (case).') => StringEnum(UOMS, { description });

/** `[]` stands for an empty text, as the RN import's published success example shows (ReferenceNo, Error). */
export const TextOrEmptyArray = Type.Union([Type.String(), Type.Array(Type.Never(), { maxItems: 0 })]);

/** The spec's error array: one entry per problem. */
export const ProblemsSchema = Type.Array(
  Type.Object({
    code: Type.String({ description: '`EDI-ERROR-<message>`' }),
    error: Type.String(),
  }),
  { description: 'One entry per problem, all problems at once.' },
);

/** The spec's single error object (`Not found facility`, not-found lookups). */
export const ErrorObjectSchema = Type.Object({ error: Type.String() });

const problemResponses = {
  400: Type.Union([ProblemsSchema, ErrorObjectSchema], {
    description: 'Malformed JSON or a validation failure (array); an unknown FacilityID ({"error":"Not found facility"}).',
  }),
  401: { ...ProblemsSchema, description: 'Missing, malformed, unknown or revoked API key.' },
  403: { ...ProblemsSchema, description: "The key's role may not call this operation, or a body identifier is outside its scope." },
  404: { ...ErrorObjectSchema, description: 'The document or record was not found.' },
  408: { ...ProblemsSchema, description: 'The request did not arrive in time (its headers or its body); the connection is closed.' },
  409: { ...ProblemsSchema, description: 'The move is not allowed in the current state, or a document number was reused.' },
  413: { ...ProblemsSchema, description: 'The body is larger than the configured limit.' },
  415: { ...ProblemsSchema, description: 'The body is not application/json.' },
  429: {
    ...ProblemsSchema,
    description:
      "Too many requests for the key's limit a minute; Retry-After says when to try again (RateLimit-* headers on every answer).",
  },
  500: { ...ProblemsSchema, description: 'An internal error; the message carries the request id.' },
};

/** The error responses an authenticated JSON operation can give, for its route schema. */
export function errorResponses(...extra: (404 | 409)[]) {
  const { 404: notFound, 409: conflict, ...always } = problemResponses;
  return {
    ...always,
    ...(extra.includes(404) ? { 404: notFound } : {}),
    ...(extra.includes(409) ? { 409: conflict } : {}),
  };
}

const range = (count: number) => Array.from({ length: count }, (_, i) => String(i + 1).padStart(2, '0'));

/** DynTxtPropertyValue01 … DynTxtPropertyValue20, optional strings of at most `maxLength`. */
export function dynamicTextProperties(maxLength: number, prefix = 'DynTxtPropertyValue') {
  const optionalText = () => Type.Optional(Nullable(Type.String({ maxLength })));
  return Object.fromEntries(range(20).map((n) => [`${prefix}${n}`, optionalText()])) as Record<string, ReturnType<typeof optionalText>>;
}

/** An optional text field of at most `maxLength` characters; null means absent. */
export const OptionalText = (maxLength: number, description?: string) =>
  Type.Optional(Nullable(Type.String({ maxLength, ...(description ? { description } : {}) })));

const FORMAT_NAMES: Record<keyof typeof dateTimeFormats, string> = {
  'schedule-date': 'a date-time',
  'order-date': 'a date-time',
  'local-date-time': 'an ISO 8601 local date-time',
  'offset-date-time': 'an ISO 8601 date-time with a UTC offset',
  'calendar-date': 'a date',
};

/**
 * An optional date-time text in one of the formats of http/formats.ts; empty or null means absent.
 * `example` shows the form in the message and in the OpenAPI document.
 */
export const OptionalDateTime = (format: keyof typeof dateTimeFormats, maxLength: number, example: string, description: string) =>
  Type.Optional(
    Nullable(
      Type.String({
        maxLength,
        format,
        'x-message': `must be ${FORMAT_NAMES[format]} such as ${example}`,
        description: `${description} E.g. ${example}.`,
      }),
    ),
  );

/** UpdatedWhenFrom/To: an ISO 8601 date-time with its UTC offset, inclusive. */
export const UpdatedWhenBound = (bound: 'Lower' | 'Upper') =>
  OptionalDateTime('offset-date-time', 50, '2024-03-05T14:07:09.123-08:00', `${bound} bound of the last update, inclusive.`);

/**
 * A quantity (docs/compatibility.md): decimal text with at most 11 integer and 4 fractional digits, or a JSON
 * number of that form; `x-decimal` checks digits and sign, lib/decimal reads it exactly.
 */
export function Quantity(options: { signed?: boolean; description?: string } = {}) {
  return Decimal(
    { integerDigits: 11, fractionDigits: 4, sign: options.signed ? 'any' : 'positive' },
    `must be ${options.signed ? 'a' : 'a positive'} decimal with at most 11 integer and 4 fractional digits`,
    options.description,
  );
}

/** A decimal of the given shape, as text or a JSON number. */
export function Decimal(rule: DecimalRule, message: string, description?: string) {
  return Type.Unsafe<string | number>({
    type: ['string', 'number'],
    'x-decimal': rule,
    'x-message': message,
    ...(description ? { description } : {}),
  });
}

/**
 * What an object of an import refuses by name (docs/compatibility.md, "Names Wharf owns"): every
 * name Wharf's own answers about the document use, but the object's own fields. Unknown keys are
 * stored and shown back beside Wharf's fields, so a customer's `SVCPOID`, `ReceivedQty` or
 * `CompanyID` would read as Wharf's. One `propertyNames` check: each key compared with a fixed list.
 */
export function refusingOwnedNames(properties: Record<string, unknown>, owned: readonly string[]) {
  const refused = owned.filter((name) => !Object.hasOwn(properties, name));
  return {
    propertyNames: {
      not: { enum: refused },
      description: 'Names that Wharf’s own answers use are refused here (all but this object’s own fields).',
      'x-message': "is not allowed here: Wharf's own answers use this name",
    },
  };
}
