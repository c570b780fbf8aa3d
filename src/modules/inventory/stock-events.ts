import type { Trx } from '../../db/database.js';
import { asScaled } from '../../lib/decimal.js';
import * as events from '../events/events.service.js';
import { balanceKeyOf, compareBalanceColumns, DEFAULT_INVENTORY_STATUS } from './balance-keys.js';
import { presentBalance } from './inquiry.present.js';
import type { ChangedBalance } from './inventory.repository.js';
import type { InventoryRow } from './inquiry.schemas.js';
import { takeChangedBalances } from './transaction-stock.js';

/**
 * What a change of stock tells subscribers (docs/webhooks.md): one `inventory.changed` event per
 * transaction and customer in a facility, listing every balance it changed as it now stands, as the
 * inventory search shows it; at most 100 balances an event, split beyond.
 */

const MAX_BALANCES_PER_EVENT = 100;
/**
 * What an event's balances may take of its payload: the rest (type, time, three ids of at most 15
 * characters, a Sequence of at most 16 digits) stays under 400 bytes. 100 balances take 17 KB with
 * short keys and 34 KB with every key at its longest, so the size cuts too.
 */
const MAX_BALANCES_BYTES = events.MAX_PAYLOAD_BYTES - 1024;

function rowOf(balance: ChangedBalance): InventoryRow {
  const key = balanceKeyOf(balance);
  const onHand = asScaled(balance.on_hand);
  const allocated = asScaled(balance.allocated);
  const available = asScaled(key.inventoryStatus === DEFAULT_INVENTORY_STATUS ? onHand - allocated : 0);
  return presentBalance(key, { onHand, allocated, available });
}

/** The rows cut into events' worth: at most 100, and MAX_BALANCES_BYTES of JSON, each. */
function eventsWorth(rows: InventoryRow[]): InventoryRow[][] {
  const chunks: InventoryRow[][] = [];
  let chunk: InventoryRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = Buffer.byteLength(JSON.stringify(row)) + 1;
    if (chunk.length === MAX_BALANCES_PER_EVENT || (chunk.length > 0 && bytes + size > MAX_BALANCES_BYTES)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(row);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

const sameScope = (a: ChangedBalance, b: ChangedBalance) =>
  a.company_id === b.company_id && a.customer_id === b.customer_id && a.facility_id === b.facility_id;

/** Records the inventory.changed events of what the transaction changed so far (run last, by settle). */
export function recordStockChanges(trx: Trx, change: { keyId: number; at: number }): void {
  // By scope and key: each scope's balances together, in the order its event lists them.
  const changed = takeChangedBalances(trx).sort(compareBalanceColumns);
  for (let start = 0, end = 0; start < changed.length; start = end) {
    while (end < changed.length && sameScope(changed[start]!, changed[end]!)) end++;
    recordScopeChanges(trx, change, changed.slice(start, end));
  }
}

/** The inventory.changed events of one scope's balances, in key order. */
function recordScopeChanges(trx: Trx, change: { keyId: number; at: number }, balances: ChangedBalance[]): void {
  const { company_id, customer_id, facility_id } = balances[0]!;
  const rows = balances.map(rowOf);
  const whose = { CompanyID: company_id, CustomerID: customer_id, FacilityID: facility_id };
  const event = { type: 'inventory.changed' as const, keyId: change.keyId, at: change.at };
  // Most changes fit one event: its JSON is made once, to size it and to write it.
  if (rows.length <= MAX_BALANCES_PER_EVENT) {
    const data = { ...whose, Balances: rows };
    const json = JSON.stringify(data);
    if (events.utf8LengthAtMost(json, MAX_BALANCES_BYTES)) {
      events.recordEvent(trx, { ...event, data, json });
      return;
    }
  }
  for (const chunk of eventsWorth(rows)) events.recordEvent(trx, { ...event, data: { ...whose, Balances: chunk } });
}
