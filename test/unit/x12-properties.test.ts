import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readInterchange } from '../../src/modules/x12/x12-reader.js';
import {
  elementValue,
  GroupError,
  InterchangeNote,
  SEGMENT_ID,
  SegmentError,
  SetError,
  type X12Delimiters,
  type X12Element,
  type X12Group,
  type X12Interchange,
  type X12ReadResult,
  type X12Segment,
  type X12TransactionSet,
} from '../../src/modules/x12/x12-syntax.js';
import {
  buildInterchange,
  envelopeDateTime,
  writeSegment,
  writeSegments,
  X12WriteError,
  type GroupToWrite,
  type InterchangeToWrite,
  type SetToWrite,
} from '../../src/modules/x12/x12-writer.js';

/**
 * Properties of the X12 004010 codec (x12-reader, x12-writer) over generated interchanges and hostile
 * input: what x12-syntax.test.ts shows by example must hold for any delimiters, any shape of envelope
 * and any text a partner (or an attacker) posts.
 */

const RUNS = 200;

/** A problem's TA1 code: any of I18 but 000 (no error), should the code list name it. */
const NOTE_CODES = new Set(Object.values<string>(InterchangeNote).filter((code) => code !== '000'));
const GROUP_CODES = new Set<string>(Object.values(GroupError));
const SET_CODES = new Set<string>(Object.values(SetError));
const SEGMENT_CODES = new Set<string>(Object.values(SegmentError));
const ENVELOPE_IDS = ['ISA', 'IEA', 'GS', 'GE', 'ST', 'SE', 'TA1'];

// --- Delimiters and data ------------------------------------------------------------------------------

/** Characters that are neither letters, digits nor spaces; CR and LF only as terminators. */
const ELEMENT_SEPARATORS = ['*', '|', '^', '~', '!', '+', '`', '@', '\u001d', '\u0007'];
const COMPONENT_SEPARATORS = ['>', ':', '\\', '^', '<', '|', '}', '\u001f', '!'];
const SEGMENT_TERMINATORS = ['~', '\n', '\r', "'", '!', '|', '$', '\u001c', '\u0085'];

const delimitersArb: fc.Arbitrary<X12Delimiters> = fc
  .record({
    element: fc.constantFrom(...ELEMENT_SEPARATORS),
    component: fc.constantFrom(...COMPONENT_SEPARATORS),
    segment: fc.constantFrom(...SEGMENT_TERMINATORS),
  })
  .filter(({ element, component, segment }) => new Set([element, component, segment]).size === 3);

const afterSegmentArb = fc.constantFrom('', '\n', '\r\n');

/** Every character a value may carry under some delimiters: each delimiter above is data under the others. */
const DATA_ALPHABET = [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyz0123456789      ',
  ...'-.,/#&()_=?%"\'',
  ...new Set([...ELEMENT_SEPARATORS, ...COMPONENT_SEPARATORS, ...SEGMENT_TERMINATORS]),
  'é',
  '€',
  '日',
  '\u00a0',
  '\t',
  '\uFEFF',
  '😀',
];

const reserved = ({ element, component, segment }: X12Delimiters) => [element, component, segment, '\r', '\n'];

/** A value the writer must accept: data characters only, none of the three delimiters, no line break. */
function valueArb(delimiters: X12Delimiters, constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  const excluded = reserved(delimiters);
  const unit = fc.constantFrom(...DATA_ALPHABET.filter((char) => !excluded.includes(char)));
  return fc.string({ unit, minLength: constraints.minLength ?? 0, maxLength: constraints.maxLength ?? 8 });
}

const bodyIdArb = fc.stringMatching(/^[A-Z][A-Z0-9]{1,2}$/).filter((id) => !ENVELOPE_IDS.includes(id));

function elementArb(delimiters: X12Delimiters): fc.Arbitrary<X12Element> {
  const value = valueArb(delimiters);
  return fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: fc.array(value, { minLength: 0, maxLength: 4 }) });
}

function bodySegmentArb(delimiters: X12Delimiters): fc.Arbitrary<X12Segment> {
  return fc.record({ id: bodyIdArb, elements: fc.array(elementArb(delimiters), { maxLength: 7 }) });
}

// --- What the reader gives back for what the writer was given -----------------------------------------

function withoutTrailingEmpty<T>(values: readonly T[]): T[] {
  let length = values.length;
  while (length > 0 && values[length - 1] === '') length--;
  return values.slice(0, length);
}

/** A composite of fewer than two components after its trailing empties are left out is written, so read, as a simple element. */
function readBackElement(element: X12Element): X12Element {
  if (typeof element === 'string') return element;
  const components = withoutTrailingEmpty(element);
  return components.length >= 2 ? components : (components[0] ?? '');
}

function readBackSegment({ id, elements }: X12Segment): X12Segment {
  return { id, elements: withoutTrailingEmpty(elements.map(readBackElement)) };
}

const setNumberText = (controlNumber: number | string) =>
  typeof controlNumber === 'number' ? String(controlNumber).padStart(4, '0') : controlNumber;

/** The interchange readInterchange must return for `written`, built from the model alone. */
function expectedInterchange(written: InterchangeToWrite, delimiters: X12Delimiters): X12Interchange {
  const { isaDate, isaTime, gsDate, gsTime } = envelopeDateTime(written.at, written.timeZone);
  const interchangeNumber = String(written.controlNumber).padStart(9, '0');
  const groups: X12Group[] = written.groups.map((group) => {
    const groupNumber = String(group.controlNumber);
    const sets: X12TransactionSet[] = group.sets.map((set) => {
      const setNumber = setNumberText(set.controlNumber);
      const count = String(set.segments.length + 2);
      const segments = [
        { id: 'ST', elements: [set.id, setNumber] },
        ...set.segments.map(readBackSegment),
        { id: 'SE', elements: [count, setNumber] },
      ].map((segment, index) => ({ ...segment, position: index + 1 }));
      return { id: set.id, controlNumber: setNumber, segments, trailer: { segmentCount: count, controlNumber: setNumber }, problems: [] };
    });
    return {
      functionalId: group.functionalId,
      senderCode: group.senderCode,
      receiverCode: group.receiverCode,
      date: gsDate,
      time: gsTime,
      controlNumber: groupNumber,
      agency: 'X',
      version: group.version ?? '004010',
      sets,
      trailer: { setCount: String(group.sets.length), controlNumber: groupNumber },
      problems: [],
    };
  });
  const isaElements = [
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    written.sender.qualifier,
    written.sender.id.padEnd(15, ' '),
    written.receiver.qualifier,
    written.receiver.id.padEnd(15, ' '),
    isaDate,
    isaTime,
    'U',
    '00401',
    interchangeNumber,
    written.acknowledgmentRequested ? '1' : '0',
    written.usage ?? 'P',
    delimiters.component,
  ];
  return {
    delimiters,
    header: {
      authorizationQualifier: '00',
      authorization: ' '.repeat(10),
      securityQualifier: '00',
      security: ' '.repeat(10),
      senderQualifier: written.sender.qualifier,
      senderId: written.sender.id,
      receiverQualifier: written.receiver.qualifier,
      receiverId: written.receiver.id,
      date: isaDate,
      time: isaTime,
      standardsId: 'U',
      version: '00401',
      controlNumber: interchangeNumber,
      acknowledgmentRequested: written.acknowledgmentRequested ? '1' : '0',
      usage: written.usage ?? 'P',
      elements: isaElements,
    },
    acknowledgments: (written.acknowledgments ?? []).map(readBackSegment),
    groups,
    trailer: { groupCount: String(written.groups.length), controlNumber: interchangeNumber },
  };
}

// --- Generated interchanges -----------------------------------------------------------------------------

interface Shape {
  minGroups?: number;
  minSets?: number;
  minBody?: number;
}

// Built once: fc.stringMatching parses its pattern each time it is called, which generating inside chain() would repeat.
const setIdArb = fc.stringMatching(/^\d{3}$/);
const setNumberArb = fc.oneof(fc.integer({ min: 1, max: 999_999_999 }), fc.stringMatching(/^[A-Z0-9]{4,9}$/));
const functionalIdArb = fc.stringMatching(/^[A-Z]{2}$/);
const gsCodeArb = fc.stringMatching(/^[A-Z0-9]{2,15}$/);

/** ST02s unique within their group (a repeat is a set problem, 23): numbers and 4-9 character strings. */
const setNumbersArb = (minSets: number) => fc.uniqueArray(setNumberArb, { minLength: minSets, maxLength: 3, selector: setNumberText });

function setsArb(delimiters: X12Delimiters, shape: Shape): fc.Arbitrary<SetToWrite[]> {
  return setNumbersArb(shape.minSets ?? 0).chain((numbers) =>
    fc.tuple(
      ...numbers.map((controlNumber) =>
        fc.record({
          id: setIdArb,
          controlNumber: fc.constant(controlNumber),
          segments: fc.array(bodySegmentArb(delimiters), { minLength: shape.minBody ?? 0, maxLength: 5 }),
        }),
      ),
    ),
  );
}

function groupArb(delimiters: X12Delimiters, shape: Shape): fc.Arbitrary<GroupToWrite> {
  return fc.record(
    {
      functionalId: functionalIdArb,
      senderCode: gsCodeArb,
      receiverCode: gsCodeArb,
      controlNumber: fc.integer({ min: 1, max: 999_999_999 }),
      version: fc.constantFrom('004010', '004010VICS', '004010UCS'),
      sets: setsArb(delimiters, shape),
    },
    { requiredKeys: ['functionalId', 'senderCode', 'receiverCode', 'controlNumber', 'sets'] },
  );
}

const partyArb = fc.record({
  qualifier: fc.stringMatching(/^[A-Z0-9]{2}$/),
  id: fc.stringMatching(/^[A-Z0-9]([A-Z0-9 ]{0,13}[A-Z0-9])?$/),
});

const ta1Arb = fc
  .tuple(
    fc.stringMatching(/^\d{9}$/),
    fc.constantFrom('240305', '991231'),
    fc.constantFrom('1407', '0000'),
    fc.constantFrom('A', 'E', 'R'),
    fc.constantFrom(...Object.values(InterchangeNote)),
  )
  .map((elements): X12Segment => ({ id: 'TA1', elements }));

function interchangeArb(delimiters: X12Delimiters, shape: Shape = {}): fc.Arbitrary<InterchangeToWrite> {
  return fc.record(
    {
      sender: partyArb,
      receiver: partyArb,
      controlNumber: fc.integer({ min: 1, max: 999_999_999 }),
      at: fc.integer({ min: Date.UTC(2000, 0, 2), max: Date.UTC(2099, 11, 30) }),
      timeZone: fc.constantFrom('UTC', 'America/Los_Angeles', 'Asia/Tokyo', 'Pacific/Kiritimati', 'America/St_Johns'),
      usage: fc.constantFrom('P' as const, 'T' as const, 'I' as const),
      acknowledgmentRequested: fc.boolean(),
      acknowledgments: fc.array(ta1Arb, { maxLength: 1 }),
      groups: fc.array(groupArb(delimiters, shape), { minLength: shape.minGroups ?? 0, maxLength: 3 }),
    },
    { requiredKeys: ['sender', 'receiver', 'controlNumber', 'at', 'timeZone', 'groups'] },
  );
}

interface Written {
  model: InterchangeToWrite;
  delimiters: X12Delimiters;
  afterSegment: string;
  text: string;
}

function writtenArb(shape: Shape = {}): fc.Arbitrary<Written> {
  return fc.tuple(delimitersArb, afterSegmentArb).chain(([delimiters, afterSegment]) =>
    interchangeArb(delimiters, shape).map((model) => ({
      model,
      delimiters,
      afterSegment,
      text: buildInterchange(model, { delimiters, afterSegment }),
    })),
  );
}

/** The segments of a written interchange, ISA first, each without its terminator: no value holds a delimiter. */
function piecesOf({ text, delimiters, afterSegment }: Written): string[] {
  const pieces = text.split(delimiters.segment + afterSegment);
  expect(pieces.pop()).toBe('');
  return pieces;
}

const joinPieces = (pieces: readonly string[], { delimiters, afterSegment }: Written) =>
  pieces.map((piece) => piece + delimiters.segment + afterSegment).join('');

// --- What any answer must look like ----------------------------------------------------------------------

/** Problems quote at most 20 characters of a value; anything longer means hostile text reached a log line. */
const MESSAGE_LIMIT = 300;

/** The answer to any text: a result, never a throw, with only the codes of the code lists. */
function expectWellFormed(result: X12ReadResult): void {
  expect(typeof result.ok).toBe('boolean');
  if (!result.ok) {
    expect(result.problems.length).toBeGreaterThan(0);
    for (const problem of result.problems) {
      expect(NOTE_CODES.has(problem.code), `TA1 code ${problem.code}`).toBe(true);
      expect(typeof problem.message).toBe('string');
    }
    if (result.header) expect(result.header.elements).toHaveLength(16);
    if (result.delimiters) for (const delimiter of Object.values(result.delimiters)) expect(delimiter).toHaveLength(1);
    return;
  }
  const { interchange } = result;
  expect(interchange.header.elements).toHaveLength(16);
  for (const group of interchange.groups) {
    for (const problem of group.problems) expect(GROUP_CODES.has(problem.code), `AK9 code ${problem.code}`).toBe(true);
    for (const set of group.sets) {
      expect(set.segments[0]?.id).toBe('ST');
      expect(set.segments.map((segment) => segment.position)).toEqual(set.segments.map((_, index) => index + 1));
      for (const problem of set.problems) {
        expect(SET_CODES.has(problem.code), `AK5 code ${problem.code}`).toBe(true);
        if (problem.segment) {
          expect(SEGMENT_CODES.has(problem.segment.code), `AK3 code ${problem.segment.code}`).toBe(true);
          expect(set.segments[problem.segment.position - 1]?.id).toBe(problem.segment.id);
        }
      }
    }
  }
}

function problemMessages(result: X12ReadResult): string[] {
  if (!result.ok) return result.problems.map((problem) => problem.message);
  return result.interchange.groups.flatMap((group) => [
    ...group.problems.map((problem) => problem.message),
    ...group.sets.flatMap((set) => set.problems.map((problem) => problem.message)),
  ]);
}

const setCodes = (result: X12ReadResult) =>
  result.ok ? result.interchange.groups.map((group) => group.sets.map((set) => set.problems.map((problem) => problem.code))) : undefined;
const groupCodes = (result: X12ReadResult) =>
  result.ok ? result.interchange.groups.map((group) => group.problems.map((problem) => problem.code)) : undefined;
const interchangeCodes = (result: X12ReadResult) => (result.ok ? [] : result.problems.map((problem) => problem.code));

// --- 1. Round trip ---------------------------------------------------------------------------------------

describe('round trip: readInterchange(buildInterchange(x)) is x, for any legal delimiters', () => {
  it('gives back the header, every group, set and segment, positions, counts and control numbers', () => {
    fc.assert(
      fc.property(writtenArb(), ({ model, delimiters, text }) => {
        const result = readInterchange(text);
        expect(result).toEqual({ ok: true, interchange: expectedInterchange(model, delimiters) });
      }),
      { numRuns: RUNS },
    );
  });

  it('elementValue finds each written component, and "" past the end of a segment or a composite', () => {
    fc.assert(
      fc.property(writtenArb({ minGroups: 1, minSets: 1, minBody: 1 }), ({ model, text }) => {
        const result = readInterchange(text);
        if (!result.ok) throw new Error(JSON.stringify(result.problems));
        result.interchange.groups.forEach((group, groupIndex) =>
          group.sets.forEach((set, setIndex) => {
            const written = model.groups[groupIndex]?.sets[setIndex]?.segments ?? [];
            expect(set.segments).toHaveLength(written.length + 2);
            written.forEach((segment, index) => {
              const read = set.segments[index + 1]!;
              segment.elements.forEach((element, at) => {
                const components = typeof element === 'string' ? [element] : element;
                components.forEach((component, k) => expect(elementValue(read, at + 1, k + 1)).toBe(component));
                expect(elementValue(read, at + 1, components.length + 1)).toBe('');
              });
              expect(elementValue(read, segment.elements.length + 1)).toBe('');
            });
          }),
        );
      }),
      { numRuns: RUNS },
    );
  });
});

// --- 2. The reader never throws ----------------------------------------------------------------------------

/** Text with the characters and segment ids of X12, so that random input gets past the first check. */
const x12ishArb = fc.string({
  unit: fc.oneof(
    fc.constantFrom('ISA', 'IEA', 'GS', 'GE', 'ST', 'SE', 'TA1', 'N1', '*', '~', '>', '|', '^', '\n', '\r', ' ', '0', '1', '9', '\uFEFF'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 200,
});

/** A valid ISA (with random delimiters) in front of random X12-ish text. */
const isaThenNoiseArb = fc
  .tuple(writtenArb(), x12ishArb)
  .map(([written, noise]) => written.text.slice(0, 106 + written.afterSegment.length) + noise);

/** Any UTF-16 text, lone surrogates included. */
const utf16Arb = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 300 });

type Mutation =
  | { kind: 'delete'; at: number }
  | { kind: 'insert'; at: number; char: string }
  | { kind: 'replace'; at: number; char: string }
  | { kind: 'truncate'; at: number }
  | { kind: 'duplicate'; segment: number }
  | { kind: 'swap'; first: number; second: number }
  | { kind: 'drop'; segment: number };

const HOSTILE_CHARS = ['*', '~', '>', '|', '^', ':', "'", '\n', '\r', '\uFEFF', ' ', 'A', '0', '\u0000', '\uD800', 'é'];

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), char: fc.constantFrom(...HOSTILE_CHARS) }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), char: fc.constantFrom(...HOSTILE_CHARS) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), segment: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), first: fc.nat(), second: fc.nat() }),
  fc.record({ kind: fc.constant('drop' as const), segment: fc.nat() }),
);

/** One mutation of `text`; segment-wise ones split it at the terminator it was written with. */
function mutate(text: string, { delimiters, afterSegment }: Written, mutation: Mutation): string {
  const terminator = delimiters.segment + afterSegment;
  const pieces = text.split(terminator);
  const join = (changed: readonly string[]) => changed.join(terminator);
  switch (mutation.kind) {
    case 'delete': {
      if (text === '') return text;
      const at = mutation.at % text.length;
      return text.slice(0, at) + text.slice(at + 1);
    }
    case 'insert': {
      const at = mutation.at % (text.length + 1);
      return text.slice(0, at) + mutation.char + text.slice(at);
    }
    case 'replace': {
      if (text === '') return text;
      const at = mutation.at % text.length;
      return text.slice(0, at) + mutation.char + text.slice(at + 1);
    }
    case 'truncate':
      return text.slice(0, mutation.at % (text.length + 1));
    case 'duplicate': {
      const at = mutation.segment % pieces.length;
      return join([...pieces.slice(0, at + 1), ...pieces.slice(at)]);
    }
    case 'swap': {
      const first = mutation.first % pieces.length;
      const second = mutation.second % pieces.length;
      const swapped = [...pieces];
      [swapped[first], swapped[second]] = [pieces[second]!, pieces[first]!];
      return join(swapped);
    }
    case 'drop': {
      const at = mutation.segment % pieces.length;
      return join([...pieces.slice(0, at), ...pieces.slice(at + 1)]);
    }
  }
}

describe('the reader answers any text with a result, never a throw', () => {
  it('arbitrary UTF-16 strings, lone surrogates included', () => {
    fc.assert(
      fc.property(utf16Arb, (text) => expectWellFormed(readInterchange(text))),
      { numRuns: RUNS },
    );
  });

  it('random X12-ish text, alone and behind a valid ISA', () => {
    fc.assert(
      fc.property(fc.oneof(x12ishArb, isaThenNoiseArb), (text) => expectWellFormed(readInterchange(text))),
      { numRuns: RUNS },
    );
  });

  it('a valid interchange with a character deleted, inserted or replaced, cut short, or a segment duplicated, swapped or dropped', () => {
    fc.assert(
      fc.property(writtenArb({ minGroups: 1 }), fc.array(mutationArb, { minLength: 1, maxLength: 3 }), (written, mutations) => {
        const text = mutations.reduce((mutated, mutation) => mutate(mutated, written, mutation), written.text);
        expectWellFormed(readInterchange(text));
      }),
      { numRuns: RUNS },
    );
  });

  it('a duplicated or dropped body segment is read, and counted wrong in its set (AK5 4)', () => {
    fc.assert(
      fc.property(writtenArb({ minGroups: 1, minSets: 1, minBody: 1 }), fc.nat(), fc.boolean(), (written, pick, duplicate) => {
        const pieces = piecesOf(written);
        const bodyAt = pieces.flatMap((piece, index) => {
          const id = piece.split(written.delimiters.element)[0]!;
          return index > 0 && !ENVELOPE_IDS.includes(id) ? [index] : [];
        });
        const at = bodyAt[pick % bodyAt.length]!;
        const changed = duplicate ? [...pieces.slice(0, at + 1), ...pieces.slice(at)] : [...pieces.slice(0, at), ...pieces.slice(at + 1)];
        const result = readInterchange(joinPieces(changed, written));
        expectWellFormed(result);
        expect(result.ok).toBe(true);
        const codes = setCodes(result)!.flat(2);
        expect(codes).toEqual([SetError.segmentCountMismatch]);
      }),
      { numRuns: RUNS },
    );
  });
});

// --- 3. Truncation -----------------------------------------------------------------------------------------

describe('an interchange cut short is not read', () => {
  it('every cut before the end is refused, except one that removes only trailing line breaks', () => {
    fc.assert(
      fc.property(writtenArb(), fc.nat(), fc.boolean(), (written, cutAt, nearEnd) => {
        const { text } = written;
        // Half the cuts remove one to four characters: line breaks, the IEA's terminator, the end of IEA02.
        const at = nearEnd ? text.length - 1 - (cutAt % 4) : cutAt % text.length;
        const removed = text.slice(at);
        const result = readInterchange(text.slice(0, at));
        expectWellFormed(result);
        if (removed.trim() === '') {
          expect(result.ok, 'only trailing line breaks removed').toBe(true);
        } else {
          expect(result.ok, `cut at ${at} of ${text.length}, removing ${JSON.stringify(removed.slice(0, 40))}`).toBe(false);
          expect(interchangeCodes(result).length).toBeGreaterThan(0);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('every cut after the ISA and before IEA is a premature end (TA1 023) or content out of place (024), alone', () => {
    fc.assert(
      fc.property(writtenArb(), fc.nat(), (written, cutAt) => {
        const ieaAt = written.text.lastIndexOf(`IEA${written.delimiters.element}`);
        const at = 106 + (cutAt % (ieaAt - 106));
        const result = readInterchange(written.text.slice(0, at));
        expectWellFormed(result);
        expect(result.ok).toBe(false);
        // Cut inside a segment after GE (or inside a GS), its remains are read as content out of place (024);
        // else nothing closes the interchange (023). The ISA is whole, so nothing else is wrong with it.
        const codes = interchangeCodes(result);
        expect(codes).toHaveLength(1);
        expect([InterchangeNote.prematureEnd, InterchangeNote.invalidContent]).toContain(codes[0]);
      }),
      { numRuns: RUNS },
    );
  });

  // X12 ends every segment, IEA included, with the terminator; an interchange that stops right after
  // IEA02 may have lost anything after it.
  it('an IEA without its segment terminator is refused', () => {
    const text =
      'ISA*00*          *00*          *ZZ*WHARF3PL       *ZZ*ACMEBRANDS     *240705*2207*U*00401*000000042*0*P*>~IEA*0*000000042';
    expect(readInterchange(text).ok).toBe(false);
  });
});

// --- 4. Wrong counts -----------------------------------------------------------------------------------------

/** Another count than `actual`, written with up to `zeros` leading zeros (at most 9 digits). */
function otherCount(actual: number, other: number, zeros: number): string {
  const count = other === actual ? actual + 1 : other;
  return String(count).padStart(Math.min(9, String(count).length + zeros), '0');
}

/** The written interchange with element 01 of the n-th segment of id `id` set to a new value. */
function withCount(written: Written, id: string, nth: number, count: (actual: number) => string) {
  const pieces = piecesOf(written);
  const at = pieces.flatMap((piece, index) => (piece.startsWith(id + written.delimiters.element) ? [index] : []));
  const index = at[nth % at.length]!;
  const elements = pieces[index]!.split(written.delimiters.element);
  const actual = Number(elements[1]);
  elements[1] = count(actual);
  const changed = [...pieces];
  changed[index] = elements.join(written.delimiters.element);
  return { text: joinPieces(changed, written), which: nth % at.length };
}

/** The empty problem lists of a sound interchange's sets, with `codes` in the which-th set (counted across groups). */
function setCodesWith(model: InterchangeToWrite, which: number, codes: string[]) {
  let n = 0;
  return model.groups.map((group) => group.sets.map(() => (n++ === which ? codes : [])));
}

describe('a wrong count in a trailer is always found', () => {
  it('SE01 of any set changed to another number: AK5 4 on that set only', () => {
    fc.assert(
      fc.property(
        writtenArb({ minGroups: 1, minSets: 1 }),
        fc.nat(),
        fc.oneof(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 999_999_999 })),
        fc.nat(8),
        (written, nth, other, zeros) => {
          const { text, which } = withCount(written, 'SE', nth, (actual) => otherCount(actual, other, zeros));
          const result = readInterchange(text);
          expectWellFormed(result);
          expect(setCodes(result)).toEqual(setCodesWith(written.model, which, [SetError.segmentCountMismatch]));
          expect(groupCodes(result)?.flat()).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('GE01 of any group changed to another number: AK9 5 on that group only', () => {
    fc.assert(
      fc.property(
        writtenArb({ minGroups: 1 }),
        fc.nat(),
        fc.oneof(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 999_999_999 })),
        fc.nat(8),
        (written, nth, other, zeros) => {
          const { text, which } = withCount(written, 'GE', nth, (actual) => otherCount(actual, other, zeros));
          const result = readInterchange(text);
          expectWellFormed(result);
          expect(groupCodes(result)).toEqual(
            written.model.groups.map((_, index) => (index === which ? [GroupError.setCountMismatch] : [])),
          );
          expect(setCodes(result)?.flat(2)).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('IEA01 changed to another number: the interchange is refused with TA1 021 alone', () => {
    fc.assert(
      fc.property(
        writtenArb(),
        fc.oneof(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 999_999_999 })),
        fc.nat(8),
        (written, other, zeros) => {
          const { text } = withCount(written, 'IEA', 0, (actual) => otherCount(actual, other, zeros));
          const result = readInterchange(text);
          expectWellFormed(result);
          expect(interchangeCodes(result)).toEqual([InterchangeNote.invalidGroupCount]);
          expect(!result.ok && result.header?.controlNumber).toBe(String(written.model.controlNumber).padStart(9, '0'));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the right counts with leading zeros (a number, N0) are no problem', () => {
    fc.assert(
      fc.property(
        writtenArb({ minGroups: 1, minSets: 1 }),
        fc.constantFrom('SE', 'GE', 'IEA'),
        fc.nat(),
        fc.nat(8),
        (written, id, nth, zeros) => {
          const { text } = withCount(written, id, nth, (actual) =>
            String(actual).padStart(Math.min(9, String(actual).length + zeros), '0'),
          );
          const result = readInterchange(text);
          expectWellFormed(result);
          expect(interchangeCodes(result)).toEqual([]);
          expect(groupCodes(result)?.flat()).toEqual([]);
          expect(setCodes(result)?.flat(2)).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

// --- 5. A segment terminator inside an element ------------------------------------------------------------

const MARK = '\uE000';

describe('a segment terminator inside an element value is never read as the original segments', () => {
  it('gives AK5 5 or 4 on a set, or refuses the interchange; never a throw', () => {
    const victimArb = (delimiters: X12Delimiters) =>
      fc
        .tuple(
          bodyIdArb,
          fc.array(elementArb(delimiters), { maxLength: 3 }),
          valueArb(delimiters),
          fc
            .oneof(
              valueArb(delimiters, { minLength: 1 }),
              fc
                .tuple(fc.constantFrom(...ENVELOPE_IDS, 'CORP', 'INC', 'N1', 'x', ' '), fc.oneof(fc.constant(''), valueArb(delimiters)))
                .map(([start, rest]) => start + rest),
            )
            // Not blank: a blank "segment" between two terminators is skipped (the KNOWN GAP below).
            .filter((tail) => tail.trim() !== ''),
          fc.array(elementArb(delimiters), { maxLength: 3 }),
        )
        .map(([id, before, head, tail, after]): X12Segment => ({ id, elements: [...before, head + MARK + tail, ...after] }));
    const arb = fc.tuple(delimitersArb, afterSegmentArb).chain(([delimiters, afterSegment]) =>
      fc.record({
        delimiters: fc.constant(delimiters),
        afterSegment: fc.constant(afterSegment),
        model: interchangeArb(delimiters, { minGroups: 1, minSets: 1 }),
        victim: victimArb(delimiters),
        where: fc.nat(),
      }),
    );
    fc.assert(
      fc.property(arb, ({ delimiters, afterSegment, model, victim, where }) => {
        const setCount = model.groups.reduce((sum, group) => sum + group.sets.length, 0);
        const target = where % setCount;
        let n = 0;
        const groups = model.groups.map((group) => ({
          ...group,
          sets: group.sets.map((set) => {
            if (n++ !== target) return set;
            const segments = [...set.segments];
            segments.splice(where % (segments.length + 1), 0, victim);
            return { ...set, segments };
          }),
        }));
        const marked = buildInterchange({ ...model, groups }, { delimiters, afterSegment });
        expect(marked.split(MARK)).toHaveLength(2);
        const result = readInterchange(marked.replace(MARK, delimiters.segment));
        expectWellFormed(result);
        if (result.ok) {
          const codes = result.interchange.groups.flatMap((group) => group.sets.flatMap((set) => set.problems.map((p) => p.code)));
          expect(
            codes.some((code) => code === SetError.segmentsInError || code === SetError.segmentCountMismatch),
            codes.join(),
          ).toBe(true);
          const original = readInterchange(marked);
          expect(original.ok).toBe(true);
          expect(result.interchange.groups).not.toEqual(original.ok && original.interchange.groups);
        }
      }),
      { numRuns: RUNS },
    );
  });

  // A segment of blanks between two terminators is a segment (with no id): a terminator inside the
  // last element, followed by blanks only, is a set problem, not a value silently cut.
  it('a terminator inside the last element followed by blanks only is found', () => {
    const text =
      'ISA*00*          *00*          *ZZ*ACMEBRANDS     *ZZ*WHARF3PL       *240305*1407*U*00401*000000101*0*P*>~' +
      'GS*OW*ACMEBRANDS*WHARF3PL*20240305*1407*7*X*004010~ST*940*0001~N1*ST*ACME~ ~SE*3*0001~GE*1*7~IEA*1*000000101~';
    const codes = setCodes(readInterchange(text))?.flat(2) ?? [];
    expect(
      codes.some((code) => code === SetError.segmentsInError || code === SetError.segmentCountMismatch),
      codes.join(),
    ).toBe(true);
  });
});

// --- 6. Ten megabytes ------------------------------------------------------------------------------------------

const TEN_MB = 10 * 1024 * 1024;

/** A valid ISA/GS/ST with `*` ~ >, for the large bodies below. */
const HEAD = buildInterchange({
  sender: { qualifier: 'ZZ', id: 'ACMEBRANDS' },
  receiver: { qualifier: 'ZZ', id: 'WHARF3PL' },
  controlNumber: 101,
  at: Date.UTC(2024, 2, 5, 14, 7),
  timeZone: 'UTC',
  groups: [
    {
      functionalId: 'OW',
      senderCode: 'ACME',
      receiverCode: 'WHARF',
      controlNumber: 7,
      sets: [{ id: '940', controlNumber: 1, segments: [] }],
    },
  ],
}).split('SE*')[0]!;

/** At least `size` characters of segments of valid ids and random values, from one random buffer (fast, unlike fast-check here). */
function randomSegments(size: number): string {
  const random = randomBytes(size);
  const next = (() => {
    let i = 0;
    return () => random[i++ % size]!;
  })();
  const ids = ['N1', 'W05', 'LX', 'W01', 'G62', 'N9', 'W20', 'ZZ9'];
  const letters = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -.', 'latin1');
  // The longest segment: a 3-character id, 6 elements of 11 characters and their separators, the terminator.
  const out = Buffer.alloc(size + 3 + 6 * 12 + 1);
  let at = 0;
  while (at < size) {
    at += out.write(ids[next() % ids.length]!, at, 'latin1');
    const elements = 1 + (next() % 6);
    for (let e = 0; e < elements; e++) {
      out[at++] = 0x2a; // *
      const length = next() % 12;
      for (let c = 0; c < length; c++) out[at++] = letters[next() % letters.length]!;
    }
    out[at++] = 0x7e; // ~
  }
  return out.toString('latin1', 0, at);
}

// No wall-clock bound here: the suite must pass on a busy machine. The reader scans each body once,
// a few seconds at most for these on a quiet machine; a reader that went super-linear on 10 MB
// would run for many minutes, and the suite's test timeout (30 s) fails it.
describe('ten megabytes of garbage is refused without a throw', () => {
  it('random bytes as latin1, and a string of "*"', () => {
    const bytes = randomBytes(TEN_MB).toString('latin1');
    const random = readInterchange(bytes);
    const stars = readInterchange('*'.repeat(TEN_MB));
    const isaStars = readInterchange(`ISA${'*'.repeat(TEN_MB)}`);
    for (const result of [random, stars, isaStars]) {
      expectWellFormed(result);
      expect(result.ok).toBe(false);
    }
    expect(interchangeCodes(stars)).toEqual([InterchangeNote.invalidControlStructure]);
    expect(interchangeCodes(isaStars)).toEqual([InterchangeNote.invalidAuthorizationQualifier]);
  });

  it('a valid ISA, GS and ST, then ten megabytes of random segments and no IEA: a premature end (023)', () => {
    const body = randomSegments(TEN_MB);
    expect(body.length).toBeGreaterThanOrEqual(TEN_MB);
    const result = readInterchange(HEAD + body);
    expectWellFormed(result);
    expect(interchangeCodes(result)).toEqual([InterchangeNote.prematureEnd]);
    expect(!result.ok && result.header?.senderId).toBe('ACMEBRANDS');
  });

  it('a problem quotes a bounded part of a hostile value, whatever its length', () => {
    // Ten megabytes in each trailer field: shown() cuts each to 20 characters.
    const long = '9'.repeat(TEN_MB);
    const trailers = readInterchange(`${HEAD}SE*${long}*${long}~GE*${long}*${long}~IEA*1*000000101~`);
    expectWellFormed(trailers);
    expect(setCodes(trailers)).toEqual([[[SetError.segmentCountMismatch, SetError.controlNumberMismatch]]]);
    expect(groupCodes(trailers)).toEqual([[GroupError.setCountMismatch, GroupError.controlNumberMismatch]]);
    const interchange = readInterchange(`${HEAD}SE*2*0001~GE*1*7~IEA*${long}*${long}~`);
    expect(interchangeCodes(interchange)).toEqual([InterchangeNote.invalidGroupCount, InterchangeNote.controlNumberMismatch]);
    const messages = [...problemMessages(trailers), ...problemMessages(interchange)];
    expect(messages).toHaveLength(6);
    for (const message of messages) expect(message.length).toBeLessThan(MESSAGE_LIMIT);
  });

  // A structure problem quotes at most 20 characters of the segment's id: a body of one 10 MB
  // "segment" must not become a 10 MB TA1 message and log line.
  it('a 10 MB segment id outside a group or set is quoted in a short message', () => {
    const result = readInterchange(HEAD.split('GS*')[0] + 'X'.repeat(TEN_MB));
    // Ten megabytes without a terminator: a segment cut short.
    expect(interchangeCodes(result)).toEqual([InterchangeNote.prematureEnd]);
    for (const message of problemMessages(result)) expect(message.length).toBeLessThan(MESSAGE_LIMIT);
  });
});

// --- 7. The writer never writes a delimiter inside a value ------------------------------------------------------

/** Arbitrary text; one character in `odds` (about) is one X12 reserves somewhere. */
const hostileStringArb = (odds: number) =>
  fc.string({
    unit: fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(...ELEMENT_SEPARATORS, ...COMPONENT_SEPARATORS, ...SEGMENT_TERMINATORS, '\r', '\n') },
      { weight: odds - 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    ),
    maxLength: 10,
  });

/** Segments of arbitrary values, and of ids now and then not segment ids. */
const hostileSegmentArb = (odds: number): fc.Arbitrary<X12Segment> =>
  fc.record({
    id: fc.oneof(
      { weight: odds, arbitrary: bodyIdArb },
      { weight: 1, arbitrary: fc.stringMatching(/^[A-Z0-9]{2,3}$/) },
      { weight: 1, arbitrary: hostileStringArb(odds) },
    ),
    elements: fc.array(
      fc.oneof(
        { weight: 3, arbitrary: hostileStringArb(odds) },
        { weight: 1, arbitrary: fc.array(hostileStringArb(odds), { maxLength: 4 }) },
      ),
      { maxLength: 6 },
    ),
  });

const holdsAny = (value: string, chars: readonly string[]) => chars.some((char) => value.includes(char));

describe('the writer writes a value whole or refuses it', () => {
  it('writeSegment: X12WriteError exactly when a value holds a delimiter or line break, else text that splits back', () => {
    fc.assert(
      fc.property(hostileSegmentArb(4), delimitersArb, (segment, delimiters) => {
        const forbidden = reserved(delimiters);
        const refusable =
          !SEGMENT_ID.test(segment.id) ||
          segment.elements.some((element) =>
            (typeof element === 'string' ? [element] : element).some((value) => holdsAny(value, forbidden)),
          );
        let written: string;
        try {
          written = writeSegment(segment, delimiters);
        } catch (error) {
          expect(error).toBeInstanceOf(X12WriteError);
          expect(refusable, `refused ${JSON.stringify(segment)}`).toBe(true);
          return;
        }
        expect(refusable, `wrote ${JSON.stringify(written)}`).toBe(false);
        expect(holdsAny(written, [delimiters.segment, '\r', '\n'])).toBe(false);
        const [id, ...elements] = written.split(delimiters.element);
        expect(id).toBe(segment.id);
        const expected = readBackSegment(segment).elements.map((element) =>
          typeof element === 'string' ? element : element.join(delimiters.component),
        );
        expect(elements).toEqual(expected);
        expect(elements.map((element) => (element.includes(delimiters.component) ? element.split(delimiters.component) : element))).toEqual(
          readBackSegment(segment).elements,
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('writeSegments: X12WriteError exactly for delimiters a reader could not tell apart, else one terminator a segment', () => {
    // A small pool, so that two delimiters are often the same; data characters; other lengths than one.
    const oneChar = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('*', '~', '>', '\r') },
      { weight: 1, arbitrary: fc.constantFrom('A', '0', ' ', '\t', '\u00a0', '\n') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 0, maxLength: 2 }) },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          { weight: 1, arbitrary: delimitersArb },
          { weight: 1, arbitrary: fc.record({ element: oneChar, component: oneChar, segment: oneChar }) },
        ),
        fc.constantFrom('', '\n', '\r\n', '\r', '\n\n', ' ', '\t', 'x'),
        fc.array(
          hostileSegmentArb(60).map((segment) => ({ ...segment, id: 'N1' })),
          { maxLength: 3 },
        ),
        (delimiters, afterSegment, segments) => {
          const data = /[A-Za-z0-9\s]/;
          const legal =
            Object.values(delimiters).every((value) => value.length === 1) &&
            !data.test(delimiters.element) &&
            !data.test(delimiters.component) &&
            !data.test(delimiters.segment.replace(/[\r\n]/, '')) &&
            new Set(Object.values(delimiters)).size === 3 &&
            /^[\r\n]*$/.test(afterSegment);
          let written: string;
          try {
            written = writeSegments(segments, { delimiters, afterSegment });
          } catch (error) {
            expect(error).toBeInstanceOf(X12WriteError);
            // A legal format may still be refused for a value that holds one of its delimiters.
            if (legal) expect(segments.some((s) => s.elements.flat().some((value) => holdsAny(value, reserved(delimiters))))).toBe(true);
            return;
          }
          expect(legal, `wrote with ${JSON.stringify({ delimiters, afterSegment })}`).toBe(true);
          expect(written.split(delimiters.segment + afterSegment)).toHaveLength(segments.length + 1);
        },
      ),
      // Cheap, and the illegal formats that pass one check but not the next are a small part of the space.
      { numRuns: RUNS * 5 },
    );
  });

  it('buildInterchange with arbitrary body values: X12WriteError, or an interchange that reads back to the same bodies', () => {
    fc.assert(
      fc.property(
        delimitersArb,
        afterSegmentArb,
        fc.array(fc.array(hostileSegmentArb(100), { maxLength: 4 }), { minLength: 1, maxLength: 3 }),
        (delimiters, afterSegment, bodies) => {
          const model: InterchangeToWrite = {
            sender: { qualifier: 'ZZ', id: 'WHARF3PL' },
            receiver: { qualifier: 'ZZ', id: 'ACMEBRANDS' },
            controlNumber: 42,
            at: Date.UTC(2024, 6, 5),
            timeZone: 'UTC',
            groups: [
              {
                functionalId: 'RE',
                senderCode: 'WHARF3PL',
                receiverCode: 'ACMEBRANDS',
                controlNumber: 17,
                sets: bodies.map((segments, index) => ({ id: '944', controlNumber: index + 1, segments })),
              },
            ],
          };
          let text: string;
          try {
            text = buildInterchange(model, { delimiters, afterSegment });
          } catch (error) {
            expect(error).toBeInstanceOf(X12WriteError);
            return;
          }
          expect(readInterchange(text)).toEqual({ ok: true, interchange: expectedInterchange(model, delimiters) });
        },
      ),
      { numRuns: RUNS },
    );
  });
});
