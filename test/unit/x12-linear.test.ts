import { describe, expect, it } from 'vitest';
import { FieldSources } from '../../src/modules/x12/set-reading.js';
import { interchangeDigest, measureInterchange, readInterchange, readInterchangeStart } from '../../src/modules/x12/x12-reader.js';

/**
 * Every check of an interchange is linear in its length: each shape below is checked at n and at
 * 10n, and the second may cost at most 30 times the first (linear is about 10, quadratic about
 * 100). A ratio of CPU times within one test, never an absolute time, so a busy machine does
 * not fail it.
 */

const ISA = 'ISA*00*          *00*          *ZZ*ACMEEDI        *ZZ*WHARFDEMO      *261127*1200*U*00401*000000101*0*P*>~\n';

/** Milliseconds of this process's CPU time (not the wall clock, which counts other processes too). */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The CPU milliseconds one call of `run` takes, over as many calls as fit in 20 ms (at least one). */
function callCost(run: () => unknown): number {
  const start = cpuMs();
  let calls = 0;
  let spent = 0;
  do {
    run();
    calls++;
    spent = cpuMs() - start;
  } while (spent < 20);
  return spent / calls;
}

/**
 * How much more the check of the input of size 10n costs than that of size n: the cheapest of
 * five rounds of each, taken in turns so that a busy spell of the machine weighs on both. A check
 * that takes seconds is quadratic beyond doubt, and is not run again.
 */
function growth<T>(input: (n: number) => T, check: (input: T) => unknown, n: number): number {
  const small = input(n);
  const large = input(10 * n);
  check(small);
  const cost = (of: T) => callCost(() => check(of));
  let [smallCost, largeCost] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  for (let round = 0; round < 5 && (round === 0 || largeCost < 2_000); round++) {
    smallCost = Math.min(smallCost, cost(small));
    largeCost = Math.min(largeCost, cost(large));
  }
  return largeCost / smallCost;
}

/** Everything the bridge does with an interchange's text before it runs a set. */
function checkInterchange(text: string): unknown {
  const start = readInterchangeStart(text);
  if (!start.ok) throw new Error(start.problem.message);
  return [measureInterchange(text, start, { sets: Infinity, segments: Infinity }), interchangeDigest(text, start), readInterchange(text)];
}

/** An interchange of one group whose body is `sets`, already enveloped. */
const inOneGroup = (sets: string, count: number) =>
  `${ISA}GS*OW*ACMEEDI*WHARFDEMO*20261127*1200*1*X*004010~\n${sets}GE*${count}*1~\nIEA*1*000000101~\n`;

/** One set whose body is `body` (segments, each with its terminator). */
const oneSet = (body: string, segments: number) => inOneGroup(`ST*940*0001~\n${body}SE*${segments + 2}*0001~\n`, 1);

const SHAPES: [string, (n: number) => string, number][] = [
  [
    'sets with distinct ST02s in one group',
    (n) =>
      inOneGroup(
        Array.from(
          { length: n },
          (_, index) => `ST*940*${String(index + 1).padStart(6, '0')}~\nSE*2*${String(index + 1).padStart(6, '0')}~\n`,
        ).join(''),
        n,
      ),
    4_000,
  ],
  ['sets that all share one ST02', (n) => inOneGroup('ST*940*0001~\nSE*2*0001~\n'.repeat(n), n), 4_000],
  [
    'groups',
    (n) =>
      `${ISA}${Array.from({ length: n }, (_, index) => `GS*OW*ACMEEDI*WHARFDEMO*20261127*1200*${index + 1}*X*004010~\nST*940*0001~\nSE*2*0001~\nGE*1*${index + 1}~\n`).join('')}IEA*${n}*000000101~\n`,
    4_000,
  ],
  ['segments in one set', (n) => oneSet('NTE*WHI*X~\n'.repeat(n), n), 10_000],
  ['a run of line breaks inside a segment', (n) => oneSet(`NTE*WHI*A${'\n'.repeat(n)}B~\n`, 1), 10_000],
  ['a run of CRs inside a segment', (n) => oneSet(`NTE*WHI*A${'\r'.repeat(n)}B~\n`, 1), 10_000],
  ['a run of line breaks between segments', (n) => oneSet(`NTE*WHI*A~${'\r\n'.repeat(n)}NTE*WHI*B~\n`, 2), 10_000],
  ['a long element', (n) => oneSet(`NTE*WHI*${'x'.repeat(n)}~\n`, 1), 100_000],
  ['a segment of many elements', (n) => oneSet(`NTE${'*'.repeat(n)}~\n`, 1), 100_000],
  ['an element of many components', (n) => oneSet(`NTE*WHI*${'>'.repeat(n)}~\n`, 1), 100_000],
  ['a long segment id', (n) => oneSet(`${'N'.repeat(n)}*X~\n`, 1), 100_000],
  ['spaces after the terminators', (n) => oneSet(`NTE*WHI*A~${' '.repeat(n)}NTE*WHI*B~\n`, 2), 100_000],
  ['text without a terminator after the ISA', (n) => `${ISA}GS${'*1\n'.repeat(n)}`, 10_000],
];

describe('every check of an interchange grows linearly with it', () => {
  for (const [shape, input, n] of SHAPES) {
    it(`${shape}: ${n} against ${10 * n}`, () => {
      expect(growth(input, checkInterchange, n)).toBeLessThan(30);
    });
  }
});

describe('placing a problem on the element it came from costs its message, not the fields of the set', () => {
  it('n fields and n messages against 10n of each', () => {
    const messages = (n: number) => {
      const sources = new FieldSources('POContent.ReferenceNo');
      const source = { segmentId: 'W01', position: 1, element: 2, reference: '355' };
      for (let line = 0; line < n; line++) sources.set(`POContent.Items[${line}].UOM`, { ...source, position: line + 4 });
      sources.set('POContent.ReferenceNo', { ...source, segmentId: 'W05' });
      const said = Array.from({ length: n }, (_, line) =>
        line % 2 === 0 ? `POContent.Items[${line}].UOM must be one of EA, CS` : `Order SO-${line} cannot be changed`,
      );
      return { sources, said };
    };
    const place = ({ sources, said }: ReturnType<typeof messages>) => said.map((message) => sources.sourceOf(message)?.position);
    // What is placed, before how fast: a line's message on its W01, any other on the document key's W05.
    const { sources, said } = messages(4);
    expect(said.map((message) => sources.sourceOf(message)?.segmentId)).toEqual(['W01', 'W05', 'W01', 'W05']);
    expect(place(messages(4))).toEqual([4, 1, 6, 1]);
    expect(sources.sourceOf('POContent.Items[2].UOMX is no field')?.segmentId).toBe('W05');
    expect(growth(messages, place, 300)).toBeLessThan(30);
  });
});
