import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compiledOnce } from '../../src/db/compiled-queries.js';
import type { Db } from '../../src/db/database.js';
import { numberAhead, type DialectName } from '../../src/db/dialect.js';
import * as acks from '../../src/modules/acks/acks.repository.js';
import * as idempotency from '../../src/modules/commands/idempotency.repository.js';
import * as events from '../../src/modules/events/events.repository.js';
import * as adjustments from '../../src/modules/inventory/adjustments.repository.js';
import * as inventory from '../../src/modules/inventory/inventory.repository.js';
import * as items from '../../src/modules/items/items.repository.js';
import * as orders from '../../src/modules/orders/orders.repository.js';
import * as receipts from '../../src/modules/receipts/receipts.repository.js';
import { BALANCE_KEY, recordingDb, sentBy } from '../helpers/recording-db.js';

/**
 * compiledOnce keeps a query's compiled SQL per database and shape of its parameters and binds each
 * call's values: every call must send exactly what Kysely would compile for it afresh.
 */

const DIALECTS: DialectName[] = ['sqlite', 'postgres'];

interface Filter {
  companyId: string;
  customerId?: string;
  itemIds: string[];
  lock: boolean;
}

/** A query with every kind of shape: an optional key, an IN list, a flag, and a literal. */
function buildItemsQuery(db: Db, filter: Filter) {
  const query = db
    .selectFrom('items')
    .select('item_id')
    .where('company_id', '=', filter.companyId)
    .where('status', '<>', sql.lit('Inactive'))
    .$if(filter.customerId !== undefined, (q) => q.where('customer_id', '=', filter.customerId!))
    .where('item_id', 'in', filter.itemIds);
  return filter.lock ? query.forUpdate() : query;
}

describe.each(DIALECTS)('compiledOnce on %s', (dialect) => {
  const fresh = async (filter: Filter) => (await sentBy(dialect, (db) => buildItemsQuery(db, filter).execute()))[0]!;

  it('builds a query once per shape and binds every later call’s values, sending what Kysely compiles afresh', async () => {
    let builds = 0;
    const query = compiledOnce((db: Db, filter: Filter) => {
      builds += 1;
      return buildItemsQuery(db, filter);
    });
    const { db, sent } = recordingDb(dialect);
    const calls: Filter[] = [
      { companyId: 'CO', customerId: 'CU', itemIds: ['A', 'B'], lock: false },
      { companyId: 'CP', customerId: 'CV', itemIds: ['C', 'D'], lock: false },
      { companyId: 'CQ', customerId: undefined, itemIds: ['E', 'F'], lock: false },
      { companyId: 'CR', customerId: 'CW', itemIds: ['G', 'H', 'I'], lock: false },
      { companyId: 'CS', customerId: 'CX', itemIds: ['J', 'K'], lock: true },
      { companyId: 'CT', customerId: 'CY', itemIds: ['L', 'M'], lock: false },
    ];
    for (const filter of calls) await query(db, filter);
    // The second and the last call reuse the first's SQL; each other call is a shape of its own.
    expect(builds).toBe(4);
    for (const [index, filter] of calls.entries()) expect(sent[index]).toEqual(await fresh(filter));
    expect(sent[1]!.sql).toBe(sent[0]!.sql);
    expect(sent[1]!.parameters).toEqual(['CP', 'CV', 'C', 'D']);
  });

  it('binds null and numbers at their places, and an array bound as one value element by element', async () => {
    const query = compiledOnce(
      (db: Db, values: { ids: string[]; at: number | null }) =>
        sql<{ n: number }>`select count(*) as n from unnest(${values.ids}::text[]) as id where ${values.at} is null`,
    );
    const { db, sent } = recordingDb(dialect);
    await query(db, { ids: ['A', 'B'], at: 5 });
    await query(db, { ids: ['C', 'D'], at: null });
    expect(sent.map((s) => s.parameters)).toEqual([
      [['A', 'B'], 5],
      [['C', 'D'], null],
    ]);
  });

  it('refuses a builder that passes a bound value where Kysely reads SQL (a column reference)', async () => {
    const query = compiledOnce((db: Db, filter: { column: string }) => db.selectFrom('items').select(filter.column as 'item_id'));
    const { db } = recordingDb(dialect);
    await expect(query(db, { column: 'item_id' })).rejects.toThrow();
  });
});

it('compiles once per database: SQLite and PostgreSQL each get their own SQL', async () => {
  const query = compiledOnce((db: Db, filter: Filter) => buildItemsQuery(db, filter));
  const filter = { companyId: 'CO', customerId: 'CU', itemIds: ['A'], lock: false };
  const sqlite = recordingDb('sqlite');
  const postgres = recordingDb('postgres');
  await query(sqlite.db, filter);
  await query(postgres.db, filter);
  expect(sqlite.sent[0]!.sql).toContain('"customer_id" = ?');
  expect(postgres.sent[0]!.sql).toContain('"customer_id" = $2');
});

/**
 * Every statement of the write path that compiles once, called twice on one database with other
 * values and shapes: each call sends exactly what the same call sends to a fresh database.
 */
const KEY = BALANCE_KEY;
const ledgerRow = (itemId: string, quantity: number) => ({
  ...KEY,
  item_id: itemId,
  quantity,
  on_hand_after: quantity,
  source_type: 'adjustment',
  source_id: `ADJ-${itemId}`,
  source_line: '1',
  key_id: 3,
  created_at: 1_700_000_000_000 + quantity,
});
const receiptRow = (svcpoid: string, referenceNo: string | null) => ({
  company_id: 'CO',
  svcpoid,
  customer_id: 'CU',
  facility_id: 'F1',
  po_no: `PO-${svcpoid}`,
  reference_no: referenceNo,
  status: 'Imported',
  receipt_type: 'Regular Receipt',
  supplier_id: null,
  carrier_name: null,
  scac_code: null,
  bol_no: null,
  container_no: null,
  scheduled_at: null,
  document: `{"PONo":"PO-${svcpoid}"}`,
  created_at: 1,
  created_by_key_id: 2,
  updated_at: 1,
  updated_by_key_id: 2,
});
const receiptLine = (svcpoid: string, lineNo: number) => ({
  company_id: 'CO',
  svcpoid,
  line_no: lineNo,
  po_line_no: lineNo === 1 ? null : lineNo,
  item_id: `I-${lineNo}`,
  uom: 'EA',
  lot_no: '',
  goods_type: '',
  title_id: '',
  expected_qty: lineNo * 10_000,
});
const ackRow = (poNo: string | null) => ({
  company_id: 'CO',
  document_type: 'RN',
  customer_id: 'CU',
  facility_id: 'F1',
  po_no: poNo,
  reference_no: null,
  reference_no_type: null,
  key_id: 2,
  created_at: 5,
  svcpoid: 'RN-1',
  status: 'Success',
  error: null,
  failure_code: null,
  failure_error: null,
});

const adjustmentRow = (adjustmentNo: string, note: string | null) => ({
  company_id: 'CO',
  facility_id: 'F1',
  customer_id: 'CU',
  adjustment_no: adjustmentNo,
  kind: 'qty',
  reason_code: null,
  note,
  request_hash: `hash-${adjustmentNo}`,
  answer: '',
  key_id: 2,
  created_at: 5,
});

/** A row of any table for an insert: the recording database checks no columns. */
const row = (columns: Record<string, unknown>) => ({ company_id: 'CO', ...columns }) as never;

const statements: [string, (db: Db) => Promise<unknown>, (db: Db) => Promise<unknown>][] = [
  [
    'findLive',
    (db) => receipts.findLive(db, { companyId: 'CO', customerId: 'CU', facilityId: 'F1', poNo: 'P1' }, { lock: true }),
    (db) => receipts.findLive(db, { companyId: 'CP', customerId: 'CV', referenceNo: 'R2' }),
  ],
  [
    'findLiveForImport',
    (db) => receipts.findLiveForImport(db, { companyId: 'CO', customerId: 'CU', facilityId: 'F1', poNo: 'P1', referenceNo: 'R1' }),
    (db) => receipts.findLiveForImport(db, { companyId: 'CP', customerId: 'CV', facilityId: 'F2', poNo: 'P2', referenceNo: 'R2' }),
  ],
  [
    'insertReceipt',
    // The recording database answers no rows: the SVCPOID read back (PostgreSQL) or the counter (SQLite) fails the call once sent.
    (db) => receipts.insertReceipt(db, receiptRow('RN-1', 'R1')).catch(() => ''),
    (db) => receipts.insertReceipt(db, receiptRow('RN-2', null)).catch(() => ''),
  ],
  [
    'insertLines',
    (db) => receipts.insertLines(db, [receiptLine('RN-1', 1), receiptLine('RN-1', 2)]),
    (db) => receipts.insertLines(db, [receiptLine('RN-2', 3), receiptLine('RN-2', 4), receiptLine('RN-2', 1)]),
  ],
  ['insertAck', (db) => acks.insertAck(db, ackRow('P1')), (db) => acks.insertAck(db, ackRow(null))],
  [
    'events.insertEvents',
    (db) => events.insertEvents(db, [row({ event_id: 'evt_1', data: '{}' }), row({ event_id: 'evt_2', data: '[]' })]),
    (db) => events.insertEvents(db, [row({ event_id: 'evt_3', data: '{}' })]),
  ],
  [
    'findKnownItemIds',
    (db) => items.findKnownItemIds(db, 'CO', 'CU', ['A', 'B']),
    (db) => items.findKnownItemIds(db, 'CP', 'CV', ['C', 'D']),
  ],
  [
    'numberAhead',
    (db) =>
      numberAhead(db, { prefix: 'RN-', sequence: 'receipt_svcpoid_seq' })
        .then((next) => next())
        .catch(() => ''),
    (db) =>
      numberAhead(db, { prefix: 'DN-', sequence: 'order_svcpoid_seq' })
        .then((next) => next())
        .catch(() => ''),
  ],
  [
    'findAdjustment',
    (db) => adjustments.findAdjustment(db, { companyId: 'CO', facilityId: 'F1', customerId: 'CU', adjustmentNo: 'A1' }),
    (db) => adjustments.findAdjustment(db, { companyId: 'CP', facilityId: 'F2', customerId: 'CV', adjustmentNo: 'A2' }),
  ],
  [
    'claimNumber',
    (db) => adjustments.claimNumber(db, adjustmentRow('A1', null)),
    (db) => adjustments.claimNumber(db, adjustmentRow('A2', 'Cycle count')),
  ],
  [
    'insertNumber',
    (db) => adjustments.insertNumber(db, adjustmentRow('A1', null)),
    (db) => adjustments.insertNumber(db, adjustmentRow('A2', 'Cycle count')),
  ],
  [
    'setAnswer',
    (db) => adjustments.setAnswer(db, { companyId: 'CO', facilityId: 'F1', customerId: 'CU', adjustmentNo: 'A1' }, '{}'),
    (db) => adjustments.setAnswer(db, { companyId: 'CP', facilityId: 'F2', customerId: 'CV', adjustmentNo: 'A2' }, '[]'),
  ],
  [
    'increaseBalances',
    (db) => inventory.increaseBalances(db, [{ key: KEY, quantity: 5, fromAllocated: 0 }], 100, 7),
    (db) => inventory.increaseBalances(db, [{ key: { ...KEY, item_id: 'B-2' }, quantity: 6, fromAllocated: 0 }], 200, 8),
  ],
  [
    'decreaseBalances',
    (db) => inventory.decreaseBalances(db, [{ key: KEY, quantity: -5, fromAllocated: 1 }], 7),
    (db) => inventory.decreaseBalances(db, [{ key: { ...KEY, lot_no: 'L9' }, quantity: -6, fromAllocated: 0 }], 8),
  ],
  [
    'insertLedgerRows',
    (db) => inventory.insertLedgerRows(db, [ledgerRow('A', 1)]),
    (db) => inventory.insertLedgerRows(db, [ledgerRow('B', 2), ledgerRow('C', 3)]),
  ],
  [
    'findWaitingLines',
    (db) =>
      orders.findWaitingLines(db, {
        companyId: 'CO',
        customerId: 'CU',
        facilityId: 'F1',
        items: [{ itemId: 'A', uom: 'EA' }],
      }),
    (db) =>
      orders.findWaitingLines(db, {
        companyId: 'CP',
        customerId: 'CV',
        facilityId: 'F2',
        items: [
          { itemId: 'B', uom: 'CS' },
          { itemId: 'C', uom: 'EA' },
        ],
      }),
  ],
  [
    'orders.findLive',
    (db) => orders.findLive(db, { companyId: 'CO', customerId: 'CU', referenceNo: 'R1' }, { lock: true }),
    (db) => orders.findLive(db, { companyId: 'CP', customerId: 'CV', facilityId: 'F2', poNo: 'P2' }),
  ],
  [
    'orders.findOrder',
    (db) => orders.findOrder(db, { companyId: 'CO', svcpoid: 'DN-1' }, { lock: true }),
    (db) => orders.findOrder(db, { companyId: 'CP', svcpoid: 'DN-2' }),
  ],
  [
    'orders.insertOrder',
    (db) => orders.insertOrder(db, row({ reference_no: 'R1' })).catch(() => ''),
    (db) => orders.insertOrder(db, row({ reference_no: null })).catch(() => ''),
  ],
  [
    'orders.updateOrder',
    (db) => orders.updateOrder(db, { companyId: 'CO', svcpoid: 'DN-1' }, { status: 'Open', updated_at: 5 }),
    (db) => orders.updateOrder(db, { companyId: 'CP', svcpoid: 'DN-2' }, { status: 'Cancelled', updated_at: 6 }),
  ],
  [
    'orders.moveStatus',
    (db) => orders.moveStatus(db, { companyId: 'CO', svcpoid: 'DN-1' }, ['Imported'], 'Open', 5, 2),
    (db) => orders.moveStatus(db, { companyId: 'CP', svcpoid: 'DN-2' }, ['Imported', 'Open'], 'Cancelled', 6, 3),
  ],
  [
    'orders.insertEvent',
    (db) => orders.insertEvent(db, row({ svcpoid: 'DN-1', note: null })),
    (db) => orders.insertEvent(db, row({ svcpoid: 'DN-2', note: 'late' })),
  ],
  [
    'orders.findLines',
    (db) => orders.findLines(db, { companyId: 'CO', svcpoid: 'DN-1' }),
    (db) => orders.findLines(db, { companyId: 'CP', svcpoid: 'DN-2' }),
  ],
  [
    'orders.insertLines',
    (db) => orders.insertLines(db, [row({ line_no: 1 })]),
    (db) => orders.insertLines(db, [row({ line_no: 2 }), row({ line_no: 3 })]),
  ],
  [
    'orders.addShippedQuantity',
    (db) => orders.addShippedQuantity(db, { companyId: 'CO', svcpoid: 'DN-1' }, 1, 5),
    (db) => orders.addShippedQuantity(db, { companyId: 'CP', svcpoid: 'DN-2' }, 2, 6),
  ],
  [
    'orders.findAllocations',
    (db) => orders.findAllocations(db, { companyId: 'CO', svcpoid: 'DN-1' }),
    (db) => orders.findAllocations(db, { companyId: 'CP', svcpoid: 'DN-2' }),
  ],
  [
    'orders.addAllocations',
    (db) => orders.addAllocations(db, [row({ ...KEY, svcpoid: 'DN-1', line_no: 1, quantity: 5 })]),
    (db) => orders.addAllocations(db, [row({ ...KEY, svcpoid: 'DN-2', line_no: 2, quantity: 6 })]),
  ],
  [
    'orders.insertShortages',
    (db) =>
      orders.insertShortages(db, [
        row({ svcpoid: 'DN-1', line_no: 1, customer_id: 'CU', facility_id: 'F1', item_id: 'A', uom: 'EA', order_created_at: 5 }),
      ]),
    (db) =>
      orders.insertShortages(db, [
        row({ svcpoid: 'DN-2', line_no: 1, customer_id: 'CU', facility_id: 'F1', item_id: 'A', uom: 'EA', order_created_at: 6 }),
        row({ svcpoid: 'DN-2', line_no: 2, customer_id: 'CU', facility_id: 'F1', item_id: 'A', uom: 'EA', order_created_at: 6 }),
      ]),
  ],
  [
    'orders.deleteShortage',
    (db) => orders.deleteShortage(db, { companyId: 'CO', svcpoid: 'DN-1' }, 1),
    (db) => orders.deleteShortage(db, { companyId: 'CP', svcpoid: 'DN-2' }, 2),
  ],
  [
    'orders.deleteShortages',
    (db) => orders.deleteShortages(db, { companyId: 'CO', svcpoid: 'DN-1' }),
    (db) => orders.deleteShortages(db, { companyId: 'CP', svcpoid: 'DN-2' }),
  ],
  [
    'inventory.findAllocatableBalances',
    (db) =>
      inventory.findAllocatableBalances(db, {
        companyId: 'CO',
        customerId: 'CU',
        facilityId: 'F1',
        itemId: 'A',
        uom: 'EA',
        inventoryStatus: 'Available',
        lotNo: 'L1',
      }),
    (db) =>
      inventory.findAllocatableBalances(db, {
        companyId: 'CP',
        customerId: 'CV',
        facilityId: 'F2',
        itemId: 'B',
        uom: 'CS',
        inventoryStatus: 'Available',
      }),
  ],
  [
    'inventory.findAllocatableBalancesOfItems',
    (db) =>
      inventory.findAllocatableBalancesOfItems(db, {
        companyId: 'CO',
        customerId: 'CU',
        facilityId: 'F1',
        inventoryStatus: 'Available',
        itemIds: ['A', 'B'],
        uoms: ['EA'],
      }),
    (db) =>
      inventory.findAllocatableBalancesOfItems(db, {
        companyId: 'CP',
        customerId: 'CV',
        facilityId: 'F2',
        inventoryStatus: 'Available',
        itemIds: ['C'],
        uoms: ['CS', 'EA'],
      }),
  ],
  [
    'inventory.allocateFromBalance',
    (db) => inventory.allocateFromBalance(db, KEY, 5, 7),
    (db) => inventory.allocateFromBalance(db, { ...KEY, item_id: 'B' }, 6, 8),
  ],
  [
    'inventory.releaseFromBalance',
    (db) => inventory.releaseFromBalance(db, KEY, 5, 7),
    (db) => inventory.releaseFromBalance(db, { ...KEY, item_id: 'B' }, 6, 8),
  ],
  [
    'receipts.updateReceipt',
    (db) => receipts.updateReceipt(db, { companyId: 'CO', svcpoid: 'RN-1' }, { status: 'Open' }),
    (db) => receipts.updateReceipt(db, { companyId: 'CP', svcpoid: 'RN-2' }, { status: 'Imported', reference_no: null }),
  ],
  [
    'receipts.insertEvent',
    (db) => receipts.insertEvent(db, row({ svcpoid: 'RN-1', note: null })),
    (db) => receipts.insertEvent(db, row({ svcpoid: 'RN-2', note: 'n' })),
  ],
  ['receipts.findReceipt', (db) => receipts.findReceipt(db, 'CO', 'RN-1', { lock: true }), (db) => receipts.findReceipt(db, 'CP', 'RN-2')],
  ['receipts.findLines', (db) => receipts.findLines(db, 'CO', 'RN-1'), (db) => receipts.findLines(db, 'CP', 'RN-2')],
  [
    'receipts.moveStatus',
    (db) => receipts.moveStatus(db, { companyId: 'CO', svcpoid: 'RN-1' }, ['Imported'], 'Open', 5, 2),
    (db) => receipts.moveStatus(db, { companyId: 'CP', svcpoid: 'RN-2' }, ['Open'], 'Closed', 6, 3),
  ],
  [
    'receipts.addReceivedQuantity',
    (db) => receipts.addReceivedQuantity(db, { companyId: 'CO', svcpoid: 'RN-1' }, 1, 5),
    (db) => receipts.addReceivedQuantity(db, { companyId: 'CP', svcpoid: 'RN-2' }, 2, 6),
  ],
  [
    'receipts.findConfirmation',
    (db) => receipts.findConfirmation(db, { companyId: 'CO', svcpoid: 'RN-1', confirmationNo: 'C1' }),
    (db) => receipts.findConfirmation(db, { companyId: 'CP', svcpoid: 'RN-2', confirmationNo: 'C2' }),
  ],
  [
    'receipts.insertConfirmation',
    (db) => receipts.insertConfirmation(db, row({ svcpoid: 'RN-1', confirmation_no: 'C1' })),
    (db) => receipts.insertConfirmation(db, row({ svcpoid: 'RN-2', confirmation_no: 'C2' })),
  ],
  [
    'idempotency.findRecord',
    (db) => idempotency.findRecord(db, { companyId: 'CO', keyId: 1, idempotencyKey: 'K1' }),
    (db) => idempotency.findRecord(db, { companyId: 'CP', keyId: 2, idempotencyKey: 'K2' }),
  ],
  [
    'idempotency.insertRecord',
    (db) => idempotency.insertRecord(db, row({ idempotency_key: 'K1', refusal_kind: null })),
    (db) => idempotency.insertRecord(db, row({ idempotency_key: 'K2', refusal_kind: 'conflict' })),
  ],
];

describe.each(DIALECTS)('the write path’s statements on %s', (dialect) => {
  it.each(statements)('%s sends, called again with other values, what a fresh database gets', async (_name, first, second) => {
    const { db, sent } = recordingDb(dialect);
    await first(db);
    await second(db);
    expect(sent).toEqual([...(await sentBy(dialect, first)), ...(await sentBy(dialect, second))]);
  });
});
