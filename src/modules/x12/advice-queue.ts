/**
 * The advices a change owes X12 partners (docs/x12.md): for each receiving confirmation (944),
 * shipment confirmation (945) and adjustment (947) a transaction recorded, one interchange per
 * partner of its customer, queued in the outbox in the same transaction with an `x12.ready` event;
 * and the 846 a customer asks for. An advice whose data X12 cannot carry is queued as its problem.
 */
import { LRUCache } from 'lru-cache';
import { DateTime } from 'luxon';
import type { Trx } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { formatDecimal } from '../../lib/decimal.js';
import * as events from '../events/events.service.js';
import type { NewEvent } from '../events/events.service.js';
import * as inventory from '../inventory/inventory.service.js';
import { presentBalance } from '../inventory/inquiry.present.js';
import type { InventoryRow } from '../inventory/inquiry.schemas.js';
import { findShipmentConfirmation } from '../orders/order-searches.service.js';
import { findConfirmation } from '../receipts/receipt-searches.service.js';
import * as tenants from '../tenants/tenants.service.js';
import { ADVICE_FUNCTIONAL_IDS, build846, build944, build945, build947, type AdjustmentAdvice } from './advices.js';
import * as outbox from './outbox.repository.js';
import { ownParty } from './partners.service.js';
import * as partners from './partners.repository.js';
import type { X12Segment } from './x12-syntax.js';
import { buildInterchange, X12WriteError } from './x12-writer.js';

export type AdviceSet = keyof typeof ADVICE_FUNCTIONAL_IDS;

/** What one change tells a partner, before it is enveloped for each. */
interface Advice {
  setId: AdviceSet;
  companyId: string;
  customerId: string;
  facilityId: string;
  documentNo: string;
  /** The set's body; absent when X12 cannot carry the data (`problem` says why). */
  segments?: X12Segment[];
  problem?: string;
}

/** An advice as queued for one partner. */
export interface QueuedAdvice {
  OutboxID: number;
  Partner: string;
  Set: AdviceSet;
  ControlNumber: string | null;
  Problem: string | null;
}

/** Who the change was made by, and when. */
interface Change {
  at: number;
  keyId: number | null;
}

/** The events that owe partners an advice, and the set each is told in. */
const ADVISED: Partial<Record<NewEvent['type'], AdviceSet>> = {
  'receipt.received': '944',
  'order.shipped': '945',
  'inventory.adjusted': '947',
};

/**
 * The partners of a customer. Every confirmation and adjustment asks, so a server remembers the
 * answer for a second; a one-off process reads it in the change's transaction.
 */
export type PartnersOf = (trx: Trx, companyId: string, customerId: string) => Promise<partners.PartnerRow[]>;

export const partnersInTransaction: PartnersOf = (trx, companyId, customerId) =>
  partners.findPartnersOfCustomers(trx, companyId, [customerId]);

/**
 * The partners of a customer as a server asks: remembered for `ttlMs` of `clock` (docs/access.md's
 * second of trust in tenant facts), read in the asking change's transaction when not (on SQLite
 * that transaction holds the one connection).
 */
export function rememberedPartners(clock: Clock, ttlMs: number): PartnersOf {
  const remembered = new LRUCache<string, partners.PartnerRow[]>({
    max: 10_000,
    ttl: ttlMs,
    ttlResolution: 0,
    perf: { now: () => clock.now() },
  });
  return async (trx, companyId, customerId) => {
    const name = JSON.stringify([companyId, customerId]);
    const known = remembered.get(name);
    if (known) return known;
    const found = await partnersInTransaction(trx, companyId, customerId);
    remembered.set(name, found);
    return found;
  };
}

/**
 * Queues what the transaction's recorded changes owe the partners of their customers. A settle
 * step: it runs after the command, before the events are written, so its x12.ready events are
 * written with the others.
 */
export async function queueChangeAdvices(trx: Trx, change: Change, partnersOf: PartnersOf): Promise<void> {
  const owed = events.recordedEvents(trx).filter((event) => ADVISED[event.type] !== undefined);
  for (const event of owed) {
    const { CompanyID, CustomerID } = event.data;
    const found = await partnersOf(trx, CompanyID, CustomerID);
    if (found.length === 0) continue;
    const advice = await adviceOfEvent(trx, event);
    for (const partner of found) await queueAdvice(trx, partner, advice, change);
  }
}

/** The body of an event's advice, from what the change wrote (read in its own transaction). */
async function adviceOfEvent(trx: Trx, event: NewEvent): Promise<Advice> {
  const data = event.data as { CompanyID: string; CustomerID: string; FacilityID: string; [key: string]: unknown };
  const setId = ADVISED[event.type]!;
  const keys = { companyId: data.CompanyID, facilityId: data.FacilityID };
  const timeZone = await tenants.facilityTimeZone(trx, data.CompanyID, data.FacilityID);
  const base = { setId, companyId: data.CompanyID, customerId: data.CustomerID, facilityId: data.FacilityID };
  if (setId === '947') {
    const adjustmentNo = String(data.AdjustmentNo);
    const postings = await inventory.findLedger(trx, {
      companyId: data.CompanyID,
      sourceType: data.AdjustmentType === 'Property' ? 'property-move' : 'adjustment',
      sourceId: adjustmentNo,
    });
    const adjustment: AdjustmentAdvice = {
      AdjustmentNo: adjustmentNo,
      FacilityID: data.FacilityID,
      ReasonCode: (data.ReasonCode as string | null) ?? null,
      AdjustedAt: DateTime.fromMillis(event.at, { zone: 'utc' }).toISO()!,
      Lines: postings.map((posting) => ({
        ItemID: posting.itemId,
        UOM: posting.uom,
        ...(posting.lotNo !== '' ? { LotNo: posting.lotNo } : {}),
        Qty: formatDecimal(posting.quantity),
        InventoryStatus: posting.inventoryStatus,
      })),
    };
    return withBody({ ...base, documentNo: adjustmentNo }, () => build947(adjustment, { timeZone }));
  }
  const confirmation = { ...keys, svcpoid: String(data.SVCPOID), confirmationNo: String(data.ConfirmationNo) };
  const documentNo = `${confirmation.svcpoid}/${confirmation.confirmationNo}`;
  if (setId === '944') {
    const record = (await findConfirmation(trx, confirmation))!;
    return withBody({ ...base, documentNo }, () => build944(record, { timeZone }));
  }
  const record = (await findShipmentConfirmation(trx, confirmation))!;
  // A DC does not say how the goods travel: a tracking number means a parcel (U), else a motor carrier (M).
  const transportationMethod = record.DC.TrackingNo ? 'U' : 'M';
  return withBody({ ...base, documentNo }, () => build945(record, { timeZone, transportationMethod }));
}

/** The advice with its body, or with the reason X12 cannot carry it: a change never fails for its advice. */
function withBody(advice: Omit<Advice, 'segments' | 'problem'>, build: () => X12Segment[]): Advice {
  try {
    return { ...advice, segments: build() };
  } catch (error) {
    if (error instanceof X12WriteError) return { ...advice, problem: error.message };
    throw error;
  }
}

/**
 * Queues an 846 of the customer's balances in a facility for each of its partners; answers what
 * was queued (nothing when the customer has no partner).
 */
export async function queueInventoryAdvice(
  trx: Trx,
  key: { companyId: string; customerId: string; facilityId: string },
  change: Change,
): Promise<QueuedAdvice[]> {
  const found = await partners.findPartnersOfCustomers(trx, key.companyId, [key.customerId]);
  if (found.length === 0) return [];
  const timeZone = await tenants.facilityTimeZone(trx, key.companyId, key.facilityId);
  const rows = await allBalances(trx, key);
  const referenceId = `${key.facilityId}-${DateTime.fromMillis(change.at, { zone: timeZone }).toFormat('yyyyMMddHHmmss')}`;
  const advice = withBody({ setId: '846', ...key, documentNo: referenceId }, () =>
    build846(rows, { timeZone, at: change.at, referenceId, facilityId: key.facilityId }),
  );
  const queued: QueuedAdvice[] = [];
  for (const partner of found) queued.push(await queueAdvice(trx, partner, advice, change));
  return queued;
}

/** Every balance of the customer in the facility with something on hand, in key order. */
async function allBalances(trx: Trx, key: { companyId: string; customerId: string; facilityId: string }): Promise<InventoryRow[]> {
  const rows: InventoryRow[] = [];
  const pageSize = 1000;
  for (let offset = 0; ; offset += pageSize) {
    const page = await inventory.findBalances(trx, key, { offset, pageSize });
    rows.push(...page.map((balance) => presentBalance(balance, balance)));
    if (page.length < pageSize) return rows;
  }
}

/** Envelopes the advice for the partner with its next control numbers, queues it, and tells an x12.ready event. */
async function queueAdvice(trx: Trx, partner: partners.PartnerRow, advice: Advice, change: Change): Promise<QueuedAdvice> {
  const key = { companyId: partner.company_id, qualifier: partner.qualifier, partnerId: partner.partner_id };
  let controlNo: string | null = null;
  let interchange: string | null = null;
  if (advice.segments) {
    const numbers = await partners.takeControlNumbers(trx, key, { groups: 1, sets: 1 });
    const own = await ownParty(trx, partner.company_id);
    controlNo = String(numbers.interchange).padStart(9, '0');
    interchange = buildInterchange(
      {
        sender: own,
        receiver: { qualifier: partner.qualifier, id: partner.partner_id },
        controlNumber: numbers.interchange,
        at: change.at,
        timeZone: 'UTC',
        groups: [
          {
            functionalId: ADVICE_FUNCTIONAL_IDS[advice.setId],
            senderCode: own.gsId,
            receiverCode: partner.gs_id,
            controlNumber: numbers.group,
            sets: [{ id: advice.setId, controlNumber: numbers.set, segments: advice.segments }],
          },
        ],
      },
      { afterSegment: '\n' },
    );
  }
  const problem = advice.problem ?? null;
  const id = await outbox.insertAdvice(trx, {
    company_id: advice.companyId,
    customer_id: advice.customerId,
    facility_id: advice.facilityId,
    qualifier: partner.qualifier,
    partner_id: partner.partner_id,
    set_id: advice.setId,
    document_no: advice.documentNo,
    control_no: controlNo,
    interchange,
    problem,
    created_at: change.at,
    taken_at: null,
  });
  const queued: QueuedAdvice = {
    OutboxID: id,
    Partner: `${partner.qualifier}/${partner.partner_id}`,
    Set: advice.setId,
    ControlNumber: controlNo,
    Problem: problem,
  };
  events.recordEvent(trx, {
    type: 'x12.ready',
    keyId: change.keyId,
    at: change.at,
    data: {
      CompanyID: advice.companyId,
      CustomerID: advice.customerId,
      FacilityID: advice.facilityId,
      DocumentNo: advice.documentNo,
      ...queued,
    },
  });
  return queued;
}
