/**
 * An interchange a trading partner posts (docs/x12.md): each 940 and 943 runs through the same
 * command as its JSON twin (its own transaction, ACK, idempotency and events), and the interchange
 * is answered with a 997 per group, or a TA1 when its envelope cannot be taken. The same ISA13
 * sent again is answered with its first 997 and changes nothing.
 */
import type { TSchema } from '@sinclair/typebox';
import type { Db, Trx } from '../../db/database.js';
import { purgeInBatches, type PurgeBatches, type Purged } from '../../db/purge.js';
import { inTransaction } from '../../db/transaction.js';
import { type Authorize, requireRole, ROLES_OF } from '../../http/auth.js';
import type { CommandContext } from '../../http/command-context.js';
import { dateTimeFormats, explainFormatFailure } from '../../http/formats.js';
import { sha256Hex } from '../../lib/ids.js';
import { forbidden, invalid, Refusal } from '../../lib/refusal.js';
import { issueFinder } from '../../lib/validate.js';
import { formatValidationErrors, type ValidationIssue } from '../../lib/validation-messages.js';
import { acknowledgeRejectedBody, type RejectedBodyRule } from '../commands/commands.service.js';
import { OrderCancelRequestSchema, OrderImportRequestSchema } from '../orders/orders.schemas.js';
import { cancelOrderByCustomer, importOrder, REJECTED_ORDER } from '../orders/orders.service.js';
import { ReceiptImportRequestSchema } from '../receipts/receipts.schemas.js';
import { importReceipt, REJECTED_RECEIPT } from '../receipts/receipts.service.js';
import {
  functionalAcknowledgment,
  interchangeAcknowledgment,
  type GroupAcknowledgment,
  type PlacedProblem,
  type SetAcknowledgment,
  writableAcknowledgments,
} from './acknowledgments.js';
import * as repo from './partners.repository.js';
import { ownParty, type OwnParty } from './partners.service.js';
import { RECEIPT_ADVICE_SET, readReceiptAdvice } from './receipt-advice.js';
import type { SetReader } from './set-reading.js';
import { readShippingOrder, SHIPPING_ORDER_SET } from './shipping-order.js';
import { type InterchangeSize, interchangeDigest, measureInterchange, readInterchange, readInterchangeStart } from './x12-reader.js';
import {
  controlNumberAfter,
  ElementError,
  GroupError,
  type InterchangeHeader,
  InterchangeNote,
  type InterchangeNoteCode,
  SetError,
  type X12Delimiters,
  type X12Group,
  type X12Interchange,
  type X12Segment,
  type X12TransactionSet,
} from './x12-syntax.js';
import { buildInterchange, type X12WriteFormat } from './x12-writer.js';

/** What the route sends: 200 with a 997, or 400 with a TA1, both application/edi-x12. */
export interface InterchangeAnswer {
  statusCode: 200 | 400;
  body: string;
  /** The first answer of an interchange sent before. */
  replayed: boolean;
}

/** Which transaction set each functional group (GS01) carries. */
const SET_OF_GROUP: Record<string, string> = { OW: SHIPPING_ORDER_SET, AR: RECEIPT_ADVICE_SET };

const findIssues = issueFinder(dateTimeFormats);

/**
 * The most an interchange may hold: its sets each run a command, and its segments are read into
 * memory. Counted before any set is read; beyond either, the interchange is refused with a TA1.
 */
const INTERCHANGE_LIMITS: InterchangeSize = { sets: 10_000, segments: 1_000_000 };

/**
 * Answers one interchange of a partner of the key's customers (403 for any other sender): its
 * envelope checked (TA1 when it cannot be taken), each set run once as its command, and the 997
 * recorded with the interchange so that the same interchange again replays it.
 *
 * The order is the cost's: the ISA alone names the sender, who is authorized before anything
 * after the ISA is read; the segments and sets are counted against their limits before one of
 * them is read; and every check of what is read is linear in the interchange's length.
 */
export async function receiveInterchange(cx: CommandContext, authorize: Authorize, text: string): Promise<InterchangeAnswer> {
  requireRole(cx.principal, ROLES_OF.customer);
  const start = readInterchangeStart(text);
  if (!start.ok) throw invalid(`The body is not an X12 interchange: ${start.problem.message}`);
  const { header, delimiters } = start;
  const partner = await partnerOf(cx, header);
  const own = await ownParty(cx.db, partner.companyId);
  const to = { partner, own, header, format: { delimiters, afterSegment: lineBreakAfterSegments(text, delimiters) } };
  const reject = async (code: InterchangeNoteCode): Promise<InterchangeAnswer> => ({
    statusCode: 400,
    body: await inTransaction(cx.db, (trx) => answerInterchange(trx, cx, to, [interchangeAcknowledgment(header, 'R', code)], [])),
    replayed: false,
  });

  if (start.problems.length > 0) return reject(start.problems[0]!.code);
  const size = measureInterchange(text, start, INTERCHANGE_LIMITS);
  if (size.sets > INTERCHANGE_LIMITS.sets || size.segments > INTERCHANGE_LIMITS.segments) return reject(InterchangeNote.invalidContent);
  const read = readInterchange(text);
  if (!read.ok) return reject(read.problems[0]!.code);
  if (header.receiverQualifier !== own.qualifier || header.receiverId !== own.id) return reject(InterchangeNote.invalidReceiverId);
  // A test or information interchange must not change the books: a partner tests against a company of its own.
  if (header.usage !== 'P') return reject(InterchangeNote.invalidUsageIndicator);
  // The same interchange is the same segments: line breaks after terminators (layout) do not make another.
  const requestHash = interchangeDigest(text, start);
  const earlier = await repo.findInterchange(cx.db, partner, header.controlNumber);
  if (earlier) {
    // A record kept by a version that hashed the bytes as sent is still replayed by the same bytes.
    return earlier.request_hash === requestHash || earlier.request_hash === sha256Hex(text)
      ? { statusCode: 200, body: earlier.answer, replayed: true }
      : reject(InterchangeNote.duplicateControlNumber);
  }

  const groups: GroupAcknowledgment[] = [];
  for (const group of read.interchange.groups) groups.push(await acknowledgeGroup(cx, authorize, partner, read.interchange, group));
  const requested = header.acknowledgmentRequested === '1' ? [interchangeAcknowledgment(header, 'A', InterchangeNote.noError)] : [];
  // The 997's control numbers and the record of the interchange commit together: a request that
  // lost the race to another with the same interchange rolls back, wasting no number, and answers
  // the winner's 997.
  try {
    return await inTransaction(cx.db, async (trx) => {
      const answer = await answerInterchange(trx, cx, to, requested, groups);
      const recorded = await repo.insertInterchange(trx, {
        company_id: partner.companyId,
        qualifier: partner.qualifier,
        partner_id: partner.partnerId,
        control_no: header.controlNumber,
        request_hash: requestHash,
        answer,
        created_at: cx.clock.now(),
      });
      if (!recorded) throw new LostRace();
      return { statusCode: 200 as const, body: answer, replayed: false };
    });
  } catch (error) {
    if (!(error instanceof LostRace)) throw error;
    const winner = (await repo.findInterchange(cx.db, partner, header.controlNumber))!;
    return { statusCode: 200, body: winner.answer, replayed: true };
  }
}

/**
 * Purges, in batches, the records of the interchanges received before `cutoff` (docs/x12.md,
 * "Retention"): the same interchange sent after that is received as a new one. The partners'
 * control numbers and the company's own ids are kept, so what Wharf sends stays numbered on.
 */
export function purgeInterchangesBefore(db: Db, cutoff: number, batches: PurgeBatches): Promise<Purged> {
  return purgeInBatches(db, batches, (trx, limit) => repo.deleteInterchangesBefore(trx, cutoff, limit));
}

/** Another request recorded the same interchange first. */
class LostRace extends Error {}

/** Wharf's answer to an interchange: numbered from the partner's control numbers, in the interchange's own delimiters. */
async function answerInterchange(
  trx: Trx,
  cx: CommandContext,
  { partner, own, header, format }: { partner: Partner; own: OwnParty; header: InterchangeHeader; format: Required<X12WriteFormat> },
  acknowledgments: X12Segment[],
  groups: GroupAcknowledgment[],
): Promise<string> {
  const counts = { groups: groups.length, sets: groups.length };
  const numbers = await repo.takeControlNumbers(trx, partner, counts);
  return buildInterchange(
    {
      sender: own,
      receiver: { qualifier: partner.qualifier, id: partner.partnerId },
      controlNumber: numbers.interchange,
      at: cx.clock.now(),
      timeZone: 'UTC',
      usage: header.usage === 'P' ? 'P' : 'T',
      acknowledgments: writableAcknowledgments(acknowledgments, format.delimiters),
      // One 997 per functional group received.
      groups: groups.map((group, index) => ({
        functionalId: 'FA',
        senderCode: own.gsId,
        receiverCode: partner.gsId,
        controlNumber: controlNumberAfter(numbers.group, index),
        sets: [
          {
            id: '997',
            controlNumber: controlNumberAfter(numbers.set, index),
            segments: writableAcknowledgments(functionalAcknowledgment(group), format.delimiters),
          },
        ],
      })),
    },
    format,
  );
}

interface Partner extends repo.PartnerKey {
  customerId: string;
  gsId: string;
}

/** The sender of the interchange, a partner of one of the key's customers; 403 otherwise, naming no other customer. */
async function partnerOf(cx: CommandContext, header: InterchangeHeader): Promise<Partner> {
  const key = { companyId: cx.principal.companyId, qualifier: header.senderQualifier, partnerId: header.senderId };
  const row = await repo.findPartner(cx.db, key);
  const mayAct = row && (cx.principal.role === 'admin' || cx.principal.customerIds.includes(row.customer_id));
  if (!row || !mayAct) {
    throw forbidden(`Interchange sender ${header.senderQualifier}/${header.senderId} is not a trading partner of this API key's customers`);
  }
  return { ...key, customerId: row.customer_id, gsId: row.gs_id };
}

/** The 997's segments follow the interchange's own layout: one a line when it had one a line. */
function lineBreakAfterSegments(text: string, delimiters: X12Delimiters): string {
  if (delimiters.segment === '\n' || delimiters.segment === '\r') return '';
  if (text.includes(`${delimiters.segment}\r\n`)) return '\r\n';
  return text.includes(`${delimiters.segment}\n`) ? '\n' : '';
}

async function acknowledgeGroup(
  cx: CommandContext,
  authorize: Authorize,
  partner: Partner,
  interchange: X12Interchange,
  group: X12Group,
): Promise<GroupAcknowledgment> {
  const acknowledged: GroupAcknowledgment = {
    functionalId: group.functionalId,
    controlNumber: group.controlNumber,
    setsIncluded: group.trailer?.setCount ?? String(group.sets.length),
    setsReceived: group.sets.length,
    errors: group.problems.map((problem) => problem.code),
    sets: [],
  };
  const setId = SET_OF_GROUP[group.functionalId];
  if (acknowledged.errors.length === 0 && !setId) acknowledged.errors.push(GroupError.notSupported);
  if (acknowledged.errors.length > 0) return acknowledged;
  for (const set of group.sets) {
    const setKey = `x12 ${partner.qualifier}/${partner.partnerId} ${interchange.header.controlNumber} ${group.controlNumber} ${set.controlNumber}`;
    acknowledged.sets.push(await acknowledgeSet(cx, authorize, partner, set, setId!, setKey));
  }
  return acknowledged;
}

const rejected = (set: X12TransactionSet, errors: SetAcknowledgment['errors'], problems: PlacedProblem[] = []): SetAcknowledgment => ({
  setId: set.id,
  controlNumber: set.controlNumber,
  code: 'R',
  errors,
  problems,
});

/** What one set becomes: the command it stands for, run once, and its AK2 loop. */
async function acknowledgeSet(
  cx: CommandContext,
  authorize: Authorize,
  partner: Partner,
  set: X12TransactionSet,
  setId: string,
  setKey: string,
): Promise<SetAcknowledgment> {
  if (set.problems.length > 0) {
    const segments = set.problems.flatMap((problem) => (problem.segment ? [problem.segment] : []));
    return {
      ...rejected(
        set,
        set.problems.map((problem) => problem.code),
      ),
      segments,
    };
  }
  if (set.id !== setId) return rejected(set, [SetError.notSupported]);
  const document = readDocument(set, { companyId: partner.companyId, customerId: partner.customerId });
  const { reader } = document;
  if (reader.problems.length > 0) return rejected(set, [SetError.segmentsInError], reader.problems);

  const setCx: CommandContext = {
    ...cx,
    // Keyed by the partner, not the API key: the same set is applied once whichever key sends it.
    identity: {
      companyId: partner.companyId,
      keyId: 0,
      idempotencyKey: setKey,
      requestHash: sha256Hex(`X12 ${set.id}\n${JSON.stringify(document.body)}`),
    },
    onReplay: undefined,
  };
  const issues = findIssues(document.schema, document.body);
  if (issues.length > 0) {
    // The same failure ACK, with the same messages, that a JSON body refused by its schema gets.
    const messages = formatValidationErrors(issues, 'body', explainFormatFailure);
    await acknowledgeRejectedBody(setCx, authorize, document.rule, document.body, invalid(...messages));
    return rejected(
      set,
      [SetError.segmentsInError],
      issues.flatMap((issue) => placeIssue(reader, issue)),
    );
  }
  try {
    const facility = await authorize.check(cx.principal, document.body, ROLES_OF.customer);
    const status = await document.run({ ...setCx, facility });
    return { setId: set.id, controlNumber: set.controlNumber, code: status === 'Warning' ? 'E' : 'A', errors: [], problems: [] };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const problems = error.messages.flatMap((message) => {
      // The one refusal that names its field in no message: the FacilityID names no facility.
      const source = error.kind === 'unknown-facility' ? reader.sources.get('FacilityID') : reader.sources.sourceOf(message);
      return source ? [{ source, code: ElementError.invalidCode }] : [];
    });
    return rejected(set, [SetError.segmentsInError], problems);
  }
}

interface ReadDocument {
  reader: SetReader;
  body: unknown;
  schema: TSchema;
  rule: RejectedBodyRule;
  /** Runs the command; answers the ACK's status. */
  run(cx: CommandContext): Promise<string>;
}

function readDocument(set: X12TransactionSet, ids: { companyId: string; customerId: string }): ReadDocument {
  if (set.id === RECEIPT_ADVICE_SET) {
    const { body, reader } = readReceiptAdvice(set, ids);
    const run = async (cx: CommandContext) => (await importReceipt(cx, body)).Receipt.Status;
    return { reader, body, schema: ReceiptImportRequestSchema, rule: REJECTED_RECEIPT, run };
  }
  const order = readShippingOrder(set, ids);
  const [schema, run] =
    order.action === 'cancel'
      ? [OrderCancelRequestSchema, async (cx: CommandContext) => (await cancelOrderByCustomer(cx, order.body)).Order.Status]
      : [OrderImportRequestSchema, async (cx: CommandContext) => (await importOrder(cx, order.body)).Order.Status];
  return { reader: order.reader, body: order.body, schema, rule: REJECTED_ORDER, run };
}

/** AK4-03 for each way a field can fail its schema. */
const ELEMENT_ERROR_OF: Record<string, string> = {
  required: ElementError.mandatoryMissing,
  minLength: ElementError.tooShort,
  maxLength: ElementError.tooLong,
  enum: ElementError.invalidCode,
  const: ElementError.invalidCode,
  format: ElementError.invalidDate,
  minItems: ElementError.mandatoryMissing,
};

/** A schema problem of the body, on the element its field came from, with the message the JSON API gives. */
function placeIssue(reader: SetReader, issue: ValidationIssue): PlacedProblem[] {
  const [message] = formatValidationErrors([issue], 'body', explainFormatFailure);
  if (!message) return [];
  const source = reader.sources.sourceOf(message);
  if (!source) return [];
  // A field required only with or without another is a conditional element (723 code 2).
  const conditional = issue.keyword === 'required' && issue.parentSchema?.['x-message'] !== undefined;
  return [
    { source, code: conditional ? ElementError.conditionalMissing : (ELEMENT_ERROR_OF[issue.keyword] ?? ElementError.invalidCharacter) },
  ];
}
