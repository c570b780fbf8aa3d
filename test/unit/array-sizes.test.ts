import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { oversizedArrays } from '../../src/lib/array-sizes.js';
import { ajvOptions } from '../../src/lib/validate.js';
import { formatValidationErrors, MAX_PROBLEMS, type ValidationIssue } from '../../src/lib/validation-messages.js';

/** The walk's messages, and the validator's for the same value: they must read alike. */
const walked = (schema: object, value: unknown) => formatValidationErrors(oversizedArrays(schema, value), 'body');
const validated = (schema: object, value: unknown) => {
  const validate = new Ajv(ajvOptions).compile(schema);
  return validate(value) ? [] : formatValidationErrors((validate.errors ?? []) as ValidationIssue[], 'body');
};

/** An array of `length` elements that throws when an element is read. */
function unreadable(length: number): unknown[] {
  const array = new Array(length);
  for (let index = 0; index < Math.min(length, 10); index++) {
    Object.defineProperty(array, index, { enumerable: true, get: () => expect.unreachable(`element ${index} was read`) });
  }
  return array;
}

describe('oversizedArrays', () => {
  const Line = Type.Object({
    ItemNumber: Type.String({ maxLength: 30 }),
    Serials: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
  });
  const Body = Type.Object({ Content: Type.Object({ Items: Type.Array(Line, { maxItems: 3 }) }) });

  it('refuses an array over its maxItems with the message the validator gives, without reading an element', () => {
    expect(walked(Body, { Content: { Items: unreadable(1_000_000) } })).toEqual(['Content.Items must have at most 3 items']);
    expect(validated(Body, { Content: { Items: [1, 2, 3, 4] } })).toContain('Content.Items must have at most 3 items');
  });

  it('finds nothing in a body within its limits, whatever else is wrong with it', () => {
    expect(oversizedArrays(Body, { Content: { Items: [{ ItemNumber: 'x'.repeat(100) }, 5, null] } })).toEqual([]);
    expect(oversizedArrays(Body, 'not an object')).toEqual([]);
  });

  it('looks into the elements of an array within its limit, and names the element', () => {
    const body = { Content: { Items: [{ ItemNumber: 'A' }, { ItemNumber: 'B', Serials: ['1', '2', '3'] }] } };
    expect(walked(Body, body)).toEqual(['Content.Items[1].Serials must have at most 2 items']);
    expect(validated(Body, body)).toEqual(['Content.Items[1].Serials must have at most 2 items']);
  });

  it('reads a union as the validator folds it: one problem when every branch of the value’s type is over its limit', () => {
    const Tags = Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 2 })], {
      'x-message': 'must be a string or a short list',
    });
    const schema = Type.Object({ tags: Tags });
    expect(walked(schema, { tags: unreadable(5) })).toEqual(['tags must be a string or a short list']);
    expect(validated(schema, { tags: ['a', 'b', 'c'] })).toEqual(['tags must be a string or a short list']);
    expect(oversizedArrays(schema, { tags: ['a', 'b'] })).toEqual([]);
    // A branch that takes the value within its limits, or no branch of its type: the validator's to judge.
    const either = Type.Object({ tags: Type.Union([Type.Array(Type.String(), { maxItems: 2 }), Type.Array(Type.Number())]) });
    expect(oversizedArrays(either, { tags: [1, 2, 3] })).toEqual([]);
    expect(oversizedArrays(schema, { tags: 5 })).toEqual([]);
  });

  it('follows references, recursive ones included, and keys that patternProperties take', () => {
    const Condition = Type.Recursive(
      (This) => Type.Object({ all: Type.Optional(Type.Array(This, { maxItems: 2 })), zone: Type.Optional(Type.Number()) }),
      { $id: 'Condition' },
    );
    const schema = Type.Object(
      { when: Type.Ref(Condition), lists: Type.Record(Type.String({ pattern: '^[a-z]+$' }), Type.Array(Type.String(), { maxItems: 1 })) },
      { $defs: { condition: Condition } },
    );
    const body = { when: { all: [{ all: [{}, {}, {}] }] }, lists: { das: ['1', '2'], ok: ['1'] } };
    expect(walked(schema, body)).toEqual(['when.all[0].all must have at most 2 items', 'lists.das must have at most 1 items']);
  });

  it(`stops at ${MAX_PROBLEMS} problems`, () => {
    const lines = Array.from({ length: 3 }, () => ({ ItemNumber: 'A', Serials: ['1', '2', '3'] }));
    const schema = Type.Object({ Batches: Type.Array(Type.Object({ Items: Type.Array(Line, { maxItems: 3 }) }), { maxItems: 1000 }) });
    const issues = oversizedArrays(schema, { Batches: Array.from({ length: 500 }, () => ({ Items: lines })) });
    expect(issues).toHaveLength(MAX_PROBLEMS);
    expect(formatValidationErrors(issues, 'body')[99]).toBe('Batches[33].Items[0].Serials must have at most 2 items');
  });
});
