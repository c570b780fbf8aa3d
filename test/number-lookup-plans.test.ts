import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import * as acks from '../src/modules/acks/acks.repository.js';
import * as orderSearches from '../src/modules/orders/order-searches.repository.js';
import * as orders from '../src/modules/orders/orders.repository.js';
import * as receiptSearches from '../src/modules/receipts/receipt-searches.repository.js';
import * as receipts from '../src/modules/receipts/receipts.repository.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { sentBy } from './helpers/recording-db.js';

/**
 * A search narrowed to a PONo or ReferenceNo finds its few documents through the number's index,
 * for its totalCount and for its page, on either database and without statistics
 * (migration 2026-12-08T1102-number-lookup-indexes, db/keyset.ts timeOrder): it never walks the
 * index of its scope in time order, which would read every document of the customer to find one.
 */

const scope = { companyId: 'CO', customerId: 'CU', facilityId: 'F1' };
const slice = { offset: 0, limit: 100 };

type Lookup = [name: string, run: (db: Db) => Promise<unknown>, index: string, timeIndex: string];

const lookups = (number: { poNo: string } | { referenceNo: string }, suffix: 'po' | 'reference'): Lookup[] => [
  [
    'DN header',
    (db) => orderSearches.pageOrderHeaders(db, { ...scope, ...number }, slice),
    `orders_facility_${suffix}_idx`,
    'orders_updated_svcpoid_idx',
  ],
  [
    'DN header count',
    (db) => orderSearches.countOrderHeaders(db, { ...scope, ...number }),
    `orders_facility_${suffix}_idx`,
    'orders_updated_svcpoid_idx',
  ],
  [
    'RN header',
    (db) => receiptSearches.pageReceiptHeaders(db, { ...scope, ...number }, slice),
    `receipts_facility_${suffix}_idx`,
    'receipts_updated_svcpoid_idx',
  ],
  [
    '3PL order list without a customer',
    (db) => orders.pageOrders(db, { companyId: 'CO', facilityId: 'F1', ...number }, slice),
    `orders_facility_${suffix}_idx`,
    'orders_updated_svcpoid_idx',
  ],
  [
    '3PL receipt list',
    (db) => receipts.pageReceipts(db, { ...scope, ...number }, slice),
    `receipts_facility_${suffix}_idx`,
    'receipts_updated_svcpoid_idx',
  ],
  ['DN ACK', (db) => acks.pageAcks(db, { ...scope, documentType: 'DN', ...number }, slice), `acks_${suffix}_idx`, 'acks_search_idx'],
  ['RN ACK count', (db) => acks.countAcks(db, { ...scope, documentType: 'RN', ...number }), `acks_${suffix}_idx`, 'acks_search_idx'],
  [
    'DC',
    (db) => orderSearches.pageShipmentConfirmations(db, { ...scope, ...number }, slice),
    `order_confirmations_${suffix}_idx`,
    'order_confirmations_search_idx',
  ],
  [
    'RC',
    (db) => receiptSearches.pageConfirmations(db, { ...scope, ...number }, slice),
    `receipt_confirmations_${suffix}_idx`,
    'receipt_confirmations_search_idx',
  ],
];

describeEachDialect('the searches narrowed to a document number', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });

  afterAll(() => database.destroy());

  /** The plan of the statement `run` sends; PostgreSQL plans its empty tables as if they were not, with scans off. */
  async function planOf(run: (db: Db) => Promise<unknown>): Promise<string> {
    // The recording database answers no rows: a count's read of its one row fails after it was sent.
    const [sent] = await sentBy(dialect, (db) => run(db).catch(() => undefined));
    const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    return database.db.transaction().execute(async (trx) => {
      if (dialect === 'postgres') await sql`set local enable_seqscan = off`.execute(trx);
      const { rows } = await trx.executeQuery<Record<string, string>>(CompiledQuery.raw(explain + sent!.sql, [...sent!.parameters]));
      return rows.map((row) => row.detail ?? row['QUERY PLAN']).join('\n');
    });
  }

  /**
   * SQLite picks the number's own index. PostgreSQL's empty, unanalysed tables give it no reason to
   * prefer the PONo index over the ReferenceNo one (both estimate one row), so there it must pick one
   * of the two number indexes; with statistics it picks the number's own, as bench:scale measures.
   */
  async function expectNumberIndex([name, run, index, timeIndex]: Lookup): Promise<void> {
    const plan = await planOf(run);
    if (dialect === 'sqlite') expect(plan, name).toContain(index);
    else expect(plan, name).toMatch(new RegExp(index.replace(/_(po|reference)_idx$/, '_(po|reference)_idx')));
    expect(plan, name).not.toContain(timeIndex);
  }

  it('finds a PONo through the PONo index of its scope', async () => {
    for (const lookup of lookups({ poNo: 'P-1' }, 'po')) await expectNumberIndex(lookup);
  });

  it('finds a ReferenceNo through the ReferenceNo index of its scope', async () => {
    for (const lookup of lookups({ referenceNo: 'R-1' }, 'reference')) await expectNumberIndex(lookup);
  });
});
