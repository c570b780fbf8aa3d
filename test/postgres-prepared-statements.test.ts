import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/database.js';
import { inTransaction, transactionRetries } from '../src/db/transaction.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/dialects.js';

/**
 * On PostgreSQL every parameterized statement is sent prepared under a name of its SQL text
 * (src/db/dialect.ts), unless `preparedStatements` is false; a `select *` made stale by another
 * process's migration costs a transaction one retry, and a statement outside one nothing seen:
 * never a wrong answer, an error or a connection stuck with the stale statement.
 */

const postgresEnabled = DIALECTS.find((d) => d.name === 'postgres')!.enabled;
const COMPANY = 'PREP';

const findCompany = (db: Db) =>
  db.selectFrom('companies').selectAll().where('company_id', '=', COMPANY).executeTakeFirstOrThrow() as Promise<Record<string, unknown>>;

/** The statements this connection holds prepared, by the text they were prepared from. */
async function preparedOnConnection(trx: Db): Promise<{ name: string; statement: string }[]> {
  const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(
    trx,
  );
  return rows;
}

describe.skipIf(!postgresEnabled)('prepared statements [postgres]', () => {
  let database: TestDatabase | undefined;
  const opened: Db[] = [];

  const open = async (preparedStatements: boolean) => {
    database ??= await createTestDatabase('postgres');
    await database.db
      .insertInto('companies')
      .values({ company_id: COMPANY, name: 'Prepared Co', created_at: 0 })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const db = connectDatabase(database.url, { poolSize: 3, preparedStatements });
    opened.push(db);
    return db;
  };

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.destroy()));
    await database?.destroy();
    database = undefined;
  });

  it('sends a parameterized statement prepared under a name, and one without parameters as it is', async () => {
    const db = await open(true);
    const prepared = await inTransaction(db, async (trx) => {
      await findCompany(trx);
      await sql`select 1 as one`.execute(trx);
      return preparedOnConnection(trx);
    });
    expect(prepared).toEqual([
      { name: expect.stringMatching(/^wharf_\d+$/), statement: 'select * from "companies" where "company_id" = $1' },
    ]);
  });

  it('prepares nothing when told not to (a pooler that keeps no prepared statements)', async () => {
    const db = await open(false);
    const prepared = await inTransaction(db, async (trx) => {
      await findCompany(trx);
      await findCompany(trx);
      return preparedOnConnection(trx);
    });
    expect(prepared).toEqual([]);
  });

  it('answers a select * after another process added a column: the stale connection is closed and the transaction retried', async () => {
    const db = await open(true);
    // Every connection of the pool runs the statement prepared.
    await Promise.all([1, 2, 3].map(() => inTransaction(db, async (trx) => findCompany(await holdOpen(trx)))));

    await addColumn(database!.url, 'alter table companies add column note text');

    const retriesBefore = transactionRetries.count;
    const row = await inTransaction(db, (trx) => findCompany(trx));
    expect(row).toEqual({ company_id: COMPANY, name: 'Prepared Co', created_at: 0, note: null });
    expect(transactionRetries.count - retriesBefore).toBe(1);

    // Every connection made before the change was closed: none fails again.
    const rows = await Promise.all([1, 2, 3].map(() => inTransaction(db, async (trx) => findCompany(await holdOpen(trx)))));
    expect(rows.map((r) => r.note)).toEqual([null, null, null]);
    expect(transactionRetries.count - retriesBefore).toBe(1);
  });

  it('answers a select * outside a transaction after another process added a column, at once', async () => {
    const db = await open(true);
    await Promise.all([1, 2, 3].map(() => inTransaction(db, async (trx) => findCompany(await holdOpen(trx)))));
    await addColumn(database!.url, 'alter table companies add column memo text');

    const retriesBefore = transactionRetries.count;
    const rows = await Promise.all([1, 2, 3].map(() => findCompany(db)));
    expect(rows).toEqual(Array(3).fill({ company_id: COMPANY, name: 'Prepared Co', created_at: 0, memo: null }));
    expect(transactionRetries.count).toBe(retriesBefore);
  });
});

async function addColumn(url: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** Keeps the transaction's connection busy a moment, so that concurrent transactions each take another. */
async function holdOpen(trx: Db): Promise<Db> {
  await sql`select pg_sleep(0.05)`.execute(trx);
  return trx;
}
