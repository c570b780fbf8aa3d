import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readInterchange } from '../../src/modules/x12/x12-reader.js';
import {
  defaultDelimiters,
  elementValue,
  GroupError,
  InterchangeNote,
  SegmentError,
  SetError,
  type X12Delimiters,
  type X12Interchange,
  type X12ReadResult,
  type X12Segment,
} from '../../src/modules/x12/x12-syntax.js';
import {
  buildInterchange,
  envelopeDateTime,
  writeSegment,
  writeSegments,
  X12WriteError,
  type InterchangeToWrite,
} from '../../src/modules/x12/x12-writer.js';

/** An ISA as a partner would send it, each field overridable to break one thing at a time. */
function isa(overrides: Partial<Record<number, string>> = {}, { element, component, segment }: X12Delimiters = defaultDelimiters) {
  const fields: Record<number, string> = {
    1: '00',
    2: '          ',
    3: '00',
    4: '          ',
    5: 'ZZ',
    6: 'ACMEBRANDS     ',
    7: 'ZZ',
    8: 'WHARF3PL       ',
    9: '240305',
    10: '1407',
    11: 'U',
    12: '00401',
    13: '000000101',
    14: '0',
    15: 'P',
    16: component,
    ...overrides,
  };
  return `ISA${element}${Array.from({ length: 16 }, (_, index) => fields[index + 1]).join(element)}${segment}`;
}

/** Segments written as plain lines ("W05*N*ORD-1") joined by a terminator: the body after an ISA. */
const body = (lines: string[], terminator = '~') => lines.map((line) => line + terminator).join('');

// Modelled on the shape of public 943 samples (W06 header, N1 WH/SF, W27 carrier, W04/W20 detail, W03 totals).
const SAMPLE_943 =
  isa() +
  '\r\n' +
  body(
    [
      'GS*AR*ACMEBRANDS*WHARF3PL*20240305*1407*101*X*004010VICS',
      'ST*943*0001',
      'W06*N*RCV-20240305-01*20240305*SHP7781**PO-55012',
      'N1*SF*ACME BRANDS DC*92*ACME01',
      'N1*WH*WHARF LAX1*9*LAX1',
      'N9*BM*BOL889120',
      'G62*17*20240308',
      'W27*M*ODFL*OLD DOMINION',
      'W04*120*CA**VN*SKU-RED-01*UP*012345678905',
      'N9*LT*LOT2403A',
      'W20*12***30*G*L',
      'W04*48*EA**VN*SKU-BLU-02',
      'W03*168*1850.5*LB',
      'SE*13*0001',
      'GE*1*101',
      'IEA*1*000000101',
    ],
    '~\r\n',
  );

// Modelled on public 940 samples: W05 purpose and order numbers, N1 ST/WH with N3/N4, G62, W66 carrier,
// LX loops of W01/G69/W20, W76 totals. Written with | ^ and one segment a line, as some partners send.
const PIPES: X12Delimiters = { element: '|', component: '^', segment: '\n' };
const SAMPLE_940 =
  isa({ 13: '000000102', 15: 'T' }, PIPES) +
  body(
    [
      'GS|OW|ACMEBRANDS|WHARF3PL|20240305|1407|102|X|004010',
      'ST|940|0001',
      'W05|N|ORD-88120|PO-77001',
      'N1|ST|JANE SMITH|92|CUST0042',
      'N3|100 MAIN ST|APT 4',
      'N4|SPRINGFIELD|IL|62701|US',
      'N1|WH|WHARF LAX1|9|LAX1',
      'G62|10|20240307',
      'W66|PP|M|||||||UPSN',
      'LX|1',
      'W01|2|EA||VN|SKU-RED-01|UP|012345678905',
      'G69|RED WIDGET',
      'W20|1|1||2.5|G|L',
      'LX|2',
      'W01|1|EA||VN|SKU-BLU-02',
      'W76|3|4.1|LB',
      'SE|16|0001',
      'ST|940|0002',
      'W05|R|ORD-88121|PO-77002',
      'N1|WH|WHARF LAX1|9|LAX1',
      'LX|1',
      'W01|5|EA||VN|SKU-RED-01',
      'W76|5',
      'SE|7|0002',
      'ST|940|0003',
      'W05|F|ORD-88119',
      'N1|WH|WHARF LAX1|9|LAX1',
      'SE|4|0003',
      'GE|3|102',
      'IEA|1|000000102',
    ],
    '\n',
  );

function readOk(text: string): X12Interchange {
  const result = readInterchange(text);
  if (!result.ok) throw new Error(`expected a readable interchange: ${JSON.stringify(result.problems)}`);
  return result.interchange;
}

function failureCodes(result: X12ReadResult): string[] {
  if (result.ok) throw new Error('expected an unreadable interchange');
  return result.problems.map((problem) => problem.code);
}

/** A one-group, one-set 940 around the given body lines, with every count right unless overridden. */
function with940(bodyLines: string[], { se, ge, iea }: { se?: string; ge?: string; iea?: string } = {}) {
  return (
    isa() +
    body([
      'GS*OW*ACMEBRANDS*WHARF3PL*20240305*1407*7*X*004010',
      'ST*940*0001',
      ...bodyLines,
      se ?? `SE*${bodyLines.length + 2}*0001`,
      ge ?? 'GE*1*7',
      iea ?? 'IEA*1*000000101',
    ])
  );
}

const ORDER_BODY = ['W05*N*ORD-1*PO-1', 'N1*WH*WHARF LAX1*9*LAX1', 'LX*1', 'W01*2*EA**VN*SKU-1'];

describe('reading an interchange', () => {
  it('reads a 943 with its delimiters from the ISA, line breaks after terminators, and positions counted from ST', () => {
    const interchange = readOk(SAMPLE_943);
    expect(interchange.delimiters).toEqual({ element: '*', component: '>', segment: '~' });
    expect(interchange.header).toMatchObject({
      senderQualifier: 'ZZ',
      senderId: 'ACMEBRANDS',
      receiverId: 'WHARF3PL',
      date: '240305',
      time: '1407',
      version: '00401',
      controlNumber: '000000101',
      usage: 'P',
    });
    expect(interchange.trailer).toEqual({ groupCount: '1', controlNumber: '000000101' });
    const [group] = interchange.groups;
    expect(group).toMatchObject({ functionalId: 'AR', controlNumber: '101', version: '004010VICS', problems: [] });
    const [set] = group?.sets ?? [];
    expect(set).toMatchObject({ id: '943', controlNumber: '0001', problems: [], trailer: { segmentCount: '13', controlNumber: '0001' } });
    const segments = set?.segments ?? [];
    expect(segments.map((segment) => segment.id)).toEqual([
      'ST',
      'W06',
      'N1',
      'N1',
      'N9',
      'G62',
      'W27',
      'W04',
      'N9',
      'W20',
      'W04',
      'W03',
      'SE',
    ]);
    expect(segments.map((segment) => segment.position)).toEqual(segments.map((_, index) => index + 1));
    const w06 = segments[1]!;
    expect([elementValue(w06, 1), elementValue(w06, 2), elementValue(w06, 6), elementValue(w06, 9)]).toEqual([
      'N',
      'RCV-20240305-01',
      'PO-55012',
      '',
    ]);
    expect(segments.find((segment) => segment.id === 'W04')).toEqual({
      id: 'W04',
      elements: ['120', 'CA', '', 'VN', 'SKU-RED-01', 'UP', '012345678905'],
      position: 8,
    });
  });

  it('reads a 940 interchange written with | ^ and newline terminators, three sets in one group', () => {
    const interchange = readOk(SAMPLE_940);
    expect(interchange.delimiters).toEqual(PIPES);
    expect(interchange.header.usage).toBe('T');
    const [group] = interchange.groups;
    expect(group?.problems).toEqual([]);
    expect(group?.sets.map((set) => [set.controlNumber, set.problems.length, set.segments.length])).toEqual([
      ['0001', 0, 16],
      ['0002', 0, 7],
      ['0003', 0, 4],
    ]);
    const purposes = group?.sets.map((set) => elementValue(set.segments[1]!, 1));
    expect(purposes).toEqual(['N', 'R', 'F']);
    const first = group?.sets[0]?.segments ?? [];
    const shipTo = first.find((segment) => segment.id === 'N1' && elementValue(segment, 1) === 'ST');
    expect(shipTo && [elementValue(shipTo, 2), elementValue(shipTo, 4)]).toEqual(['JANE SMITH', 'CUST0042']);
    expect(first.filter((segment) => segment.id === 'LX').map((segment) => segment.position)).toEqual([9, 13]);
    expect(first.find((segment) => segment.id === 'W66')?.elements).toEqual(['PP', 'M', '', '', '', '', '', '', 'UPSN']);
  });

  it('splits composite elements at ISA16 and keeps simple ones as strings', () => {
    const interchange = readOk(with940(['W05*N*ORD-1', 'ZZ1*A>B>*C']));
    const zz1 = interchange.groups[0]?.sets[0]?.segments[2];
    expect(zz1?.elements).toEqual([['A', 'B', ''], 'C']);
    expect(elementValue(zz1!, 1, 2)).toBe('B');
    expect(elementValue(zz1!, 2, 1)).toBe('C');
    expect(elementValue(zz1!, 2, 2)).toBe('');
  });

  it('reads CRLF line ends (CR after ISA16 is the terminator, LF is tolerated), a byte-order mark and blank lines', () => {
    const crlf = readOk(`\uFEFF${SAMPLE_940.replaceAll('\n', '\r\n')}\r\n\r\n`);
    expect(crlf.delimiters.segment).toBe('\r');
    expect(crlf.groups[0]?.sets.map((set) => set.segments.length)).toEqual([16, 7, 4]);
    // A file whose ISA line ends in LF alone and the rest in CRLF: the CR is not taken for data.
    const mixed = readOk(SAMPLE_940.replace(/\n(?=.)/gs, (lf, offset: number) => (offset > 106 ? '\r\n' : lf)));
    expect(mixed.delimiters.segment).toBe('\n');
    expect(mixed.trailer).toEqual({ groupCount: '1', controlNumber: '000000102' });
    expect(elementValue(mixed.groups[0]!.sets[0]!.segments[1]!, 3)).toBe('PO-77001');
  });

  it('reads a TA1 sent between ISA and IEA', () => {
    const interchange = readOk(isa() + body(['TA1*000000077*240305*1407*R*021', 'IEA*0*000000101']));
    expect(interchange.acknowledgments).toEqual([{ id: 'TA1', elements: ['000000077', '240305', '1407', 'R', '021'] }]);
    expect(interchange.groups).toEqual([]);
  });
});

describe('interchange problems: a TA1 note code (I18), never a throw', () => {
  const cases: [string, string, string][] = [
    ['an empty body', '', InterchangeNote.prematureEnd],
    ['garbage', 'hello, this is not X12 at all '.repeat(10), InterchangeNote.invalidControlStructure],
    ['a truncated ISA', isa().slice(0, 80), InterchangeNote.prematureEnd],
    ['a letter as element separator', isa().replaceAll('*', 'X') + 'IEAX0X000000101~', InterchangeNote.invalidElementSeparator],
    ['ISA06 one character short', isa({ 6: 'ACMEBRANDS    ' }) + 'IEA*0*000000101~~', InterchangeNote.invalidSenderId],
    ['ISA08 one character long', isa({ 8: 'WHARF3PL        ' }) + 'IEA*0*000000101~', InterchangeNote.invalidReceiverId],
    ['ISA02 short', isa({ 2: '         ' }) + 'IEA*0*000000101~~', InterchangeNote.invalidAuthorization],
    ['ISA13 of 8 digits', isa({ 13: '00000101' }) + 'IEA*0*00000101~~', InterchangeNote.invalidControlNumber],
    ['ISA13 not digits', isa({ 13: '00000010A' }) + 'IEA*0*00000010A~', InterchangeNote.invalidControlNumber],
    [
      'a letter as segment terminator',
      isa({}, { ...defaultDelimiters, segment: 'Q' }) + 'IEA*0*000000101Q',
      InterchangeNote.invalidSegmentTerminator,
    ],
    ['ISA16 equal to the element separator', isa({ 16: '*' }) + 'IEA*0*000000101~', InterchangeNote.invalidComponentSeparator],
    ['ISA16 a letter', isa({ 16: 'A' }) + 'IEA*0*000000101~', InterchangeNote.invalidComponentSeparator],
    ['an impossible ISA09', isa({ 9: '240230' }) + 'IEA*0*000000101~', InterchangeNote.invalidDate],
    ['an impossible ISA10', isa({ 10: '2460' }) + 'IEA*0*000000101~', InterchangeNote.invalidTime],
    ['ISA11 other than U', isa({ 11: '^' }) + 'IEA*0*000000101~', InterchangeNote.invalidStandardsId],
    ['ISA12 of 005010', isa({ 12: '00501' }) + 'IEA*0*000000101~', InterchangeNote.invalidVersion],
    ['ISA14 of 2', isa({ 14: '2' }) + 'IEA*0*000000101~', InterchangeNote.invalidAcknowledgmentRequested],
    ['ISA15 of X', isa({ 15: 'X' }) + 'IEA*0*000000101~', InterchangeNote.invalidUsageIndicator],
    ['ISA05 blank', isa({ 5: '  ' }) + 'IEA*0*000000101~', InterchangeNote.invalidSenderQualifier],
    ['IEA01 not the number of groups', with940(ORDER_BODY, { iea: 'IEA*2*000000101' }), InterchangeNote.invalidGroupCount],
    ['IEA01 not a number', with940(ORDER_BODY, { iea: 'IEA*one*000000101' }), InterchangeNote.invalidGroupCount],
    ['IEA02 not ISA13', with940(ORDER_BODY, { iea: 'IEA*1*000000102' }), InterchangeNote.controlNumberMismatch],
    ['no IEA', with940(ORDER_BODY).replace('IEA*1*000000101~', ''), InterchangeNote.prematureEnd],
    ['a body cut short', with940(ORDER_BODY).slice(0, 160), InterchangeNote.prematureEnd],
    ['a segment after IEA', `${with940(ORDER_BODY)}W05*N*X~`, InterchangeNote.invalidContent],
    ['a second interchange', with940(ORDER_BODY) + with940(ORDER_BODY), InterchangeNote.invalidContent],
    ['a second ISA before IEA', with940(ORDER_BODY).replace('IEA*1*000000101~', isa()), InterchangeNote.invalidControlStructure],
    ['a GS of too few elements', with940(ORDER_BODY).replace('*004010~', '~'), InterchangeNote.invalidContent],
    ['a segment between SE and GE', with940(ORDER_BODY).replace('GE*1*7', 'W05*N*X~GE*1*7'), InterchangeNote.invalidContent],
    ['a segment before GS', with940(ORDER_BODY).replace('GS*', 'W05*N*X~GS*'), InterchangeNote.invalidContent],
    ['GE without GS', with940(ORDER_BODY).replace('GE*1*7~', 'GE*1*7~GE*1*7~'), InterchangeNote.invalidContent],
  ];

  it.each(cases)('%s', (_, text, code) => {
    expect(failureCodes(readInterchange(text))[0]).toBe(code);
  });

  it('keeps the ISA it could read for the TA1, and lists every problem, first found first', () => {
    const result = readInterchange(with940(ORDER_BODY, { iea: 'IEA*3*000000999' }).replace('*240305*', '*241305*'));
    expect(failureCodes(result)).toEqual([
      InterchangeNote.invalidDate,
      InterchangeNote.invalidGroupCount,
      InterchangeNote.controlNumberMismatch,
    ]);
    expect(!result.ok && result.header?.controlNumber).toBe('000000101');
    expect(!result.ok && result.delimiters).toEqual(defaultDelimiters);
  });

  it('answers ten megabytes of garbage, with or without a good ISA in front, at once', () => {
    const garbage = 'x~*>\n'.repeat(2 * 1024 * 1024);
    expect(failureCodes(readInterchange(garbage))).toEqual([InterchangeNote.invalidControlStructure]);
    expect(failureCodes(readInterchange(isa() + garbage))).toEqual([InterchangeNote.invalidContent]);
  });
});

describe('group problems: AK9-05 codes (716), the interchange still read', () => {
  const groupCodes = (text: string) => readOk(text).groups.map((group) => group.problems.map((problem) => problem.code));

  it('GE01 not the number of sets is 5', () => {
    expect(groupCodes(with940(ORDER_BODY, { ge: 'GE*2*7' }))).toEqual([[GroupError.setCountMismatch]]);
  });

  it('GE02 not GS06 is 4, while 7 and 0007 are one number', () => {
    expect(groupCodes(with940(ORDER_BODY, { ge: 'GE*1*8' }))).toEqual([[GroupError.controlNumberMismatch]]);
    expect(groupCodes(with940(ORDER_BODY, { ge: 'GE*1*0007' }))).toEqual([[]]);
  });

  it('a group without GE is 3, and the next group is read on its own', () => {
    const text = with940(ORDER_BODY, { iea: 'IEA*2*000000101' }).replace(
      'GE*1*7~',
      body(['GS*AR*ACMEBRANDS*WHARF3PL*20240305*1407*8*X*004010', 'ST*943*0001', 'W06*N*R-1', 'SE*3*0001', 'GE*1*8']),
    );
    const groups = readOk(text).groups;
    expect(groups.map((group) => group.problems.map((problem) => problem.code))).toEqual([[GroupError.trailerMissing], []]);
    expect(groups.map((group) => group.sets.length)).toEqual([1, 1]);
  });

  it('GS06 not digits is 6, GS08 other than 004010 is 2', () => {
    const text = with940(ORDER_BODY, { ge: 'GE*1*A7' }).replace('*1407*7*X*004010~', '*1407*A7*X*005010~');
    expect(groupCodes(text)).toEqual([[GroupError.controlNumberSyntax, GroupError.versionNotSupported]]);
  });
});

describe('set problems: AK5-02 codes (718) on the set, the others untouched', () => {
  const twoSets = (first: string[], second: string[]) =>
    isa() + body(['GS*OW*ACMEBRANDS*WHARF3PL*20240305*1407*7*X*004010', ...first, ...second, 'GE*2*7', 'IEA*1*000000101']);
  const goodSet = ['ST*940*0002', 'W05*N*ORD-2', 'SE*3*0002'];
  const setProblems = (text: string) => readOk(text).groups[0]?.sets.map((set) => set.problems) ?? [];

  it('SE01 not the count from ST to SE is 4', () => {
    const [first, second] = setProblems(twoSets(['ST*940*0001', 'W05*N*ORD-1', 'SE*2*0001'], goodSet));
    expect(first).toEqual([{ code: SetError.segmentCountMismatch, message: 'SE01 says 2 segments, set 0001 has 3' }]);
    expect(second).toEqual([]);
  });

  it('SE02 not ST02 is 3', () => {
    const [first] = setProblems(twoSets(['ST*940*0001', 'W05*N*ORD-1', 'SE*3*0009'], goodSet));
    expect(first?.map((problem) => problem.code)).toEqual([SetError.controlNumberMismatch]);
  });

  it('a set without SE is 2, whether the next ST or GE comes first', () => {
    const [first, second] = setProblems(twoSets(['ST*940*0001', 'W05*N*ORD-1'], ['ST*940*0002', 'W05*N*ORD-2']));
    expect(first?.map((problem) => problem.code)).toEqual([SetError.trailerMissing]);
    expect(second?.map((problem) => problem.code)).toEqual([SetError.trailerMissing]);
  });

  it('ST01 not a set identifier is 6, ST02 not 4 to 9 characters is 7, ST02 twice in a group is 23', () => {
    const problems = setProblems(
      twoSets(['ST*94*001', 'W05*N*ORD-1', 'SE*3*001'], ['ST*940*0001', 'SE*2*0001', ...goodSet.map((s) => s.replaceAll('0002', '0001'))]),
    );
    expect(problems.map((list) => list.map((problem) => problem.code))).toEqual([
      [SetError.invalidSetId, SetError.invalidControlNumber],
      [],
      [SetError.controlNumberNotUnique],
    ]);
  });

  it('quotes at most 20 characters of a value in a message, however long the value', () => {
    const [set] = readOk(with940(ORDER_BODY, { se: `SE*${'9'.repeat(100_000)}*0001` })).groups[0]?.sets ?? [];
    expect(set?.problems).toEqual([
      { code: SetError.segmentCountMismatch, message: `SE01 says ${'9'.repeat(20)}… segments, set 0001 has 6` },
    ]);
  });

  it('a segment terminator inside an element is 5 with AK3 naming the segment, and shifts the count', () => {
    const text = with940(['W05*N*ORD-1', 'N1*ST*ACME~CORP*92*X', 'LX*1'], { se: 'SE*5*0001' });
    const [set] = readOk(text).groups[0]?.sets ?? [];
    expect(set?.problems).toEqual([
      {
        code: SetError.segmentsInError,
        message: 'segment 4 of set 0001 has no valid segment id: "CORP"',
        segment: { position: 4, id: 'CORP', code: SegmentError.unrecognizedSegmentId },
      },
      { code: SetError.segmentCountMismatch, message: 'SE01 says 5 segments, set 0001 has 6' },
    ]);
  });
});

const AT = Date.parse('2024-07-05T22:07:09.000Z');
const LA = 'America/Los_Angeles';

function advice(overrides: Partial<InterchangeToWrite> = {}): InterchangeToWrite {
  return {
    sender: { qualifier: 'ZZ', id: 'WHARF3PL' },
    receiver: { qualifier: 'ZZ', id: 'ACMEBRANDS' },
    controlNumber: 42,
    at: AT,
    timeZone: LA,
    groups: [
      {
        functionalId: 'RE',
        senderCode: 'WHARF3PL',
        receiverCode: 'ACMEBRANDS',
        controlNumber: 17,
        sets: [
          {
            id: '944',
            controlNumber: 1,
            segments: [
              { id: 'W17', elements: ['F', '20240705', 'RC-1001', 'RCV-20240305-01'] },
              { id: 'N1', elements: ['WH', 'WHARF LAX1', '9', 'LAX1'] },
              { id: 'W07', elements: ['120', 'CA', '', 'VN', 'SKU-RED-01'] },
              { id: 'W14', elements: ['120'] },
            ],
          },
          { id: '944', controlNumber: '0002', segments: [{ id: 'W17', elements: ['F', '20240705', 'RC-1002', 'R-2'] }] },
        ],
      },
      {
        functionalId: 'SW',
        senderCode: 'WHARF3PL',
        receiverCode: 'ACMEBRANDS',
        controlNumber: 18,
        sets: [{ id: '945', controlNumber: 3, segments: [{ id: 'W06', elements: ['F', 'ORD-88120', '20240705'] }] }],
      },
    ],
    ...overrides,
  };
}

describe('writing', () => {
  it('writes an interchange with a fixed-width ISA and every count and control number exact', () => {
    const text = buildInterchange(advice(), { afterSegment: '\n' });
    const lines = text.split('~\n');
    expect(lines[0]).toBe('ISA*00*          *00*          *ZZ*WHARF3PL       *ZZ*ACMEBRANDS     *240705*1507*U*00401*000000042*0*P*>');
    expect(lines[0]).toHaveLength(105);
    expect(lines.slice(1)).toEqual([
      'GS*RE*WHARF3PL*ACMEBRANDS*20240705*1507*17*X*004010',
      'ST*944*0001',
      'W17*F*20240705*RC-1001*RCV-20240305-01',
      'N1*WH*WHARF LAX1*9*LAX1',
      'W07*120*CA**VN*SKU-RED-01',
      'W14*120',
      'SE*6*0001',
      'ST*944*0002',
      'W17*F*20240705*RC-1002*R-2',
      'SE*3*0002',
      'GE*2*17',
      'GS*SW*WHARF3PL*ACMEBRANDS*20240705*1507*18*X*004010',
      'ST*945*0003',
      'W06*F*ORD-88120*20240705',
      'SE*3*0003',
      'GE*1*18',
      'IEA*2*000000042',
      '',
    ]);
  });

  it('dates the envelope in the given zone with luxon, across a day boundary', () => {
    expect(envelopeDateTime(AT, LA)).toEqual({ isaDate: '240705', isaTime: '1507', gsDate: '20240705', gsTime: '1507' });
    expect(envelopeDateTime(AT, 'Asia/Tokyo')).toEqual({ isaDate: '240706', isaTime: '0707', gsDate: '20240706', gsTime: '0707' });
    expect(() => envelopeDateTime(AT, 'Mars/Olympus')).toThrow(X12WriteError);
  });

  it('reads back what it writes with any delimiters, counts included', () => {
    const formats: { delimiters: X12Delimiters; afterSegment?: string }[] = [
      { delimiters: defaultDelimiters },
      { delimiters: PIPES },
      { delimiters: { element: '|', component: '^', segment: '~' }, afterSegment: '\r\n' },
      { delimiters: { element: '^', component: ':', segment: "'" }, afterSegment: '\n' },
      { delimiters: { element: '\u001d', component: '\u001f', segment: '\u001c' } },
    ];
    for (const format of formats) {
      const interchange = readOk(buildInterchange(advice(), format));
      expect(interchange.delimiters).toEqual(format.delimiters);
      expect(interchange.header).toMatchObject({ senderId: 'WHARF3PL', receiverId: 'ACMEBRANDS', controlNumber: '000000042' });
      expect(interchange.groups.map((group) => [group.controlNumber, group.trailer, group.problems])).toEqual([
        ['17', { setCount: '2', controlNumber: '17' }, []],
        ['18', { setCount: '1', controlNumber: '18' }, []],
      ]);
      const bodies = interchange.groups.flatMap((group) =>
        group.sets.map((set) => set.segments.slice(1, -1).map(({ id, elements }) => ({ id, elements }))),
      );
      expect(bodies).toEqual(advice().groups.flatMap((group) => group.sets.map((set) => set.segments)));
    }
  });

  it('writes a TA1 between ISA and IEA, outside the group count', () => {
    const text = buildInterchange(
      advice({
        groups: [],
        acknowledgments: [{ id: 'TA1', elements: ['000000101', '240305', '1407', 'R', InterchangeNote.invalidGroupCount] }],
      }),
    );
    expect(text.slice(106)).toBe('TA1*000000101*240305*1407*R*021~IEA*0*000000042~');
    expect(readOk(text).acknowledgments).toHaveLength(1);
  });

  it('leaves out trailing empty elements and components, writes composites with the component separator', () => {
    expect(writeSegment({ id: 'W20', elements: ['', '', '', '1800.00', 'N', 'L', '', ''] })).toBe('W20****1800.00*N*L');
    expect(writeSegment({ id: 'ZZ1', elements: [['A', 'B', ''], ['', ''], 'C'] })).toBe('ZZ1*A>B**C');
    expect(writeSegments([{ id: 'LX', elements: ['1'] }], { delimiters: PIPES })).toBe('LX|1\n');
  });

  it('refuses what would break the envelope rather than write it', () => {
    const refuses = (write: () => unknown, message: RegExp) => expect(write).toThrow(message);
    refuses(() => writeSegment({ id: 'N1', elements: ['ST', 'ACME~CORP'] }), /N102 contains "~"/);
    refuses(() => writeSegment({ id: 'N1', elements: ['ST', 'ACME*CORP'] }), /N102 contains "\*"/);
    refuses(() => writeSegment({ id: 'ZZ1', elements: [['A', 'B>C']] }), /ZZ101-2 contains ">"/);
    refuses(() => writeSegment({ id: 'NTE', elements: ['GEN', 'two\nlines'] }), /NTE02 contains "\\n"/);
    refuses(() => writeSegment({ id: 'w05', elements: [] }), /not a segment id/);
    refuses(() => writeSegments([], { delimiters: { element: '*', component: '*', segment: '~' } }), /must differ/);
    refuses(() => writeSegments([], { delimiters: { element: 'A', component: '>', segment: '~' } }), /letter, a digit or a space/);
    refuses(() => writeSegments([], { afterSegment: ' ' }), /line breaks/);
    refuses(() => buildInterchange(advice({ sender: { qualifier: 'ZZ', id: 'A-SENDER-ID-TOO-LONG' } })), /ISA06 must be 1 to 15/);
    refuses(() => buildInterchange(advice({ receiver: { qualifier: 'Z', id: 'X' } })), /ISA07 must be 2/);
    refuses(() => buildInterchange(advice({ controlNumber: 1_000_000_000 })), /ISA13/);
    refuses(() => buildInterchange(advice({ controlNumber: 0 })), /ISA13/);
    const withSe = advice();
    const [group] = withSe.groups;
    refuses(
      () =>
        buildInterchange({
          ...withSe,
          groups: [{ ...group!, sets: [{ id: '944', controlNumber: 1, segments: [{ id: 'SE', elements: ['1'] }] }] }],
        }),
      /holds a SE segment/,
    );
    refuses(
      () => buildInterchange({ ...withSe, groups: [{ ...group!, sets: [{ id: '944', controlNumber: '01', segments: [] }] }] }),
      /ST02 01/,
    );
  });
});

describe('round trips of generated interchanges', () => {
  const value = fc.stringMatching(/^[A-Z0-9 .,/#&()-]{0,12}$/);
  const element = fc.oneof(
    { weight: 4, arbitrary: value },
    { weight: 1, arbitrary: fc.array(value, { minLength: 2, maxLength: 3 }).filter((parts) => parts.at(-1) !== '') },
  );
  const segment: fc.Arbitrary<X12Segment> = fc.record({
    id: fc.stringMatching(/^[A-Z][A-Z0-9]{1,2}$/).filter((id) => !['ISA', 'IEA', 'GS', 'GE', 'ST', 'SE', 'TA1'].includes(id)),
    elements: fc.array(element, { maxLength: 6 }).map((elements) => {
      const last = elements.at(-1);
      return last === '' || (Array.isArray(last) && last.every((part) => part === '')) ? [...elements.slice(0, -1), 'X'] : elements;
    }),
  });
  const delimiters = fc.constantFrom<X12Delimiters>(defaultDelimiters, PIPES, { element: '^', component: ':', segment: "'" });

  it('parse back to the same segments, positions and counts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.array(segment, { maxLength: 5 }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
        delimiters,
        fc.constantFrom('', '\n', '\r\n'),
        (groups, format, afterSegment) => {
          const written = advice({
            groups: groups.map((sets, groupIndex) => ({
              functionalId: 'OW',
              senderCode: 'S',
              receiverCode: 'R',
              controlNumber: groupIndex + 1,
              sets: sets.map((segments, setIndex) => ({ id: '940', controlNumber: setIndex + 1, segments })),
            })),
          });
          const interchange = readOk(buildInterchange(written, { delimiters: format, afterSegment }));
          expect(interchange.trailer.groupCount).toBe(String(groups.length));
          interchange.groups.forEach((group, groupIndex) => {
            expect(group.problems).toEqual([]);
            group.sets.forEach((set, setIndex) => {
              expect(set.problems).toEqual([]);
              expect(set.segments.map((s) => s.position)).toEqual(set.segments.map((_, index) => index + 1));
              expect(set.segments.slice(1, -1).map(({ id, elements }) => ({ id, elements }))).toEqual(groups[groupIndex]?.[setIndex]);
            });
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});
