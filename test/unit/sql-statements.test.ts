import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import * as idempotency from '../../src/modules/commands/idempotency.repository.js';
import * as inventory from '../../src/modules/inventory/inventory.repository.js';
import * as items from '../../src/modules/items/items.repository.js';
import * as orders from '../../src/modules/orders/orders.repository.js';
import * as receipts from '../../src/modules/receipts/receipts.repository.js';
import { BALANCE_KEY, sentBy } from '../helpers/recording-db.js';

/**
 * The SQL of the statements on the write path, per dialect, as Kysely compiles them (in the style
 * of Kysely's own testSql): a change to one of them shows here, for review, before it reaches a
 * database. The repository functions run against a driver that never connects and answers no
 * rows; it records what they send.
 */

const KEY = BALANCE_KEY;
const OTHER_KEY = { ...KEY, lot_no: 'L2', expiration_date: '2027-01-31' };
const MAX = 999_999_999_999_999;

describe('balance changes', () => {
  const increases = (db: Db) =>
    inventory.increaseBalances(
      db,
      [
        { key: KEY, quantity: 30_000, fromAllocated: 0 },
        { key: OTHER_KEY, quantity: 2_500, fromAllocated: 0 },
      ],
      MAX,
      1_700_000_000_000,
    );
  const decreases = (db: Db) =>
    inventory.decreaseBalances(
      db,
      [
        { key: KEY, quantity: -30_000, fromAllocated: 10_000 },
        { key: OTHER_KEY, quantity: -2_500, fromAllocated: 0 },
      ],
      1_700_000_000_000,
    );

  it('increases several balances with one upsert, rows in the order given', async () => {
    expect(await sentBy('sqlite', increases)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            30000,
            0,
            1700000000000,
            1700000000000,
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L2",
            "",
            "",
            "Available",
            "2027-01-31",
            2500,
            0,
            1700000000000,
            1700000000000,
            999999999999999,
          ],
          "sql": "insert into "inventory_balances" ("company_id", "customer_id", "facility_id", "item_id", "uom", "lot_no", "goods_type", "title_id", "inventory_status", "expiration_date", "on_hand", "allocated", "first_received_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("company_id", "customer_id", "facility_id", "item_id", "uom", "lot_no", "goods_type", "title_id", "inventory_status", "expiration_date") do update set "on_hand" = "inventory_balances"."on_hand" + "excluded"."on_hand", "first_received_at" = coalesce("inventory_balances"."first_received_at", "excluded"."first_received_at"), "updated_at" = "excluded"."updated_at" where "inventory_balances"."on_hand" + "excluded"."on_hand" <= ? returning "company_id", "customer_id", "facility_id", "item_id", "uom", "lot_no", "goods_type", "title_id", "inventory_status", "expiration_date", "on_hand", "allocated"",
        },
      ]
    `);
    expect(await sentBy('postgres', increases)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            30000,
            0,
            1700000000000,
            1700000000000,
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L2",
            "",
            "",
            "Available",
            "2027-01-31",
            2500,
            0,
            1700000000000,
            1700000000000,
            999999999999999,
          ],
          "sql": "insert into "inventory_balances" ("company_id", "customer_id", "facility_id", "item_id", "uom", "lot_no", "goods_type", "title_id", "inventory_status", "expiration_date", "on_hand", "allocated", "first_received_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14), ($15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28) on conflict ("company_id", "customer_id", "facility_id", "item_id", "uom", "lot_no", "goods_type", "title_id", "inventory_status", "expiration_date") do update set "on_hand" = "inventory_balances"."on_hand" + "excluded"."on_hand", "first_received_at" = coalesce("inventory_balances"."first_received_at", "excluded"."first_received_at"), "updated_at" = "excluded"."updated_at" where "inventory_balances"."on_hand" + "excluded"."on_hand" <= $29 returning "company_id", "customer_id", "facility_id", "item_id", "uom", "lot_no", "goods_type", "title_id", "inventory_status", "expiration_date", "on_hand", "allocated"",
        },
      ]
    `);
  });

  it('decreases several balances with one conditional UPDATE … FROM VALUES; PostgreSQL locks the rows in VALUES order first', async () => {
    expect(await sentBy('sqlite', decreases)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            -30000,
            10000,
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L2",
            "",
            "",
            "Available",
            "2027-01-31",
            -2500,
            0,
            1700000000000,
          ],
          "sql": "with "balance_change"("ordinal", "company_id", "customer_id", "facility_id", "item_id", "uom", "lot_no", "goods_type", "title_id", "inventory_status", "expiration_date", "on_hand_change", "from_allocated") as (values (0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, cast(? as bigint), cast(? as bigint)), (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, cast(? as bigint), cast(? as bigint))) update "inventory_balances" set "on_hand" = "inventory_balances"."on_hand" + "c"."on_hand_change", "allocated" = "inventory_balances"."allocated" - "c"."from_allocated", "updated_at" = ? from "balance_change" as "c" where ("inventory_balances"."company_id" = "c"."company_id" and "inventory_balances"."customer_id" = "c"."customer_id" and "inventory_balances"."facility_id" = "c"."facility_id" and "inventory_balances"."item_id" = "c"."item_id" and "inventory_balances"."uom" = "c"."uom" and "inventory_balances"."lot_no" = "c"."lot_no" and "inventory_balances"."goods_type" = "c"."goods_type" and "inventory_balances"."title_id" = "c"."title_id" and "inventory_balances"."inventory_status" = "c"."inventory_status" and "inventory_balances"."expiration_date" = "c"."expiration_date" and "inventory_balances"."allocated" >= "c"."from_allocated" and "inventory_balances"."on_hand" + "c"."on_hand_change" >= "inventory_balances"."allocated" - "c"."from_allocated") returning "inventory_balances"."company_id", "inventory_balances"."customer_id", "inventory_balances"."facility_id", "inventory_balances"."item_id", "inventory_balances"."uom", "inventory_balances"."lot_no", "inventory_balances"."goods_type", "inventory_balances"."title_id", "inventory_balances"."inventory_status", "inventory_balances"."expiration_date", "inventory_balances"."on_hand", "inventory_balances"."allocated"",
        },
      ]
    `);
    expect(await sentBy('postgres', decreases)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            -30000,
            10000,
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L2",
            "",
            "",
            "Available",
            "2027-01-31",
            -2500,
            0,
            1700000000000,
          ],
          "sql": "with "balance_change"("ordinal", "company_id", "customer_id", "facility_id", "item_id", "uom", "lot_no", "goods_type", "title_id", "inventory_status", "expiration_date", "on_hand_change", "from_allocated") as (values (0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, cast($11 as bigint), cast($12 as bigint)), (1, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, cast($23 as bigint), cast($24 as bigint))) update "inventory_balances" set "on_hand" = "inventory_balances"."on_hand" + "c"."on_hand_change", "allocated" = "inventory_balances"."allocated" - "c"."from_allocated", "updated_at" = $25 from (select "l".* from "balance_change" as "l" inner join "inventory_balances" as "t" on "t"."company_id" = "l"."company_id" and "t"."customer_id" = "l"."customer_id" and "t"."facility_id" = "l"."facility_id" and "t"."item_id" = "l"."item_id" and "t"."uom" = "l"."uom" and "t"."lot_no" = "l"."lot_no" and "t"."goods_type" = "l"."goods_type" and "t"."title_id" = "l"."title_id" and "t"."inventory_status" = "l"."inventory_status" and "t"."expiration_date" = "l"."expiration_date" order by "l"."ordinal" for update of "t") as "c" where ("inventory_balances"."company_id" = "c"."company_id" and "inventory_balances"."customer_id" = "c"."customer_id" and "inventory_balances"."facility_id" = "c"."facility_id" and "inventory_balances"."item_id" = "c"."item_id" and "inventory_balances"."uom" = "c"."uom" and "inventory_balances"."lot_no" = "c"."lot_no" and "inventory_balances"."goods_type" = "c"."goods_type" and "inventory_balances"."title_id" = "c"."title_id" and "inventory_balances"."inventory_status" = "c"."inventory_status" and "inventory_balances"."expiration_date" = "c"."expiration_date" and "inventory_balances"."allocated" >= "c"."from_allocated" and "inventory_balances"."on_hand" + "c"."on_hand_change" >= "inventory_balances"."allocated" - "c"."from_allocated") returning "inventory_balances"."company_id", "inventory_balances"."customer_id", "inventory_balances"."facility_id", "inventory_balances"."item_id", "inventory_balances"."uom", "inventory_balances"."lot_no", "inventory_balances"."goods_type", "inventory_balances"."title_id", "inventory_balances"."inventory_status", "inventory_balances"."expiration_date", "inventory_balances"."on_hand", "inventory_balances"."allocated"",
        },
      ]
    `);
  });

  it('keeps the SQL text of a balance change the same for the same number of rows, whatever their values', async () => {
    const other = (db: Db) =>
      inventory.decreaseBalances(
        db,
        [
          { key: { ...KEY, item_id: 'Z-9' }, quantity: -1, fromAllocated: 1 },
          { key: { ...OTHER_KEY, uom: 'CS' }, quantity: -7, fromAllocated: 0 },
        ],
        1,
      );
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const [first] = await sentBy(dialect, decreases);
      const [second] = await sentBy(dialect, other);
      expect(second!.sql).toBe(first!.sql);
      expect(second!.parameters).not.toEqual(first!.parameters);
    }
  });

  it('allocates from and releases to one balance with one conditional UPDATE', async () => {
    const allocate = (db: Db) => inventory.allocateFromBalance(db, KEY, 20_000, 1_700_000_000_000);
    const release = (db: Db) => inventory.releaseFromBalance(db, KEY, 20_000, 1_700_000_000_000);
    expect(await sentBy('sqlite', allocate)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            20000,
            1700000000000,
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            20000,
          ],
          "sql": "update "inventory_balances" set "allocated" = "allocated" + ?, "updated_at" = ? where (("company_id" = ? and "customer_id" = ? and "facility_id" = ? and "item_id" = ? and "uom" = ? and "lot_no" = ? and "goods_type" = ? and "title_id" = ? and "inventory_status" = ? and "expiration_date" = ?) and "on_hand" - "allocated" >= ?) returning "on_hand", "allocated"",
        },
      ]
    `);
    expect(await sentBy('postgres', allocate)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            20000,
            1700000000000,
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            20000,
          ],
          "sql": "update "inventory_balances" set "allocated" = "allocated" + $1, "updated_at" = $2 where (("company_id" = $3 and "customer_id" = $4 and "facility_id" = $5 and "item_id" = $6 and "uom" = $7 and "lot_no" = $8 and "goods_type" = $9 and "title_id" = $10 and "inventory_status" = $11 and "expiration_date" = $12) and "on_hand" - "allocated" >= $13) returning "on_hand", "allocated"",
        },
      ]
    `);
    expect(await sentBy('sqlite', release)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            20000,
            1700000000000,
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            20000,
          ],
          "sql": "update "inventory_balances" set "allocated" = "allocated" - ?, "updated_at" = ? where (("company_id" = ? and "customer_id" = ? and "facility_id" = ? and "item_id" = ? and "uom" = ? and "lot_no" = ? and "goods_type" = ? and "title_id" = ? and "inventory_status" = ? and "expiration_date" = ?) and "allocated" >= ?) returning "on_hand", "allocated"",
        },
      ]
    `);
    expect(await sentBy('postgres', release)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            20000,
            1700000000000,
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            20000,
          ],
          "sql": "update "inventory_balances" set "allocated" = "allocated" - $1, "updated_at" = $2 where (("company_id" = $3 and "customer_id" = $4 and "facility_id" = $5 and "item_id" = $6 and "uom" = $7 and "lot_no" = $8 and "goods_type" = $9 and "title_id" = $10 and "inventory_status" = $11 and "expiration_date" = $12) and "allocated" >= $13) returning "on_hand", "allocated"",
        },
      ]
    `);
  });
});

describe('inserts of documents and their postings', () => {
  const ledgerRow = (quantity: number, onHandAfter: number, sourceLine: string) => ({
    ...KEY,
    quantity,
    on_hand_after: onHandAfter,
    source_type: 'receipt',
    source_id: 'RN-7',
    source_line: sourceLine,
    key_id: 3,
    created_at: 1_700_000_000_000,
  });

  it("writes a posting's ledger rows with one multi-row INSERT, and their count with one upsert", async () => {
    const insert = (db: Db) => inventory.insertLedgerRows(db, [ledgerRow(30_000, 30_000, 'C-1'), ledgerRow(10_000, 40_000, '2')]);
    expect(await sentBy('sqlite', insert)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            30000,
            30000,
            "receipt",
            "RN-7",
            "C-1",
            3,
            1700000000000,
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            10000,
            40000,
            "receipt",
            "RN-7",
            "2",
            3,
            1700000000000,
          ],
          "sql": "insert into "inventory_ledger" ("company_id", "customer_id", "facility_id", "item_id", "uom", "lot_no", "goods_type", "title_id", "inventory_status", "expiration_date", "quantity", "on_hand_after", "source_type", "source_id", "source_line", "key_id", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        },
        {
          "parameters": [
            "CO",
            "ledger",
            "F1",
            "CU",
            "",
            19675,
            2,
          ],
          "sql": "insert into "search_counts" ("company_id", "counted", "facility_id", "customer_id", "status", "day", "count") values (?, ?, ?, ?, ?, ?, ?) on conflict ("company_id", "counted", "facility_id", "customer_id", "status", "day") do update set "count" = "search_counts"."count" + "excluded"."count"",
        },
      ]
    `);
    expect(await sentBy('postgres', insert)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            30000,
            30000,
            "receipt",
            "RN-7",
            "C-1",
            3,
            1700000000000,
            "CO",
            "CU",
            "F1",
            "A-1",
            "EA",
            "L1",
            "",
            "",
            "Available",
            "",
            10000,
            40000,
            "receipt",
            "RN-7",
            "2",
            3,
            1700000000000,
          ],
          "sql": "insert into "inventory_ledger" ("company_id", "customer_id", "facility_id", "item_id", "uom", "lot_no", "goods_type", "title_id", "inventory_status", "expiration_date", "quantity", "on_hand_after", "source_type", "source_id", "source_line", "key_id", "created_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17), ($18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34)",
        },
        {
          "parameters": [
            "CO",
            "ledger",
            "F1",
            "CU",
            "",
            19675,
            2,
          ],
          "sql": "insert into "search_counts" ("company_id", "counted", "facility_id", "customer_id", "status", "day", "count") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("company_id", "counted", "facility_id", "customer_id", "status", "day") do update set "count" = "search_counts"."count" + "excluded"."count"",
        },
      ]
    `);
  });

  it("writes a receipt's lines with one multi-row INSERT", async () => {
    const line = (lineNo: number, itemId: string) => ({
      company_id: 'CO',
      svcpoid: 'RN-7',
      line_no: lineNo,
      po_line_no: null,
      item_id: itemId,
      uom: 'EA',
      lot_no: '',
      goods_type: '',
      title_id: '',
      expected_qty: 50_000,
    });
    const insert = (db: Db) => receipts.insertLines(db, [line(1, 'A-1'), line(2, 'B-2')]);
    expect(await sentBy('sqlite', insert)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            "RN-7",
            1,
            null,
            "A-1",
            "EA",
            "",
            "",
            "",
            50000,
            "CO",
            "RN-7",
            2,
            null,
            "B-2",
            "EA",
            "",
            "",
            "",
            50000,
          ],
          "sql": "insert into "receipt_lines" ("company_id", "svcpoid", "line_no", "po_line_no", "item_id", "uom", "lot_no", "goods_type", "title_id", "expected_qty") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        },
      ]
    `);
    expect(await sentBy('postgres', insert)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            "RN-7",
            1,
            null,
            "A-1",
            "EA",
            "",
            "",
            "",
            50000,
            "CO",
            "RN-7",
            2,
            null,
            "B-2",
            "EA",
            "",
            "",
            "",
            50000,
          ],
          "sql": "insert into "receipt_lines" ("company_id", "svcpoid", "line_no", "po_line_no", "item_id", "uom", "lot_no", "goods_type", "title_id", "expected_qty") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10), ($11, $12, $13, $14, $15, $16, $17, $18, $19, $20)",
        },
      ]
    `);
  });

  it('finds and stores an idempotency record by its key', async () => {
    const find = (db: Db) => idempotency.findRecord(db, { companyId: 'CO', keyId: 3, idempotencyKey: 'k-1' });
    const insert = (db: Db) =>
      idempotency.insertRecord(db, {
        company_id: 'CO',
        key_id: 3,
        idempotency_key: 'k-1',
        request_hash: 'ab12',
        refusal_kind: 'conflict',
        response_body: '["Receipt RN-1 is Closed"]',
        created_at: 1_700_000_000_000,
      });
    expect(await sentBy('sqlite', find)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            3,
            "k-1",
          ],
          "sql": "select * from "idempotency_records" where "company_id" = ? and "key_id" = ? and "idempotency_key" = ?",
        },
      ]
    `);
    expect(await sentBy('postgres', find)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            3,
            "k-1",
          ],
          "sql": "select * from "idempotency_records" where "company_id" = $1 and "key_id" = $2 and "idempotency_key" = $3",
        },
      ]
    `);
    expect(await sentBy('sqlite', insert)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            3,
            "k-1",
            "ab12",
            "conflict",
            "[\"Receipt RN-1 is Closed\"]",
            1700000000000,
          ],
          "sql": "insert into "idempotency_records" ("company_id", "key_id", "idempotency_key", "request_hash", "refusal_kind", "response_body", "created_at") values (?, ?, ?, ?, ?, ?, ?)",
        },
      ]
    `);
    expect(await sentBy('postgres', insert)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            3,
            "k-1",
            "ab12",
            "conflict",
            "[\"Receipt RN-1 is Closed\"]",
            1700000000000,
          ],
          "sql": "insert into "idempotency_records" ("company_id", "key_id", "idempotency_key", "request_hash", "refusal_kind", "response_body", "created_at") values ($1, $2, $3, $4, $5, $6, $7)",
        },
      ]
    `);
  });

  it('checks that items exist by their key alone', async () => {
    const known = (db: Db) => items.findKnownItemIds(db, 'CO', 'CU', ['A-1', 'B-2']);
    expect(await sentBy('sqlite', known)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            "CU",
            "A-1",
            "B-2",
          ],
          "sql": "select "item_id" from "items" where "company_id" = ? and "customer_id" = ? and "item_id" in (?, ?)",
        },
      ]
    `);
    expect(await sentBy('postgres', known)).toMatchInlineSnapshot(`
      [
        {
          "parameters": [
            "CO",
            "CU",
            "A-1",
            "B-2",
          ],
          "sql": "select "item_id" from "items" where "company_id" = $1 and "customer_id" = $2 and "item_id" in ($3, $4)",
        },
      ]
    `);
  });

  it('finds the lines waiting for freed items among the short lines only, and the live documents with literal statuses, which partial indexes need', async () => {
    const waiting = (db: Db) =>
      orders.findWaitingLines(db, {
        companyId: 'CO',
        customerId: 'CU',
        facilityId: 'F1',
        items: [
          { itemId: 'A-1', uom: 'EA' },
          { itemId: 'B-2', uom: 'EA' },
        ],
      });
    const [found] = await sentBy('sqlite', waiting);
    expect(found!.sql).toBe(
      'select "l".*, (select coalesce(sum("a"."quantity"), 0) as "held" from "order_allocations" as "a" where "a"."company_id" = "l"."company_id" and "a"."svcpoid" = "l"."svcpoid" and "a"."line_no" = "l"."line_no") as "allocated" from "order_line_shortages" as "s" cross join "order_lines" as "l" where "l"."company_id" = "s"."company_id" and "l"."svcpoid" = "s"."svcpoid" and "l"."line_no" = "s"."line_no" and "s"."company_id" = ? and "s"."customer_id" = ? and "s"."facility_id" = ? and "s"."item_id" in (?, ?) and "s"."uom" in (?) order by "s"."order_created_at", "s"."svcpoid", "s"."line_no"',
    );
    expect(found!.parameters).toEqual(['CO', 'CU', 'F1', 'A-1', 'B-2', 'EA']);
    const [live] = await sentBy('postgres', (db) => receipts.findLive(db, { companyId: 'CO', customerId: 'CU', poNo: 'P-1' }));
    expect(live!.sql).toBe(
      'select * from "receipts" where "company_id" = $1 and "customer_id" = $2 and "status" <> \'Cancelled\' and "po_no" = $3 order by "svcpoid"',
    );
    // An import's two numbers in one round trip, each term whole so that it seeks its own partial unique index.
    const [imported] = await sentBy('sqlite', (db) =>
      receipts.findLiveForImport(db, { companyId: 'CO', customerId: 'CU', facilityId: 'F1', poNo: 'P-1', referenceNo: 'R-1' }),
    );
    expect(imported!.sql).toBe(
      'select * from "receipts" where (("company_id" = ? and "customer_id" = ? and "status" <> \'Cancelled\' and "facility_id" = ? and "po_no" = ?) or ("company_id" = ? and "customer_id" = ? and "status" <> \'Cancelled\' and "reference_no" = ?)) order by "svcpoid"',
    );
    expect(imported!.parameters).toEqual(['CO', 'CU', 'F1', 'P-1', 'CO', 'CU', 'R-1']);
    // PostgreSQL takes a new receipt's SVCPOID from its sequence, sent ahead with the lookup; the insert binds it.
    const [number] = await sentBy('postgres', (db) =>
      receipts
        .svcpoidAhead(db)
        .then((next) => next())
        .catch(() => ''),
    );
    expect(number!.sql).toBe('select nextval($1::regclass) as value');
    expect(number!.parameters).toEqual(['receipt_svcpoid_seq']);
    const [inserted] = await sentBy('postgres', (db) =>
      receipts.insertReceipt(db, {
        company_id: 'CO',
        customer_id: 'CU',
        facility_id: 'F1',
        svcpoid: 'RN-7',
        po_no: 'P-1',
        status: 'Imported',
        receipt_type: 'Regular Receipt',
        document: '{}',
        updated_at: 1,
        updated_by_key_id: 2,
        created_at: 1,
        created_by_key_id: 2,
      }),
    );
    expect(inserted!.sql).toBe(
      'insert into "receipts" ("company_id", "customer_id", "facility_id", "svcpoid", "po_no", "status", "receipt_type", "document", "updated_at", "updated_by_key_id", "created_at", "created_by_key_id") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
    );
  });
});
