import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { EDI_PREFIX } from '../../src/app.js';
import type { App } from '../../src/http/module.js';

/** Interchanges for POST /edi/x12, sent and answered through the test app. */

/** A functional group: GS01, GS06 and its sets, each its id and its body lines between ST and SE. */
export type X12Group = [functionalId: string, groupNo: string, sets: [setId: string, body: string[]][]];

/** Who sends an interchange to whom (both qualified ZZ), and when: ISA09 (YYMMDD) and ISA10 (HHMM). */
export interface X12Parties {
  sender: string;
  receiver: string;
  date?: string;
  time?: string;
}

/** An interchange of `groups` between `parties`, one segment a line; its sets are numbered from 0001 in each group. */
export function interchange(
  { sender, receiver, date = '261127', time = '1200' }: X12Parties,
  controlNo: string,
  groups: X12Group[],
): string {
  const lines = [
    `ISA*00*          *00*          *ZZ*${sender.padEnd(15)}*ZZ*${receiver.padEnd(15)}*${date}*${time}*U*00401*${controlNo}*0*P*>~`,
  ];
  for (const [functionalId, groupNo, sets] of groups) {
    lines.push(`GS*${functionalId}*${sender}*${receiver}*20${date}*${time}*${groupNo}*X*004010~`);
    sets.forEach(([setId, body], index) => {
      const setNo = String(index + 1).padStart(4, '0');
      // A loop, not a spread: a set may hold a million segments, more arguments than a call takes.
      lines.push(`ST*${setId}*${setNo}~`);
      for (const line of body) lines.push(`${line}~`);
      lines.push(`SE*${body.length + 2}*${setNo}~`);
    });
    lines.push(`GE*${sets.length}*${groupNo}~`);
  }
  lines.push(`IEA*${groups.length}*${controlNo}~`);
  return lines.join('\n');
}

/** The ISA of Wharf's answer to an interchange between `parties` (back from its receiver to its sender), at the test clock's instant (2026-03-05 14:07 UTC). */
export const answerEnvelope = ({ sender, receiver }: X12Parties, controlNo: string) =>
  `ISA*00*          *00*          *ZZ*${receiver.padEnd(15)}*ZZ*${sender.padEnd(15)}*260305*1407*U*00401*${controlNo}*0*P*>~`;

/** POST `body` to /edi/x12 with `key`, as application/edi-x12 unless another content type is given. */
export const postX12 = (app: App, body: string, key: string, contentType = 'application/edi-x12') =>
  app.inject({
    method: 'POST',
    url: `${EDI_PREFIX}/edi/x12`,
    headers: { 'content-type': contentType, authorization: `APIKey ${key}` },
    payload: body,
  });

/** Asserts an X12 answer: its content type, its status and its body, line by line. */
export const expectX12 = (response: LightMyRequestResponse, status: number, lines: string[]) => {
  expect(response.headers['content-type']).toBe('application/edi-x12');
  expect({ status: response.statusCode, body: response.body.split('\n') }).toEqual({ status, body: lines });
};
