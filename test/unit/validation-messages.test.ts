import { Type, type TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { Nullable, StringEnum } from '../../src/http/schemas.js';
import { ajvOptions } from '../../src/lib/validate.js';
import { fieldPath, formatValidationErrors, MAX_PROBLEMS, type ValidationIssue } from '../../src/lib/validation-messages.js';

/** Validates with the app's Ajv options and formats the errors as the error handler does. */
const ajv = new Ajv(ajvOptions);
const compiled = new WeakMap<TSchema, ReturnType<typeof ajv.compile>>();

function messages(schema: TSchema, value: unknown, context = 'body'): string[] {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  if (validate(value)) return [];
  return formatValidationErrors((validate.errors ?? []) as ValidationIssue[], context);
}

describe('fieldPath', () => {
  it('joins keys with dots and writes array indexes in brackets', () => {
    expect(fieldPath('')).toBe('');
    expect(fieldPath('/CompanyID')).toBe('CompanyID');
    expect(fieldPath('/Paging/PageNo')).toBe('Paging.PageNo');
    expect(fieldPath('/Items/0/itemID')).toBe('Items[0].itemID');
    expect(fieldPath('/Items/12/Lines/3/Qty')).toBe('Items[12].Lines[3].Qty');
    expect(fieldPath('/Items/0/tags/1')).toBe('Items[0].tags[1]');
  });

  it('keeps keys with spaces as they are', () => {
    expect(fieldPath('/Items/0/Receiving Priority')).toBe('Items[0].Receiving Priority');
    expect(fieldPath('/Items/3/AKA01 Tag')).toBe('Items[3].AKA01 Tag');
  });

  it('appends a child key, e.g. the missing property of a required error', () => {
    expect(fieldPath('', 'CompanyID')).toBe('CompanyID');
    expect(fieldPath('/Items/2', 'itemID')).toBe('Items[2].itemID');
    expect(fieldPath('/Items/2', 'Ship Allowed Days')).toBe('Items[2].Ship Allowed Days');
  });

  it('unescapes JSON pointer ~1 and ~0', () => {
    expect(fieldPath('/a~1b/c~0d')).toBe('a/b.c~d');
  });
});

describe('formatValidationErrors', () => {
  const Item = Type.Object({
    itemID: Type.String({ minLength: 1, maxLength: 30 }),
    code: Type.Optional(Type.String({ minLength: 3 })),
    'Receiving Priority': Type.Optional(Type.Integer({ minimum: 1, maximum: 9 })),
    tags: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 2 })], { 'x-message': 'must be a string or an array of strings' }),
    ),
    status: Type.Optional(StringEnum(['Active', 'Inactive'])),
    UPCCode: Type.Optional(Nullable(Type.String())),
    sku: Type.Optional(Type.String({ pattern: '^[A-Z]+$', 'x-message': 'must be upper-case letters' })),
    plain: Type.Optional(Type.String({ pattern: '^x$' })),
    kind: Type.Optional(Type.Literal('item')),
  });
  const Body = Type.Object({ Items: Type.Array(Item, { minItems: 1, maxItems: 300 }) });

  it('names each problem with its field path', () => {
    expect(
      messages(Body, {
        Items: [
          { itemID: '', code: 'ab', 'Receiving Priority': 0, status: 'Gone', UPCCode: 5, sku: 'abc', plain: 'y', kind: 'box' },
          { 'Receiving Priority': 10 },
        ],
      }),
    ).toEqual([
      'Items[0].itemID must not be empty',
      'Items[0].code must be at least 3 characters',
      'Items[0].Receiving Priority must be at least 1',
      'Items[0].status must be one of: Active, Inactive',
      'Items[0].UPCCode must be a string or null',
      'Items[0].sku must be upper-case letters',
      'Items[0].plain has an invalid format',
      'Items[0].kind must be "item"',
      'Items[1].itemID is required',
      'Items[1].Receiving Priority must be at most 9',
    ]);
  });

  it('names the body itself by the context', () => {
    expect(messages(Body, [], 'body')).toEqual(['Request body must be an object']);
    expect(messages(Body, 5, 'querystring')).toEqual(['querystring must be an object']);
    expect(messages(Body, { Items: [] })).toEqual(['Items must have at least 1 item']);
    expect(messages(Type.Object({ a: Type.Array(Type.String(), { minItems: 2 }) }), { a: [] })).toEqual(['a must have at least 2 items']);
  });

  it('folds the failures of a union into one message for its field', () => {
    expect(messages(Body, { Items: [{ itemID: 'A', tags: 5 }] })).toEqual(['Items[0].tags must be a string or an array of strings']);
    // A failure deep inside one branch is folded too.
    expect(messages(Body, { Items: [{ itemID: 'A', tags: ['a', 5] }] })).toEqual(['Items[0].tags must be a string or an array of strings']);
    expect(messages(Body, { Items: [{ itemID: 'A', tags: ['a', 'b', 'c'] }] })).toEqual([
      'Items[0].tags must be a string or an array of strings',
    ]);
    // Problems beside the union are still reported, in order.
    expect(messages(Body, { Items: [{ itemID: 7, tags: 5, status: 'x' }] })).toEqual([
      'Items[0].itemID must be a string',
      'Items[0].tags must be a string or an array of strings',
      'Items[0].status must be one of: Active, Inactive',
    ]);
  });

  it('reports a union without its own message as an invalid value', () => {
    const schema = Type.Object({ ref: Type.Union([Type.String(), Type.Number()]) });
    expect(messages(schema, { ref: true })).toEqual(['ref has an invalid value']);
  });

  it('folds only the failures inside the failed union, not those of a sibling union', () => {
    const schema = Type.Object({
      a: Type.Union([Type.String(), Type.Integer()], { 'x-message': 'must be text or a whole number' }),
      b: Type.Union([Type.String(), Type.Integer()], { 'x-message': 'must be text or a whole number too' }),
    });
    expect(messages(schema, { a: 1.5, b: null })).toEqual(['a must be text or a whole number', 'b must be text or a whole number too']);
  });

  it('reports an additional property by its path when a schema forbids extra keys', () => {
    const schema = Type.Object({ Paging: Type.Object({ PageNo: Type.Integer() }, { additionalProperties: false }) });
    expect(messages(schema, { Paging: { PageNo: 1, 'Page Size': 2 } })).toEqual(['Paging.Page Size is not allowed']);
  });

  it('refuses a text over its maxLength for its length alone, without explaining what else it fails', () => {
    const Code = Type.String({ maxLength: 5, pattern: '^[A-Z]+$', 'x-message': 'must be upper-case letters' });
    const schema = Type.Object({ code: Code, other: Code });
    expect(messages(schema, { code: 'abcdefg', other: 'x' })).toEqual([
      'code must be at most 5 characters',
      'other must be upper-case letters',
    ]);
    expect(messages(schema, { code: 'abc', other: 'X' })).toEqual(['code must be upper-case letters']);
  });

  it('reports each message once', () => {
    const issue: ValidationIssue = { instancePath: '/a', schemaPath: '#/properties/a/type', keyword: 'type', params: { type: 'string' } };
    expect(formatValidationErrors([issue, { ...issue }], 'body')).toEqual(['a must be a string']);
  });

  it(`stops at ${MAX_PROBLEMS} problems`, () => {
    expect(MAX_PROBLEMS).toBe(100);
    const result = messages(Body, { Items: Array.from({ length: 250 }, () => ({ itemID: 5 })) });
    expect(result).toHaveLength(100);
    expect(result[0]).toBe('Items[0].itemID must be a string');
    expect(result[99]).toBe('Items[99].itemID must be a string');
  });
});
