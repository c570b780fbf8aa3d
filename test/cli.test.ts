import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { connectDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/database.js';
import type { DialectName } from '../src/db/dialect.js';
import { migrations } from '../src/db/migrations/index.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createTestDatabase, describeEachDialect } from './helpers/dialects.js';
import { uniqueId } from './helpers/factories.js';

/** The `wharf` command line, run in-process against a real database of each dialect. */

interface CliRun {
  code: number;
  out: string[];
  err: string[];
}

async function run(argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out, err };
}

/** A database the CLI opens by URL, and a connection of the test's own to look inside it. */
interface CliTarget {
  url: string;
  db: Db;
  destroy(): Promise<void>;
}

async function createCliTarget(dialect: DialectName): Promise<CliTarget> {
  if (dialect === 'postgres') {
    const database = await createTestDatabase('postgres', { migrate: false });
    return { url: database.url, db: database.db, destroy: () => database.destroy() };
  }
  // sqlite::memory: would be a new empty database per connection, so the CLI gets a file.
  const dir = mkdtempSync(join(tmpdir(), 'wharf-cli-'));
  const url = `sqlite:${join(dir, 'wharf.db')}`;
  const db = connectDatabase(url);
  return {
    url,
    db,
    destroy: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const KEY_PATTERN = /^wk_[A-Za-z0-9_-]{43,}$/;
const VIEW_KEYS = ['id', 'role', 'company', 'customers', 'facilities', 'userIds', 'label', 'createdAt', 'lastUsedAt', 'revokedAt'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface KeyView {
  id: number;
  role: string;
  company: string;
  customers: string[];
  facilities: string[];
  userIds: number[];
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

describeEachDialect('wharf CLI', (dialect) => {
  let target: CliTarget;
  const wharf = (...argv: string[]) => run([...argv, '--db', target.url]);

  beforeAll(async () => {
    target = await createCliTarget(dialect);
  });
  afterAll(async () => {
    await target?.destroy();
  });

  const countKeys = async () => (await target.db.selectFrom('api_keys').select('id').execute()).length;

  /** A company with one customer and one facility, made through the CLI. */
  async function tenant() {
    const company = uniqueId('CO');
    const customer = uniqueId('CU');
    const facility = uniqueId('FA');
    expect((await wharf('company', 'add', company)).code).toBe(0);
    expect((await wharf('customer', 'add', company, customer)).code).toBe(0);
    expect((await wharf('facility', 'add', company, facility)).code).toBe(0);
    return { company, customer, facility };
  }

  async function createKey(...args: string[]): Promise<{ key: string; view: KeyView }> {
    const created = await wharf('key', 'create', ...args, '--json');
    expect(created.err).toEqual([]);
    expect(created.code).toBe(0);
    const { key, ...view } = JSON.parse(created.out.join('\n')) as KeyView & { key: string };
    return { key, view };
  }

  it('migrate applies the migrations, then says the schema is up to date', async () => {
    const first = await wharf('migrate');
    expect(first).toEqual({ code: 0, out: [`applied: ${Object.keys(migrations).join(', ')}`], err: [] });
    const second = await wharf('migrate');
    expect(second).toEqual({ code: 0, out: ['schema is up to date'], err: [] });
    const tables = (await target.db.introspection.getTables()).map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(['companies', 'customers', 'facilities', 'api_keys', 'items']));
  });

  it('adds a company, a customer and a facility with its time zone', async () => {
    const company = uniqueId('CO');
    expect(await wharf('company', 'add', company, '--name', 'Acme Logistics')).toEqual({
      code: 0,
      out: [`company ${company} added`],
      err: [],
    });
    expect(await wharf('customer', 'add', company, 'CU1')).toEqual({ code: 0, out: [`customer CU1 added to ${company}`], err: [] });
    expect(await wharf('facility', 'add', company, 'CHI1', '--timezone', 'America/Chicago')).toEqual({
      code: 0,
      out: [`facility CHI1 added to ${company} (America/Chicago)`],
      err: [],
    });
    expect((await wharf('facility', 'add', company, 'UTC1')).code).toBe(0);

    const stored = await target.db.selectFrom('companies').selectAll().where('company_id', '=', company).executeTakeFirstOrThrow();
    expect(stored.name).toBe('Acme Logistics');
    const facilities = await target.db
      .selectFrom('facilities')
      .select(['facility_id', 'time_zone'])
      .where('company_id', '=', company)
      .orderBy('facility_id')
      .execute();
    expect(facilities).toEqual([
      { facility_id: 'CHI1', time_zone: 'America/Chicago' },
      { facility_id: 'UTC1', time_zone: 'UTC' },
    ]);
    const customers = await target.db.selectFrom('customers').select('customer_id').where('company_id', '=', company).execute();
    expect(customers).toEqual([{ customer_id: 'CU1' }]);
  });

  it('refuses duplicates with exit 1 and a clear message', async () => {
    const { company, customer, facility } = await tenant();
    const companyAgain = await wharf('company', 'add', company);
    expect(companyAgain.code).toBe(1);
    expect(companyAgain.out).toEqual([]);
    expect(companyAgain.err.join('\n')).toContain(`Company ${company} already exists`);

    const customerAgain = await wharf('customer', 'add', company, customer);
    expect(customerAgain.code).toBe(1);
    expect(customerAgain.err.join('\n')).toContain(`Customer ${customer} already exists in company ${company}`);

    const facilityAgain = await wharf('facility', 'add', company, facility, '--timezone', 'America/Chicago');
    expect(facilityAgain.code).toBe(1);
    expect(facilityAgain.err.join('\n')).toContain(`Facility ${facility} already exists in company ${company}`);
  });

  it('refuses a customer or facility of an unknown company with exit 1', async () => {
    const customer = await wharf('customer', 'add', 'NOSUCHCO', 'CU1');
    expect(customer.code).toBe(1);
    expect(customer.err.join('\n')).toContain('Company NOSUCHCO not found');
    const facility = await wharf('facility', 'add', 'NOSUCHCO', 'FA1');
    expect(facility.code).toBe(1);
    expect(facility.err.join('\n')).toContain('Company NOSUCHCO not found');
    const stored = await target.db.selectFrom('customers').select('customer_id').where('company_id', '=', 'NOSUCHCO').execute();
    expect(stored).toEqual([]);
  });

  it('refuses a time zone that is not IANA with exit 1, naming it', async () => {
    const { company } = await tenant();
    const result = await wharf('facility', 'add', company, 'MARS1', '--timezone', 'Mars/Base');
    expect(result.code).toBe(1);
    expect(result.out).toEqual([]);
    expect(result.err.join('\n')).toContain('Mars/Base');
    const stored = await target.db.selectFrom('facilities').select('facility_id').where('facility_id', '=', 'MARS1').execute();
    expect(stored).toEqual([]);
  });

  it('refuses an ID over 15 characters with exit 1', async () => {
    const long = 'C'.repeat(16);
    const company = await wharf('company', 'add', long);
    expect(company.code).toBe(1);
    expect(company.err.join('\n')).toMatch(/15/);
    expect(await target.db.selectFrom('companies').select('company_id').where('company_id', '=', long).execute()).toEqual([]);

    const { company: companyId } = await tenant();
    expect((await wharf('customer', 'add', companyId, 'U'.repeat(16))).code).toBe(1);
    expect((await wharf('facility', 'add', companyId, 'F'.repeat(16))).code).toBe(1);
    // exactly 15 is fine
    expect((await wharf('customer', 'add', companyId, 'U'.repeat(15))).code).toBe(0);
  });

  it('key create prints only the key, on one line of stdout', async () => {
    const { company, customer } = await tenant();
    const result = await wharf('key', 'create', '--role', 'customer', '--company', company, '--customer', customer);
    expect(result.code).toBe(0);
    expect(result.err).toEqual([]);
    expect(result.out).toHaveLength(1);
    const key = result.out[0]!;
    expect(key).not.toContain('\n');
    expect(key).toMatch(KEY_PATTERN);
    expect(key.length - 'wk_'.length).toBeGreaterThanOrEqual(43);

    const another = await wharf('key', 'create', '--role', 'customer', '--company', company, '--customer', customer);
    expect(another.out[0]).toMatch(KEY_PATTERN);
    expect(another.out[0]).not.toBe(key);
  });

  it('key create --json prints the key with its details', async () => {
    const { company, customer, facility } = await tenant();
    const before = Date.now();
    const { key, view } = await createKey(
      '--role',
      'customer',
      '--company',
      company,
      '--customer',
      customer,
      '--facility',
      facility,
      '--label',
      'ERP sync',
    );
    expect(key).toMatch(KEY_PATTERN);
    expect(Object.keys(view).sort()).toEqual([...VIEW_KEYS].sort());
    expect(view).toEqual({
      id: expect.any(Number),
      role: 'customer',
      company,
      customers: [customer],
      facilities: [facility],
      userIds: [],
      label: 'ERP sync',
      createdAt: expect.stringMatching(ISO),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(Date.parse(view.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(view.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);

    const rater = await createKey('--role', 'rater', '--company', company, '--user-id', '1001', '--user-id', '7');
    expect(rater.view).toMatchObject({ role: 'rater', customers: [], facilities: [], userIds: [1001, 7], label: '' });
    const admin = await createKey('--role', 'admin', '--company', company);
    expect(admin.view).toMatchObject({ role: 'admin', customers: [], facilities: [], userIds: [] });
    const operator = await createKey('--role', 'operator', '--company', company, '--facility', facility);
    expect(operator.view).toMatchObject({ role: 'operator', facilities: [facility] });
  });

  it('key create refuses a scope that does not fit the role with exit 1, and stores nothing', async () => {
    const { company, customer, facility } = await tenant();
    const keysBefore = await countKeys();

    const noCustomer = await wharf('key', 'create', '--role', 'customer', '--company', company);
    expect(noCustomer.code).toBe(1);
    expect(noCustomer.out).toEqual([]);
    expect(noCustomer.err.join('\n')).toContain('--customer');

    const operatorWithCustomer = await wharf('key', 'create', '--role', 'operator', '--company', company, '--customer', customer);
    expect(operatorWithCustomer.code).toBe(1);
    expect(operatorWithCustomer.err.join('\n')).toContain('--customer');

    const raterWithoutUser = await wharf('key', 'create', '--role', 'rater', '--company', company);
    expect(raterWithoutUser.code).toBe(1);
    expect(raterWithoutUser.err.join('\n')).toContain('--user-id');

    const unknownFacility = await wharf('key', 'create', '--role', 'operator', '--company', company, '--facility', 'NOSUCHFAC');
    expect(unknownFacility.code).toBe(1);
    expect(unknownFacility.err.join('\n')).toContain('NOSUCHFAC');

    const unknownCustomer = await wharf(
      'key',
      'create',
      '--role',
      'customer',
      '--company',
      company,
      '--customer',
      'NOSUCHCU',
      '--facility',
      facility,
    );
    expect(unknownCustomer.code).toBe(1);
    expect(unknownCustomer.err.join('\n')).toContain('NOSUCHCU');

    const unknownCompany = await wharf('key', 'create', '--role', 'admin', '--company', 'NOSUCHCO');
    expect(unknownCompany.code).toBe(1);
    expect(unknownCompany.err.join('\n')).toContain('NOSUCHCO');

    expect(await countKeys()).toBe(keysBefore);
  });

  it('key create refuses bad usage with exit 2', async () => {
    const { company } = await tenant();
    const keysBefore = await countKeys();

    const badUserId = await wharf('key', 'create', '--role', 'rater', '--company', company, '--user-id', 'abc');
    expect(badUserId.code).toBe(2);
    expect(badUserId.out).toEqual([]);
    expect(badUserId.err.join('\n')).toContain('--user-id');

    const noRole = await wharf('key', 'create', '--company', company);
    expect(noRole.code).toBe(2);
    expect(noRole.out).toEqual([]);
    expect(noRole.err.join('\n')).toContain('--role');

    const badRole = await wharf('key', 'create', '--role', 'superuser', '--company', company);
    expect(badRole.code).toBe(2);
    expect(badRole.err.join('\n')).toContain('superuser');

    const noCompany = await wharf('key', 'create', '--role', 'admin');
    expect(noCompany.code).toBe(2);
    expect(noCompany.err.join('\n')).toContain('--company');

    expect(await countKeys()).toBe(keysBefore);
  });

  it('stores the key only as its SHA-256 hash', async () => {
    const { company, customer } = await tenant();
    const { key, view } = await createKey('--role', 'customer', '--company', company, '--customer', customer);
    const row = await target.db.selectFrom('api_keys').selectAll().where('id', '=', view.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.key_hash).toBe(sha256(key));
    const everything = JSON.stringify(await target.db.selectFrom('api_keys').selectAll().execute());
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(key.slice('wk_'.length));
  });

  it('key list --json prints every key without key material', async () => {
    const { company, customer, facility } = await tenant();
    const created = [
      await createKey('--role', 'customer', '--company', company, '--customer', customer, '--label', 'first'),
      await createKey('--role', 'operator', '--company', company, '--facility', facility),
      await createKey('--role', 'rater', '--company', company, '--user-id', '42'),
    ];
    const listed = await wharf('key', 'list', '--json');
    expect(listed.code).toBe(0);
    expect(listed.err).toEqual([]);
    const text = listed.out.join('\n');
    const views = JSON.parse(text) as KeyView[];
    expect(Array.isArray(views)).toBe(true);
    expect(views).toHaveLength(await countKeys());
    for (const view of views) expect(Object.keys(view).sort()).toEqual([...VIEW_KEYS].sort());
    for (const { key, view } of created) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice('wk_'.length));
      expect(text).not.toContain(sha256(key));
      expect(views.find((v) => v.id === view.id)).toEqual(view);
    }
    expect(text).not.toMatch(/wk_/);
    expect(text).not.toMatch(/[0-9a-f]{64}/);

    const ofCompany = JSON.parse((await wharf('key', 'list', '--json', '--company', company)).out.join('\n')) as KeyView[];
    expect(ofCompany.map((v) => v.id)).toEqual(created.map((c) => c.view.id));
  });

  it('key list prints one line per key, without key material', async () => {
    const { company, customer } = await tenant();
    const { key, view } = await createKey('--role', 'customer', '--company', company, '--customer', customer, '--label', 'plain list');
    const listed = await wharf('key', 'list');
    expect(listed.code).toBe(0);
    const lines = listed.out.flatMap((text) => text.split('\n')).filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(await countKeys());
    for (const line of lines) expect(line).toMatch(/^#\d+ /);
    const line = lines.find((l) => l.startsWith(`#${view.id} `));
    expect(line).toBeDefined();
    expect(line).toContain('customer');
    expect(line).toContain(company);
    expect(line).toContain(customer);
    expect(line).toContain('"plain list"');
    expect(line).toContain('last used never');
    expect(listed.out.join('\n')).not.toContain(key);
    expect(listed.out.join('\n')).not.toContain(sha256(key));
  });

  it('key revoke sets revokedAt once, ends the key at once, and refuses an unknown id', async () => {
    const { company, customer } = await tenant();
    const { key, view } = await createKey('--role', 'customer', '--company', company, '--customer', customer);
    const clock = new TestClock(Date.now());
    expect(await tenants.authenticateApiKey(target.db, clock, key)).toMatchObject({ keyId: view.id, role: 'customer', companyId: company });

    const revoked = await wharf('key', 'revoke', String(view.id));
    expect(revoked.code).toBe(0);
    expect(revoked.err).toEqual([]);
    expect(revoked.out).toHaveLength(1);
    const revokedAt = /revoked at (\S+)$/.exec(revoked.out[0]!)?.[1];
    expect(revokedAt).toMatch(ISO);
    expect(revoked.out[0]).toBe(`key #${view.id} revoked at ${revokedAt}`);

    const listed = (JSON.parse((await wharf('key', 'list', '--json')).out.join('\n')) as KeyView[]).find((v) => v.id === view.id);
    expect(listed?.revokedAt).toBe(revokedAt);
    expect(await tenants.authenticateApiKey(target.db, clock, key)).toBeUndefined();

    await sleep(20);
    const again = await wharf('key', 'revoke', String(view.id));
    expect(again.code).toBe(0);
    expect(again.out).toEqual([`key #${view.id} revoked at ${revokedAt}`]);
    const listedAgain = (JSON.parse((await wharf('key', 'list', '--json')).out.join('\n')) as KeyView[]).find((v) => v.id === view.id);
    expect(listedAgain?.revokedAt).toBe(revokedAt);

    const unknown = await wharf('key', 'revoke', '987654321');
    expect(unknown.code).toBe(1);
    expect(unknown.out).toEqual([]);
    expect(unknown.err.join('\n')).toContain('987654321');
    expect(unknown.err.join('\n')).toContain('not found');

    const notANumber = await wharf('key', 'revoke', 'abc');
    expect(notANumber.code).not.toBe(0);
    expect(notANumber.out).toEqual([]);
  });

  it('key revoke takes a plain decimal id only, so a typo never revokes another key', async () => {
    const { company } = await tenant();
    const { key, view } = await createKey('--role', 'admin', '--company', company);
    const clock = new TestClock(Date.now());
    for (const spelling of [`0x${view.id.toString(16)}`, `${view.id}e0`, `${view.id}.0`, `0b${view.id.toString(2)}`]) {
      const result = await wharf('key', 'revoke', spelling);
      expect({ spelling, code: result.code === 0 ? 0 : 'refused', out: result.out }).toEqual({ spelling, code: 'refused', out: [] });
    }
    expect(await tenants.authenticateApiKey(target.db, clock, key)).toMatchObject({ keyId: view.id });
    expect(
      (await target.db.selectFrom('api_keys').select('revoked_at').where('id', '=', view.id).executeTakeFirstOrThrow()).revoked_at,
    ).toBeNull();
  });

  it('revoking one key leaves the other keys working', async () => {
    const { company, customer } = await tenant();
    const first = await createKey('--role', 'customer', '--company', company, '--customer', customer);
    const second = await createKey('--role', 'admin', '--company', company);
    expect((await wharf('key', 'revoke', String(first.view.id))).code).toBe(0);
    const clock = new TestClock(Date.now());
    expect(await tenants.authenticateApiKey(target.db, clock, first.key)).toBeUndefined();
    expect(await tenants.authenticateApiKey(target.db, clock, second.key)).toMatchObject({ keyId: second.view.id, role: 'admin' });
  });
});

describe('wharf CLI usage', () => {
  it('refuses a DATABASE_URL it cannot use with exit 2, naming the variable', async () => {
    const result = await run(['migrate', '--db', 'mysql://x']);
    expect(result.code).toBe(2);
    expect(result.err.join('\n')).toContain('DATABASE_URL');
  });

  it('refuses an unknown command with exit 2', async () => {
    const result = await run(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.out).toEqual([]);
    expect(result.err.join('\n')).toContain('frobnicate');
  });
});
