import { afterAll, beforeAll, expect, it } from 'vitest';
import { sha256Hex } from '../src/lib/ids.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { migrationBefore, migratorOf } from './helpers/migrations.js';

/**
 * A rotated key names the key that replaced it. The migration that adds the column leaves every
 * key made before replaced by none (so it works, and rotates, as before), and its down step takes
 * the column away again without losing a key.
 */

const MIGRATION = '2026-12-01T1400-api-key-successor';
const BEFORE = migrationBefore(MIGRATION);
const KEY = 'wk_made-before-keys-named-their-successor';

describeEachDialect('the api-key-successor migration', (dialect) => {
  let database: TestDatabase;
  const migrator = () => migratorOf(database.db);
  const keyRows = async () => (await database.db.selectFrom('api_keys').selectAll().execute()) as unknown as Record<string, unknown>[];

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrate: false });
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    await database.db.insertInto('companies').values({ company_id: 'CO', name: 'CO', created_at: 1 }).execute();
    await database.db
      .insertInto('api_keys' as never)
      .values({ key_hash: sha256Hex(KEY), role: 'admin', company_id: 'CO', label: 'old', created_at: 1, expires_at: null } as never)
      .execute();
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it('leaves every key made before replaced by none: it works, and it rotates', async () => {
    expect((await migrator().migrateTo(MIGRATION)).error).toBeUndefined();
    expect(await keyRows()).toEqual([expect.objectContaining({ label: 'old', replaced_by: null })]);
    const clock = new TestClock();
    const { keyId } = (await tenants.authenticateApiKey(database.db, clock, KEY))!;
    const { view, replaced } = await tenants.rotateApiKey(database.db, clock, keyId, 0);
    expect(replaced).toMatchObject({ id: keyId, replacedBy: view.id });
  });

  it('goes back down to keys without a successor, keeping them', async () => {
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined();
    const rows = await keyRows();
    expect(rows.map((row) => row.label)).toEqual(['old', 'old']);
    expect(rows[0]).not.toHaveProperty('replaced_by');
  });
});
