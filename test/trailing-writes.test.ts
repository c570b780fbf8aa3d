import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import { joinWrites, writeLater } from '../src/db/trailing-writes.js';
import { inTransaction } from '../src/db/transaction.js';
import { createTestDatabase, DIALECTS, describeEachDialect, type TestDatabase } from './helpers/dialects.js';

/**
 * Trailing writes (src/db/trailing-writes.ts): on PostgreSQL a write that nothing waits for goes
 * out with the transaction's next statement; on both databases it is seen, committed and rolled
 * back exactly as a write sent at once.
 */

const companyInsert = (db: Db, companyId: string) =>
  db
    .insertInto('companies')
    .values({ company_id: companyId, name: `${companyId} Co`, created_at: 0 })
    .compile();
const customerInsert = (db: Db, companyId: string, customerId: string) =>
  db.insertInto('customers').values({ company_id: companyId, customer_id: customerId, name: customerId, created_at: 0 }).compile();
const companyIds = async (db: Db) =>
  (await db.selectFrom('companies').select('company_id').orderBy('company_id').execute()).map((row) => row.company_id);
const customerIds = async (db: Db) =>
  (await db.selectFrom('customers').select(['company_id', 'customer_id']).orderBy('customer_id').execute()).map(
    (row) => `${row.company_id}/${row.customer_id}`,
  );

describeEachDialect('trailing writes', (dialect) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
  });
  afterEach(async () => {
    await database.destroy();
  });

  it('are seen by the next read of their table in the transaction, and committed with it', async () => {
    const seen = await inTransaction(database.db, async (trx) => {
      await writeLater(trx, companyInsert(trx, 'TWA'));
      await writeLater(trx, companyInsert(trx, 'TWB'));
      return companyIds(trx);
    });
    expect(seen).toEqual(['TWA', 'TWB']);
    expect(await companyIds(database.db)).toEqual(['TWA', 'TWB']);
  });

  it('are committed when no statement follows them, a row and the row that refers to it together', async () => {
    await inTransaction(database.db, async (trx) => {
      await writeLater(trx, companyInsert(trx, 'TWC'));
      await writeLater(trx, customerInsert(trx, 'TWC', 'CUST1'));
    });
    expect(await companyIds(database.db)).toEqual(['TWC']);
    expect(await customerIds(database.db)).toEqual(['TWC/CUST1']);
  });

  it('are rolled back with a transaction that fails after them', async () => {
    await expect(
      inTransaction(database.db, async (trx) => {
        await writeLater(trx, companyInsert(trx, 'TWD'));
        await customerIds(trx);
        await writeLater(trx, companyInsert(trx, 'TWE'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await companyIds(database.db)).toEqual([]);
  });

  it('fail the transaction when they fail, and nothing of it is kept', async () => {
    await expect(
      inTransaction(database.db, async (trx) => {
        await writeLater(trx, companyInsert(trx, 'TWF'));
        // No such company: a foreign-key violation, sent at once on SQLite and with the commit on PostgreSQL.
        await writeLater(trx, customerInsert(trx, 'NOPE', 'CUST2'));
      }),
    ).rejects.toMatchObject({ code: dialect === 'postgres' ? '23503' : 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(await companyIds(database.db)).toEqual([]);
    expect(await customerIds(database.db)).toEqual([]);
  });

  it('run at once outside a transaction', async () => {
    await writeLater(database.db, companyInsert(database.db, 'TWG'));
    expect(await companyIds(database.db)).toEqual(['TWG']);
  });
});

const postgresEnabled = DIALECTS.find((d) => d.name === 'postgres')!.enabled;

describe.skipIf(!postgresEnabled)('trailing writes on the wire [postgres]', () => {
  let database: TestDatabase;
  let sent: string[];
  const query = pg.Client.prototype.query;

  beforeEach(async () => {
    database = await createTestDatabase('postgres');
    sent = [];
    pg.Client.prototype.query = function recorded(this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text: string };
      sent.push(typeof config === 'string' ? config : config.text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  });
  afterEach(async () => {
    pg.Client.prototype.query = query;
    await database.destroy();
  });

  it('go out as WITH clauses of the next statement that names none of their tables', async () => {
    const facilities = await inTransaction(database.db, async (trx) => {
      await writeLater(trx, companyInsert(trx, 'TWH'));
      await writeLater(trx, customerInsert(trx, 'TWH', 'CUST0'));
      return trx.selectFrom('facilities').select('facility_id').execute();
    });
    expect(facilities).toEqual([]);
    expect(sent).toEqual([
      'begin',
      'with trailing_1 as (insert into "companies" ("company_id", "name", "created_at") values ($1, $2, $3)), ' +
        'trailing_2 as (insert into "customers" ("company_id", "customer_id", "name", "created_at") values ($4, $5, $6, $7)) ' +
        'select "facility_id" from "facilities"',
      'commit',
    ]);
    expect(await customerIds(database.db)).toEqual(['TWH/CUST0']);
  });

  it('never join two writes that name one table: the second would not see the first', async () => {
    await inTransaction(database.db, async (trx) => {
      await writeLater(trx, companyInsert(trx, 'TWI'));
      await writeLater(trx, customerInsert(trx, 'TWI', 'CUST1'));
      await writeLater(trx, companyInsert(trx, 'TWJ'));
    });
    expect(sent).toEqual([
      'begin',
      'with trailing_1 as (insert into "companies" ("company_id", "name", "created_at") values ($1, $2, $3)) ' +
        'insert into "customers" ("company_id", "customer_id", "name", "created_at") values ($4, $5, $6, $7)',
      'insert into "companies" ("company_id", "name", "created_at") values ($1, $2, $3)',
      'commit',
    ]);
    expect(await companyIds(database.db)).toEqual(['TWI', 'TWJ']);
  });

  it('go out before a statement that names one of their tables, or whose raw SQL may, and before COMMIT', async () => {
    await inTransaction(database.db, async (trx) => {
      await writeLater(trx, companyInsert(trx, 'TWK'));
      await customerIds(trx);
      await writeLater(trx, customerInsert(trx, 'TWK', 'CUST3'));
      await customerIds(trx);
      await writeLater(trx, companyInsert(trx, 'TWL'));
      await sql`select count(*) from companies`.execute(trx);
      await writeLater(trx, companyInsert(trx, 'TWM'));
    });
    const insertCompany = 'insert into "companies" ("company_id", "name", "created_at") values ($1, $2, $3)';
    const readCustomers = 'select "company_id", "customer_id" from "customers" order by "customer_id"';
    expect(sent).toEqual([
      'begin',
      `with trailing_1 as (${insertCompany}) ${readCustomers}`,
      'insert into "customers" ("company_id", "customer_id", "name", "created_at") values ($1, $2, $3, $4)',
      readCustomers,
      insertCompany,
      'select count(*) from companies',
      insertCompany,
      'commit',
    ]);
    expect(await companyIds(database.db)).toEqual(['TWK', 'TWL', 'TWM']);
  });

  it('go out in more than one statement when joined they would pass 30,000 parameters', async () => {
    // 7,000 companies of 3 parameters and 5,000 customers of 4: 21,000 and 20,000.
    const companies = Array.from({ length: 7000 }, (_, i) => ({ company_id: `TWP${i}`, name: 'P', created_at: 0 }));
    const customers = Array.from({ length: 5000 }, (_, i) => ({ company_id: 'TWP0', customer_id: `C${i}`, name: 'C', created_at: 0 }));
    await inTransaction(database.db, async (trx) => {
      await writeLater(trx, trx.insertInto('companies').values(companies).compile());
      await writeLater(trx, trx.insertInto('customers').values(customers).compile());
    });
    expect(sent.map((text) => text.slice(0, 32))).toEqual([
      'begin',
      'insert into "companies" ("compan',
      'insert into "customers" ("compan',
      'commit',
    ]);
    expect((await companyIds(database.db)).length).toBe(7000);
    expect((await customerIds(database.db)).length).toBe(5000);
  });

  it('are dropped by a rollback, never sent', async () => {
    await expect(
      inTransaction(database.db, async (trx) => {
        await writeLater(trx, companyInsert(trx, 'TWN'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(sent).toEqual(['begin', 'rollback']);
  });
});

describe('joinWrites', () => {
  it('numbers each statement’s parameters after those before it, leaving $n inside quotes alone', () => {
    const joined = joinWrites([
      CompiledQuery.raw(`insert into "t" ("a", "b") values ($1, '$1 is text')`, ['x']),
      CompiledQuery.raw(`update "u" set "c" = $1 where "d" = $2 and "e$1" = 1`, ['y', 'z']),
      CompiledQuery.raw(`select * from "v" where "f" = $1`, ['w']),
    ]);
    expect(joined.sql).toBe(
      `with trailing_1 as (insert into "t" ("a", "b") values ($1, '$1 is text')), ` +
        `trailing_2 as (update "u" set "c" = $2 where "d" = $3 and "e$1" = 1) select * from "v" where "f" = $4`,
    );
    expect(joined.parameters).toEqual(['x', 'y', 'z', 'w']);
  });

  it('continues the WITH list of a main statement that has its own', () => {
    const joined = joinWrites([
      CompiledQuery.raw(`delete from "t" where "a" = $1`, [1]),
      CompiledQuery.raw(`with "change"("k") as (values ($1)) update "u" set "n" = "n" + 1 from "change"`, [2]),
    ]);
    expect(joined.sql).toBe(
      `with trailing_1 as (delete from "t" where "a" = $1), "change"("k") as (values ($2)) update "u" set "n" = "n" + 1 from "change"`,
    );
    expect(joined.parameters).toEqual([1, 2]);
  });

  it('refuses a trailing write that is not an insert, an update or a delete', () => {
    expect(() => joinWrites([CompiledQuery.raw('select 1', []), CompiledQuery.raw('select 2', [])])).toThrow(
      'a trailing write must be an insert, an update or a delete',
    );
  });
});
