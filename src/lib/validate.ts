import type { TSchema } from '@sinclair/typebox';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { fitsDecimalRule, type DecimalRule } from './decimal.js';
import { oversizedArrays } from './array-sizes.js';
import { formatValidationErrors, type ValidationIssue } from './validation-messages.js';

/**
 * Validates input that does not come through an HTTP route (CLI arguments, seed data) with the
 * same Ajv options and the same messages as the routes.
 */
export const ajvOptions = {
  allErrors: true,
  coerceTypes: false,
  removeAdditional: false,
  verbose: true,
  // A quantity is text or a JSON number: `type: ["string", "number"]`.
  allowUnionTypes: true,
  keywords: [
    // A field's own message for its failures (`… must be a positive decimal …`).
    'x-message',
    // Exact decimals, as text or JSON numbers: digits and sign (lib/decimal).
    {
      keyword: 'x-decimal',
      schemaType: 'object',
      validate: (rule: DecimalRule, value: unknown) => fitsDecimalRule(value, rule),
      errors: false,
    },
  ],
} satisfies Options;

const ajv = new Ajv(ajvOptions);

/**
 * One message per problem, naming the field; empty when the value is valid. Array sizes first, as
 * for a request body (lib/array-sizes): an array over its limit is refused unread.
 */
export function inputProblems(schema: TSchema, value: unknown): string[] {
  const oversized = oversizedArrays(schema, value);
  if (oversized.length > 0) return formatValidationErrors(oversized, 'input');
  const validate = ajv.getSchema(schemaKey(schema)) ?? compile(schema);
  return validate(value) ? [] : formatValidationErrors((validate.errors ?? []) as ValidationIssue[], 'input');
}

const keys = new WeakMap<TSchema, string>();
let nextKey = 0;

function schemaKey(schema: TSchema): string {
  let key = keys.get(schema);
  if (!key) keys.set(schema, (key = `input-${nextKey++}`));
  return key;
}

function compile(schema: TSchema) {
  ajv.addSchema(schema, schemaKey(schema));
  return ajv.getSchema(schemaKey(schema))!;
}

/**
 * A validator that knows `formats` too and answers Ajv's issues, not messages: for a caller that
 * places each problem itself (an X12 set names the segment and element at fault). Array sizes
 * first, as for a request body.
 */
export function issueFinder(formats: NonNullable<Options['formats']>): (schema: TSchema, value: unknown) => ValidationIssue[] {
  const withFormats = new Ajv({ ...ajvOptions, formats });
  const compiled = new WeakMap<TSchema, ValidateFunction>();
  return (schema, value) => {
    const oversized = oversizedArrays(schema, value);
    if (oversized.length > 0) return oversized;
    let validate = compiled.get(schema);
    if (!validate) compiled.set(schema, (validate = withFormats.compile(schema)));
    return validate(value) ? [] : ((validate.errors ?? []) as ValidationIssue[]);
  };
}
