import { describe, expect, it } from 'vitest';
import { inspectJson, isStorableText, MAX_JSON_DEPTH } from '../../src/lib/json-values.js';

/** inspectJson: the depth of a parsed body, walked without recursion, and the values Wharf cannot keep. */

const nested = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
const messages = (value: unknown, texts = true) =>
  inspectJson(value, { texts }).problems.map((problem) => [problem.instancePath, problem.message]);

const NUL = 'must not contain a NUL character (\\u0000)';
const SURROGATE = 'must not contain a lone surrogate (an unpaired \\uD800-\\uDFFF escape)';
const INEXACT = 'must be between -9007199254740991 and 9007199254740991 (2^53 - 1)';

describe('inspectJson: depth', () => {
  it('accepts 64 levels and refuses 65, of arrays and of objects', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(inspectJson(nested(64)).tooDeep).toBe(false);
    expect(inspectJson(nested(65)).tooDeep).toBe(true);
    const objects = (levels: number) => JSON.parse('{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1));
    expect(inspectJson(objects(64)).tooDeep).toBe(false);
    expect(inspectJson(objects(65)).tooDeep).toBe(true);
  });

  it('walks a body far deeper than the stack allows without overflowing it', () => {
    const deep = nested(100_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(inspectJson(deep)).toEqual({ tooDeep: true, problems: [] });
  });

  it('finds the one deep branch of a wide body, also below a key it cannot quote', () => {
    const body = { Items: Array.from({ length: 1000 }, () => ({ a: [1] })), x: { 'k\u0000': nested(70) } };
    expect(inspectJson(body).tooDeep).toBe(true);
  });

  it('counts a scalar body as no nesting', () => {
    expect(inspectJson('text')).toEqual({ tooDeep: false, problems: [] });
    expect(inspectJson(null)).toEqual({ tooDeep: false, problems: [] });
  });
});

describe('inspectJson: numbers', () => {
  it('refuses every integer beyond 2^53 - 1, which JSON.parse has already rounded', () => {
    const body = JSON.parse(
      '{"max":9007199254740991,"min":-9007199254740991,"a":9007199254740992,"b":9007199254740995,"c":-9007199254740993,"d":1e16,"e":1e400,"f":0.5}',
    );
    expect(body.b).toBe(9007199254740996);
    expect(messages(body)).toEqual([
      ['/a', INEXACT],
      ['/b', INEXACT],
      ['/c', INEXACT],
      ['/d', INEXACT],
      ['/e', INEXACT],
    ]);
  });

  it('checks numbers even when texts are skipped', () => {
    expect(messages({ n: [9007199254740993] }, false)).toEqual([['/n/0', INEXACT]]);
  });
});

describe('inspectJson: texts and keys', () => {
  it('refuses a NUL and a lone surrogate anywhere, naming the JSON pointer', () => {
    const body = JSON.parse('{"a":"x\\u0000","b":["ok","\\ud800"],"c":{"d/e~f":"\\udc00x"},"pair":"\\ud83d\\ude00"}');
    expect(messages(body)).toEqual([
      ['/a', NUL],
      ['/c/d~1e~0f', SURROGATE],
      ['/b/1', SURROGATE],
    ]);
  });

  it('names the object of a key it cannot quote, and nothing below that key', () => {
    const body = JSON.parse('{"o":{"k\\u0000":{"v":"\\u0000"},"fine":1}}');
    expect(messages(body)).toEqual([['/o', 'must not have a key that contains a NUL character (\\u0000)']]);
  });

  it('skips texts and keys when told that the JSON had no \\u escape', () => {
    expect(messages({ a: 'x\u0000', 'b\ud800': 1 }, false)).toEqual([]);
  });

  it('reports at most 100 problems', () => {
    const body = Array.from({ length: 500 }, () => '\u0000');
    expect(inspectJson(body).problems).toHaveLength(100);
  });

  it('isStorableText: well-formed UTF-16 without NUL', () => {
    expect(isStorableText('Ünïcødé 😀')).toBe(true);
    expect(isStorableText('a\u0000')).toBe(false);
    expect(isStorableText('a\ud83d')).toBe(false);
    expect(isStorableText('\ude00a')).toBe(false);
  });
});
