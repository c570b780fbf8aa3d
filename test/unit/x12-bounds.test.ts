import { describe, expect, it } from 'vitest';
import { interchangeDigest, measureInterchange, readInterchange, readInterchangeStart } from '../../src/modules/x12/x12-reader.js';
import { InterchangeNote } from '../../src/modules/x12/x12-syntax.js';

/**
 * What the bridge learns of an interchange before it reads a set: its ISA, how many segments and
 * sets it holds, and its digest without layout.
 */

const ISA = 'ISA*00*          *00*          *ZZ*ACMEEDI        *ZZ*WHARFDEMO      *261127*1200*U*00401*000000101*0*P*>~';
const ORDER = [
  ISA,
  'GS*OW*ACMEEDI*WHARFDEMO*20261127*1200*101*X*004010~',
  'ST*940*0001~',
  'W05*N*SO-1*PO-1~',
  'N1*ST*Jane Doe~',
  'LX*1~',
  'W01*2*EA**VN*MUG-BLUE-12~',
  'SE*6*0001~',
  'GE*1*101~',
  'IEA*1*000000101~',
];

const startOf = (text: string) => {
  const start = readInterchangeStart(text);
  if (!start.ok) throw new Error(start.problem.message);
  return start;
};
const digestOf = (text: string) => interchangeDigest(text, startOf(text));
const unlimited = { sets: Number.POSITIVE_INFINITY, segments: Number.POSITIVE_INFINITY };

describe('the ISA alone', () => {
  it('names the sender and the delimiters, whatever follows it', () => {
    const start = readInterchangeStart(`\uFEFF\n${ISA}\nnot X12 at all`);
    expect(start.ok && [start.header.senderQualifier, start.header.senderId, start.delimiters, start.problems]).toEqual([
      'ZZ',
      'ACMEEDI',
      { element: '*', component: '>', segment: '~' },
      [],
    ]);
  });

  it('says what is wrong with its values, as the whole reading does first', () => {
    const text = ORDER.join('\n').replace('*261127*', '*261327*');
    const start = readInterchangeStart(text);
    const read = readInterchange(text);
    expect(start.ok && start.problems.map((problem) => problem.code)).toEqual([InterchangeNote.invalidDate]);
    expect(!read.ok && read.problems.map((problem) => problem.code)).toEqual([InterchangeNote.invalidDate]);
    expect(readInterchangeStart('ISA*00*short~')).toEqual({
      ok: false,
      problem: { code: InterchangeNote.prematureEnd, message: 'the ISA segment is cut short: 13 characters, 106 expected' },
    });
  });
});

describe('counting an interchange before reading it', () => {
  it('counts every segment from ISA to IEA, and a set for each ST segment only', () => {
    const text = ORDER.join('\r\n').replace('N1*ST*Jane Doe~', 'N1*ST*Jane Doe~STX*1~ST~');
    expect(measureInterchange(text, startOf(text), unlimited)).toEqual({ segments: 12, sets: 2 });
    expect(measureInterchange(ORDER.join(''), startOf(ORDER.join('')), unlimited)).toEqual({ segments: 10, sets: 1 });
  });

  it('1,000,000 segments are within the limit, 1,000,001 beyond; counting stops just past a limit', () => {
    const withNotes = (notes: number) =>
      [...ORDER.slice(0, 3), ...Array.from({ length: notes }, () => 'NTE*X~'), ...ORDER.slice(3)].join('\n');
    const limits = { sets: 10_000, segments: 1_000_000 };
    const most = withNotes(1_000_000 - ORDER.length);
    expect(measureInterchange(most, startOf(most), limits)).toEqual({ segments: 1_000_000, sets: 1 });
    const over = withNotes(1_000_000 - ORDER.length + 5);
    expect(measureInterchange(over, startOf(over), limits)).toEqual({ segments: 1_000_001, sets: 1 });

    const sets = (count: number) =>
      [ORDER[0], ORDER[1], ...Array.from({ length: count }, () => 'ST*940*0001~SE*2*0001~'), 'GE*1*101~', 'IEA*1*000000101~'].join('');
    expect(measureInterchange(sets(10_000), startOf(sets(10_000)), limits)).toEqual({ segments: 20_004, sets: 10_000 });
    expect(measureInterchange(sets(10_002), startOf(sets(10_002)), limits)).toEqual({ segments: 20_003, sets: 10_001 });
  });
});

describe('the digest of an interchange, without its layout', () => {
  const digest = digestOf(ORDER.join('\n'));

  it('is the same whatever the line breaks after terminators, around the interchange, or at the end', () => {
    const layouts = [
      ORDER.join(''),
      `${ORDER.join('\n')}\n`,
      ORDER.join('\r\n'),
      `${ORDER.join('\r\n')}\r\n`,
      `\uFEFF\n\n${ORDER.join('\n\n')}\n\n\n`,
    ];
    expect(layouts.map(digestOf)).toEqual(layouts.map(() => digest));
    // With a line break as the terminator, a CR before it is layout, and the last one may be missing.
    const byLines = ORDER.map((segment) => segment.replace(/~$/, '')).join('\n');
    const withCrs = byLines.replaceAll('\n', '\r\n').replace('*>\r\n', '*>\n');
    expect([`${byLines}\n`, withCrs, `${withCrs}\r\n`].map(digestOf)).toEqual([1, 2, 3].map(() => digestOf(byLines)));
    expect(digestOf(byLines)).not.toBe(digest);
  });

  it('differs for any other difference: spaces and other characters are data', () => {
    const others = [
      ORDER.join('\n').replace('Jane Doe', 'Jane  Doe'),
      ORDER.join('\n').replace('N1*ST*Jane Doe~', 'N1*ST*Jane Doe ~'),
      ORDER.join('\n').replace('~\nLX', '~ \nLX'),
      ORDER.join('\n').replace('W01*2*', 'W01*3*'),
      ORDER.join('\n').replace('Jane Doe', 'Jane\nDoe'),
    ];
    expect(new Set([digest, ...others.map(digestOf)]).size).toBe(others.length + 1);
  });
});
