import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';
import type { DialectName } from '../../src/db/dialect.js';

/**
 * Failure injection for the one-request-one-transaction tests (docs/decisions.md): a trigger that makes
 * every insert into a table fail, a trigger that slows ledger inserts so that two requests overlap,
 * and a snapshot of a company's rows to compare before and after a failed request.
 */
export function failureInjection(db: () => Db, dialect: DialectName) {
  /** Creates the trigger functions PostgreSQL needs (SQLite raises inline); call once before the tests. */
  const install = async () => {
    if (dialect !== 'postgres') return;
    await sql
      .raw(`create function wharf_test_fail() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`)
      .execute(db());
    await sql
      .raw(`create function wharf_test_slow() returns trigger language plpgsql as $$ begin perform pg_sleep(1); return new; end $$`)
      .execute(db());
  };

  /** Makes every insert into `table` fail while `work` runs. */
  const withFailingInserts = async <T>(table: string, work: () => Promise<T>): Promise<T> => {
    const name = `wharf_fail_${table}`;
    if (dialect === 'postgres') {
      await sql.raw(`create trigger ${name} before insert on ${table} for each row execute function wharf_test_fail()`).execute(db());
    } else {
      await sql.raw(`create trigger ${name} before insert on ${table} begin select raise(abort, 'injected failure'); end`).execute(db());
    }
    try {
      return await work();
    } finally {
      await sql.raw(dialect === 'postgres' ? `drop trigger ${name} on ${table}` : `drop trigger ${name}`).execute(db());
    }
  };

  /**
   * Starts `slow` (slowed on PostgreSQL by a one-second pause in each ledger insert, that is after
   * it read and locked its document), and `fast` while `slow` is inside its transaction.
   */
  const race = async (slow: () => Promise<LightMyRequestResponse>, fast: () => Promise<LightMyRequestResponse>) => {
    if (dialect === 'postgres') {
      await sql
        .raw(`create trigger wharf_slow_ledger before insert on inventory_ledger for each row execute function wharf_test_slow()`)
        .execute(db());
    }
    try {
      const slowAnswer = slow();
      await sleep(300);
      const fastAnswer = await fast();
      return { slow: await slowAnswer, fast: fastAnswer };
    } finally {
      if (dialect === 'postgres') await sql.raw(`drop trigger wharf_slow_ledger on inventory_ledger`).execute(db());
    }
  };

  /** Every row of the company in `tables` (and SQLite's SVCPOID counters), in a comparable form. */
  const snapshot = async (companyId: string, tables: readonly string[]) => {
    const rowsOf: Record<string, string[]> = {};
    for (const table of tables) {
      const { rows } = await sql`select * from ${sql.table(table)} where company_id = ${companyId}`.execute(db());
      rowsOf[table] = rows.map((row) => JSON.stringify(row)).sort();
    }
    if (dialect === 'sqlite') rowsOf.counters = (await sql`select * from counters`.execute(db())).rows.map((row) => JSON.stringify(row));
    return rowsOf;
  };

  return { install, withFailingInserts, race, snapshot };
}

/** The answer to a request whose transaction failed: 500 with a request id, and nothing of the cause. */
export function expectInternalError(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBe(500);
  expect(response.json()).toEqual([
    {
      code: expect.stringMatching(/^EDI-ERROR-Internal error \(request id [\w-]+\)$/),
      error: expect.stringMatching(/^Internal error \(request id [\w-]+\)$/),
    },
  ]);
  expect(response.body).not.toMatch(/injected|insert|trigger|select/i);
}
