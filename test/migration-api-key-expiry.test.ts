import { afterAll, beforeAll, expect, it } from 'vitest';
import { sha256Hex } from '../src/lib/ids.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { migrationBefore, migratorOf } from './helpers/migrations.js';

/**
 * Keys got an expiry; the migration that adds it leaves every key made before working and never
 * expiring, and its down step takes the column away again without losing a key.
 */

const MIGRATION = '2026-11-26T0900-api-key-expiry';
const BEFORE = migrationBefore(MIGRATION);
const KEY = 'wk_made-before-keys-could-expire';

describeEachDialect('the api-key-expiry migration', (dialect) => {
  let database: TestDatabase;
  const migrator = () => migratorOf(database.db);
  const keyRows = async () => (await database.db.selectFrom('api_keys').selectAll().execute()) as unknown as Record<string, unknown>[];

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrate: false });
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    await database.db.insertInto('companies').values({ company_id: 'CO', name: 'CO', created_at: 1 }).execute();
    await database.db
      .insertInto('api_keys' as never)
      .values({ key_hash: sha256Hex(KEY), role: 'admin', company_id: 'CO', label: 'old', created_at: 1 } as never)
      .execute();
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it('gives every key made before no expiry, and the key keeps working', async () => {
    expect((await migrator().migrateTo(MIGRATION)).error).toBeUndefined();
    expect(await keyRows()).toEqual([expect.objectContaining({ label: 'old', revoked_at: null, expires_at: null })]);
    expect(await tenants.authenticateApiKey(database.db, new TestClock(), KEY)).toMatchObject({
      role: 'admin',
      companyId: 'CO',
      expiresAt: null,
    });
  });

  it('goes back down to keys without an expiry, keeping them', async () => {
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    const rows = await keyRows();
    expect(rows).toEqual([expect.objectContaining({ label: 'old', key_hash: sha256Hex(KEY) })]);
    expect(rows[0]).not.toHaveProperty('expires_at');
  });
});
