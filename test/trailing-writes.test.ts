import type { Duplex } from 'node:stream';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import { sendAhead, writeLater } from '../src/db/trailing-writes.js';
import { lockNames } from '../src/db/dialect.js';
import { inTransaction } from '../src/db/transaction.js';
import { createTestDatabase, DIALECTS, describeEachDialect, type TestDatabase } from './helpers/dialects.js';

/**
 * Trailing writes (src/db/trailing-writes.ts): on PostgreSQL a write that nothing waits for is sent
 * without waiting and its answer awaited with the transaction's next statement, in one socket write
 * with it; on both databases it is seen, committed and rolled back exactly as a write awaited at once.
 */

const companyInsert = (db: Db, companyId: string) =>
  db
    .insertInto('companies')
    .values({ company_id: companyId, name: `${companyId} Co`, created_at: 0 })
    .compile();
const customerInsert = (db: Db, companyId: string, customerId: string) =>
  db.insertInto('customers').values({ company_id: companyId, customer_id: customerId, name: customerId, created_at: 0 }).compile();
const companiesQuery = (db: Db) => db.selectFrom('companies').select('company_id').orderBy('company_id');
const companyIds = async (db: Db) => (await companiesQuery(db).execute()).map((row) => row.company_id);
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
        // No such company: a foreign-key violation, run at once on SQLite, awaited with the commit on PostgreSQL.
        await writeLater(trx, customerInsert(trx, 'NOPE', 'CUST2'));
      }),
    ).rejects.toMatchObject({ code: dialect === 'postgres' ? '23503' : 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(await companyIds(database.db)).toEqual([]);
    expect(await customerIds(database.db)).toEqual([]);
  });

  it('are dropped with their failure by a rollback: the transaction fails with the error that ended it', async () => {
    await expect(
      inTransaction(database.db, async (trx) => {
        // No such company: on PostgreSQL this write fails in flight, and its failure is not awaited.
        await writeLater(trx, customerInsert(trx, 'NOPE', 'CUST5'));
        throw new Error('refused before any statement');
      }),
    ).rejects.toThrow(dialect === 'postgres' ? 'refused before any statement' : /FOREIGN KEY/);
    expect(await customerIds(database.db)).toEqual([]);
  });

  it('fail the statement after them with their own error, and nothing of the transaction is kept', async () => {
    await expect(
      inTransaction(database.db, async (trx) => {
        await writeLater(trx, companyInsert(trx, 'TWO'));
        await writeLater(trx, customerInsert(trx, 'NOPE', 'CUST4'));
        await companyIds(trx);
        throw new Error('the read after a failed write went through');
      }),
    ).rejects.toMatchObject({ code: dialect === 'postgres' ? '23503' : 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(await companyIds(database.db)).toEqual([]);
  });

  it('leave a read sent ahead in its place: it sees the writes before it, not those after, and answers when awaited', async () => {
    const seen = await inTransaction(database.db, async (trx) => {
      await writeLater(trx, companyInsert(trx, 'TWK'));
      const ahead = await sendAhead(trx, companiesQuery(trx).compile());
      await writeLater(trx, companyInsert(trx, 'TWL'));
      const after = await companyIds(trx);
      return { ahead: (await ahead()).rows.map((row) => row.company_id), after };
    });
    expect(seen).toEqual({ ahead: ['TWK'], after: ['TWK', 'TWL'] });
  });

  it('fail the statement after a read sent ahead that fails, with its error, and nothing of the transaction is kept', async () => {
    await expect(
      inTransaction(database.db, async (trx) => {
        await writeLater(trx, companyInsert(trx, 'TWM'));
        await sendAhead(trx, sql`select * from no_such_table`.compile(trx));
        return companyIds(trx);
      }),
    ).rejects.toThrow(/no_such_table/);
    expect(await companyIds(database.db)).toEqual([]);
  });

  it('run at once outside a transaction', async () => {
    await writeLater(database.db, companyInsert(database.db, 'TWG'));
    expect(await companyIds(database.db)).toEqual(['TWG']);
  });
});

const postgresEnabled = DIALECTS.find((d) => d.name === 'postgres')!.enabled;

/** What reached PostgreSQL's socket: each statement pg was given, and each socket write. */
const SOCKET_WRITE = '(socket write)';

describe.skipIf(!postgresEnabled)('trailing writes on the wire [postgres]', () => {
  let database: TestDatabase;
  let wire: string[];
  const query = pg.Client.prototype.query;

  /** Records every write of the client's socket, once per client. */
  const watched = new WeakSet<object>();
  function watchSocket(client: pg.Client) {
    const stream = client.connection.stream as Duplex & { _write: Function; _writev: Function };
    if (watched.has(stream)) return;
    watched.add(stream);
    for (const method of ['_write', '_writev'] as const) {
      const write = stream[method];
      stream[method] = function recorded(this: unknown, ...args: unknown[]) {
        wire.push(SOCKET_WRITE);
        return write.apply(this, args);
      };
    }
  }

  beforeEach(async () => {
    database = await createTestDatabase('postgres');
    wire = [];
    pg.Client.prototype.query = function recorded(this: pg.Client, ...args: unknown[]) {
      watchSocket(this);
      const config = args[0] as string | { text: string };
      wire.push(typeof config === 'string' ? config : config.text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  });
  afterEach(async () => {
    pg.Client.prototype.query = query;
    await database.destroy();
  });

  const insertCompany = 'insert into "companies" ("company_id", "name", "created_at") values ($1, $2, $3)';
  const insertCustomer = 'insert into "customers" ("company_id", "customer_id", "name", "created_at") values ($1, $2, $3, $4)';

  it('go out with BEGIN and the statement after them in one socket write, none waiting for another', async () => {
    const facilities = await inTransaction(database.db, async (trx) => {
      await writeLater(trx, companyInsert(trx, 'TWH'));
      await writeLater(trx, customerInsert(trx, 'TWH', 'CUST0'));
      return trx.selectFrom('facilities').select('facility_id').execute();
    });
    expect(facilities).toEqual([]);
    expect(wire).toEqual([
      'begin',
      insertCompany,
      insertCustomer,
      'select "facility_id" from "facilities"',
      SOCKET_WRITE,
      'commit',
      SOCKET_WRITE,
    ]);
    expect(await customerIds(database.db)).toEqual(['TWH/CUST0']);
  });

  it('go out with COMMIT when no statement follows them: the whole transaction in one socket write', async () => {
    await inTransaction(database.db, async (trx) => {
      await writeLater(trx, companyInsert(trx, 'TWI'));
      await writeLater(trx, customerInsert(trx, 'TWI', 'CUST1'));
      await writeLater(trx, companyInsert(trx, 'TWJ'));
    });
    expect(wire).toEqual(['begin', insertCompany, insertCustomer, insertCompany, 'commit', SOCKET_WRITE]);
    expect(await companyIds(database.db)).toEqual(['TWI', 'TWJ']);
  });

  it('take locks the same way: an item lock goes out with the statement after it, which runs once it is held', async () => {
    await inTransaction(database.db, async (trx) => {
      await lockNames(trx, ['TWQ', 'TWR']);
      await writeLater(trx, companyInsert(trx, 'TWQ'));
      return companyIds(trx);
    });
    expect(wire).toEqual([
      'begin',
      'select pg_advisory_xact_lock(hashtextextended("name"."value", 0)) as "locked" from jsonb_array_elements_text($1) as "name"',
      insertCompany,
      'select "company_id" from "companies" order by "company_id"',
      SOCKET_WRITE,
      'commit',
      SOCKET_WRITE,
    ]);
  });

  it('send a read ahead the same way: it goes out with the statement after it, and answers when awaited', async () => {
    const seen = await inTransaction(database.db, async (trx) => {
      const ahead = await sendAhead(trx, companiesQuery(trx).compile());
      await writeLater(trx, companyInsert(trx, 'TWS'));
      const after = await companyIds(trx);
      return { ahead: (await ahead()).rows.map((row) => row.company_id), after };
    });
    expect(seen).toEqual({ ahead: [], after: ['TWS'] });
    const selectCompanies = 'select "company_id" from "companies" order by "company_id"';
    expect(wire).toEqual(['begin', selectCompanies, insertCompany, selectCompanies, SOCKET_WRITE, 'commit', SOCKET_WRITE]);
  });

  it('are undone by a rollback, which drops their answers', async () => {
    await expect(
      inTransaction(database.db, async (trx) => {
        await writeLater(trx, companyInsert(trx, 'TWN'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(wire).toEqual(['begin', insertCompany, 'rollback', SOCKET_WRITE]);
    expect(await companyIds(database.db)).toEqual([]);
  });
});
