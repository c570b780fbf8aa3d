import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../src/db/migrations/index.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';
import { describeEachDialect } from './helpers/dialects.js';
import { uniqueId } from './helpers/factories.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { stringify as toYaml } from 'yaml';
import { EXAMPLE_RATE_CARD } from '../src/demo.js';
import { createRater, listRateCards } from '../src/modules/rating/rating.service.js';
import type { ApiKeyView } from '../src/modules/tenants/tenants.schemas.js';

/** The `wharf` command line, run in-process against a real database of each dialect. */

const KEY_PATTERN = /^wk_[A-Za-z0-9_-]{43,}$/;
const VIEW_KEYS = [
  'id',
  'role',
  'company',
  'customers',
  'facilities',
  'userIds',
  'label',
  'createdAt',
  'lastUsedAt',
  'revokedAt',
  'rateLimit',
  'expiresAt',
  'replacedBy',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

  async function createKey(...args: string[]): Promise<{ key: string; view: ApiKeyView }> {
    const created = await wharf('key', 'create', ...args, '--json');
    expect(created.err).toEqual([]);
    expect(created.code).toBe(0);
    const { key, ...view } = JSON.parse(created.out.join('\n')) as ApiKeyView & { key: string };
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

  it('key create --rate-limit gives the key its own limit a minute, shown by key list; 0 is none; a bad value is refused', async () => {
    const { company } = await tenant();
    const { key, view } = await createKey('--role', 'operator', '--company', company, '--rate-limit', '120');
    expect(view.rateLimit).toBe(120);
    const unlimited = await createKey('--role', 'operator', '--company', company, '--rate-limit', '0');
    expect(unlimited.view.rateLimit).toBe(0);
    const lines = (await wharf('key', 'list', '--company', company)).out;
    expect(lines.find((line) => line.startsWith(`#${view.id} `))).toContain('  120 a minute');
    expect(lines.find((line) => line.startsWith(`#${unlimited.view.id} `))).toContain('  no rate limit');
    const limited = await tenants.authenticateApiKey(target.db, new TestClock(Date.now()), key);
    expect(limited?.rateLimit).toBe(120);

    for (const bad of ['-1', 'many', '1.5', '1000000001']) {
      const refused = await wharf('key', 'create', '--role', 'operator', '--company', company, '--rate-limit', bad);
      expect(refused.code, bad).not.toBe(0);
      expect(refused.out, bad).toEqual([]);
      expect(refused.err.join('\n'), bad).toContain('must be requests a minute, 0 to 1000000000');
    }
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
      rateLimit: null,
      expiresAt: null,
      replacedBy: null,
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
    const views = JSON.parse(text) as ApiKeyView[];
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

    const ofCompany = JSON.parse((await wharf('key', 'list', '--json', '--company', company)).out.join('\n')) as ApiKeyView[];
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

    const listed = (JSON.parse((await wharf('key', 'list', '--json')).out.join('\n')) as ApiKeyView[]).find((v) => v.id === view.id);
    expect(listed?.revokedAt).toBe(revokedAt);
    expect(await tenants.authenticateApiKey(target.db, clock, key)).toBeUndefined();

    await sleep(20);
    const again = await wharf('key', 'revoke', String(view.id));
    expect(again.code).toBe(0);
    expect(again.out).toEqual([`key #${view.id} revoked at ${revokedAt}`]);
    const listedAgain = (JSON.parse((await wharf('key', 'list', '--json')).out.join('\n')) as ApiKeyView[]).find((v) => v.id === view.id);
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
  it('--version (and -V) prints the version of package.json, and nothing else', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(await run(['--version'])).toEqual({ code: 0, out: [version], err: [] });
    expect(await run(['-V'])).toEqual({ code: 0, out: [version], err: [] });
  });

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

describeEachDialect('wharf ratecard', (dialect) => {
  let target: CliTarget;
  let dir: string;
  const wharf = (...argv: string[]) => run([...argv, '--db', target.url]);
  const EXAMPLE_TEXT = readFileSync(EXAMPLE_RATE_CARD, 'utf8');
  const EXAMPLE_NAME = 'Demo Parcel Rates 2026';

  beforeAll(async () => {
    target = await createCliTarget(dialect);
    dir = mkdtempSync(join(tmpdir(), 'wharf-ratecard-'));
  });
  afterAll(async () => {
    await target?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Writes a card file in the test's directory and returns its path. */
  const cardFile = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  /** The example card after `edit`, as a JSON file. */
  const exampleVariant = (name: string, edit: (card: Record<string, any>) => void) => {
    const card = JSON.parse(EXAMPLE_TEXT) as Record<string, any>;
    edit(card);
    return cardFile(name, JSON.stringify(card, null, 2));
  };

  async function company() {
    const id = uniqueId('CO');
    expect((await wharf('company', 'add', id)).code).toBe(0);
    return id;
  }
  const versions = async (companyId: string) =>
    (
      await target.db.selectFrom('rate_cards').select(['user_id', 'version']).where('company_id', '=', companyId).orderBy('id').execute()
    ).map((row) => ({ userId: Number(row.user_id), version: row.version }));

  it('ratecard load stores the example card as the company default, once', async () => {
    const co = await company();
    expect(await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', co)).toEqual({
      code: 0,
      out: [`rate card "${EXAMPLE_NAME}" loaded for ${co} (the company default) as version 1, effective 2026-01-01`],
      err: [],
    });
    expect(await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', co)).toEqual({
      code: 0,
      out: [`rate card "${EXAMPLE_NAME}" is already version 1 for ${co} (the company default); nothing changed`],
      err: [],
    });
    // The same card written as YAML is the same card.
    const yaml = cardFile('example.yaml', toYaml(JSON.parse(EXAMPLE_TEXT)));
    expect(readFileSync(yaml, 'utf8').startsWith('name: Demo Parcel Rates 2026\n')).toBe(true);
    expect(await wharf('ratecard', 'load', yaml, '--company', co)).toEqual({
      code: 0,
      out: [`rate card "${EXAMPLE_NAME}" is already version 1 for ${co} (the company default); nothing changed`],
      err: [],
    });
    expect(await versions(co)).toEqual([{ userId: 0, version: 1 }]);
  });

  it('ratecard load --user-id binds the card to one UserID, a version series of its own', async () => {
    const co = await company();
    expect((await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', co)).code).toBe(0);
    expect(await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', co, '--user-id', '1001')).toEqual({
      code: 0,
      out: [`rate card "${EXAMPLE_NAME}" loaded for ${co} (UserID 1001) as version 1, effective 2026-01-01`],
      err: [],
    });
    const marked = exampleVariant('marked-up.json', (card) => {
      card.name = 'Marked up';
      card.markup = { percent: '10' };
    });
    expect(await wharf('ratecard', 'load', marked, '--company', co, '--user-id', '1001')).toEqual({
      code: 0,
      out: [`rate card "Marked up" loaded for ${co} (UserID 1001) as version 2, effective 2026-01-01`],
      err: [],
    });
    expect(await versions(co)).toEqual([
      { userId: 0, version: 1 },
      { userId: 1001, version: 1 },
      { userId: 1001, version: 2 },
    ]);
  });

  it('ratecard load reads a YAML card, and the card prices', async () => {
    const co = await company();
    const yaml = cardFile(
      'small.yaml',
      [
        '# A small card, written by hand',
        'name: Small YAML card',
        'currency: USD',
        'effective:',
        '  from: 2026-01-01',
        '  to: 2099-12-31',
        'timeZone: America/Chicago',
        'zones:',
        '  distanceBands:',
        '    - upToMiles: 1000',
        '      zone: 2',
        '    - zone: 3',
        'services:',
        '  - name: Flat',
        '    rates:',
        '      zones: [2, 3]',
        '      breaks:',
        '        - upTo: 10',
        '          prices: [5.00, "7.50"]',
        '',
      ].join('\n'),
    );
    expect(await wharf('ratecard', 'load', yaml, '--company', co, '--user-id', '2002')).toEqual({
      code: 0,
      out: [`rate card "Small YAML card" loaded for ${co} (UserID 2002) as version 1, effective 2026-01-01 to 2099-12-31`],
      err: [],
    });
    const clock = new TestClock();
    const rater = createRater(target.db, clock);
    const principal = {
      keyId: 1,
      role: 'rater' as const,
      companyId: co,
      customerIds: [],
      facilityIds: [],
      userIds: [2002],
      rateLimit: null,
    };
    // 90001 → 10001 is 2,449 miles: beyond the 1,000 of the first band, zone 3; 5.2 lb is within the 10 lb break.
    expect(
      await rater.quote(principal, {
        UserID: 2002,
        Data: { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' },
      }),
    ).toEqual({ Result: [{ name: 'Flat', Price: '7.5000' }], Page: null, ErrorMsg: '', ErrorSeverity: 0, ErrorSource: '', Status: true });
  });

  it('ratecard load refuses a broken card with exit 1, naming each problem by its path, and keeps the card in force', async () => {
    const co = await company();
    expect((await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', co)).code).toBe(0);

    const broken = exampleVariant('broken.json', (card) => {
      card.services[0].rates.breaks[2].prices.pop();
      card.fuel.appliesTo.push('Sunday');
    });
    expect(await wharf('ratecard', 'load', broken, '--company', co)).toEqual({
      code: 1,
      out: [],
      err: [
        'error: the rate card was not loaded; the card in force stays:',
        '  services[0].rates.breaks[2].prices has 7 prices; services[0].rates.zones names 8 zones',
        '  fuel.appliesTo[8] names Sunday, which is neither Base nor a surcharge of the card',
      ],
    });

    const badShape = exampleVariant('bad-shape.json', (card) => {
      delete card.name;
      card.currency = 'usd';
      card.effective.from = '2026-02-30';
    });
    expect(await wharf('ratecard', 'load', badShape, '--company', co)).toEqual({
      code: 1,
      out: [],
      err: [
        'error: the rate card was not loaded; the card in force stays:',
        '  name is required',
        '  currency must be an ISO 4217 code such as USD',
      ],
    });

    const badDate = exampleVariant('bad-date.json', (card) => {
      card.effective = { from: '2026-02-30', to: '2025-12-31' };
    });
    expect(await wharf('ratecard', 'load', badDate, '--company', co)).toEqual({
      code: 1,
      out: [],
      err: [
        'error: the rate card was not loaded; the card in force stays:',
        '  effective.from 2026-02-30 is not a date of the calendar',
        '  effective.to 2025-12-31 is before effective.from 2026-02-30',
      ],
    });

    const duplicateKeys = cardFile('duplicate.yaml', 'name: One\nname: Two\n');
    const duplicate = await wharf('ratecard', 'load', duplicateKeys, '--company', co);
    expect(duplicate.code).toBe(1);
    expect(duplicate.out).toEqual([]);
    expect(duplicate.err[0]).toBe('error: the rate card was not loaded; the card in force stays:');
    expect(duplicate.err.slice(1)).toEqual([
      expect.stringMatching(/^ {2}the file is not valid JSON or YAML \(line 2, column 1\): Map keys must be unique/),
    ]);

    expect(await versions(co)).toEqual([{ userId: 0, version: 1 }]);
  });

  it('ratecard load refuses a missing file, an unknown company and a UserID that is not positive with exit 1', async () => {
    const co = await company();
    const missing = join(dir, 'no-such-card.json');
    expect(await wharf('ratecard', 'load', missing, '--company', co)).toEqual({
      code: 1,
      out: [],
      err: [`error: ENOENT: no such file or directory, open '${missing}'`],
    });
    expect(await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', 'NOSUCHCO')).toEqual({
      code: 1,
      out: [],
      err: ['error: Company NOSUCHCO not found'],
    });
    expect(await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', co, '--user-id', '0')).toEqual({
      code: 1,
      out: [],
      err: ['error: --user-id must be a positive integer'],
    });
    const notANumber = await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', co, '--user-id', 'x');
    expect(notANumber.code).toBe(2);
    expect(notANumber.err.join('\n')).toContain('--user-id');
    const noCompany = await wharf('ratecard', 'load', EXAMPLE_RATE_CARD);
    expect(noCompany.code).toBe(2);
    expect(noCompany.err.join('\n')).toContain('--company');
    expect(await versions(co)).toEqual([]);
    expect(await wharf('ratecard', 'list', '--company', 'NOSUCHCO')).toEqual({
      code: 1,
      out: [],
      err: ['error: Company NOSUCHCO not found'],
    });
  });

  it('ratecard load refuses --user-id given twice: exit 2, saying why, nothing stored', async () => {
    const co = await company();
    const twice = await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', co, '--user-id', '1', '--user-id', '2');
    expect(twice.code).toBe(2);
    expect(twice.out).toEqual([]);
    expect(await versions(co)).toEqual([]);
    // As every usage error: the reason, then the command's help.
    expect(twice.err[0]).toBe('error: --user-id may be given once');
    expect(twice.err.join('\n')).toContain('Usage: wharf ratecard load [options] <file>');
  });

  it('ratecard list prints every version, marking the one in force of each binding', async () => {
    const co = await company();
    const ISO_Z = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';
    expect(await wharf('ratecard', 'list', '--company', co)).toEqual({ code: 0, out: ['no rate cards'], err: [] });
    expect(await wharf('ratecard', 'list', '--company', co, '--json')).toEqual({ code: 0, out: ['[]'], err: [] });

    expect((await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', co)).code).toBe(0);
    const later = exampleVariant('later.json', (card) => {
      card.name = 'From 2099';
      card.effective = { from: '2099-01-01' };
    });
    expect((await wharf('ratecard', 'load', later, '--company', co)).code).toBe(0);
    expect((await wharf('ratecard', 'load', EXAMPLE_RATE_CARD, '--company', co, '--user-id', '1001')).code).toBe(0);

    const json = await wharf('ratecard', 'list', '--company', co, '--json');
    expect(json.code).toBe(0);
    expect(json.err).toEqual([]);
    const cards = JSON.parse(json.out.join('\n')) as { id: number; loadedAt: string }[];
    const ids = (await target.db.selectFrom('rate_cards').select('id').where('company_id', '=', co).orderBy('id').execute()).map((row) =>
      Number(row.id),
    );
    expect(cards).toEqual([
      {
        id: ids[1],
        company: co,
        userId: null,
        version: 2,
        name: 'From 2099',
        effectiveFrom: '2099-01-01',
        effectiveTo: null,
        timeZone: 'America/New_York',
        loadedAt: expect.stringMatching(new RegExp(`^${ISO_Z}$`)),
        inForce: false,
      },
      {
        id: ids[0],
        company: co,
        userId: null,
        version: 1,
        name: EXAMPLE_NAME,
        effectiveFrom: '2026-01-01',
        effectiveTo: null,
        timeZone: 'America/New_York',
        loadedAt: expect.stringMatching(new RegExp(`^${ISO_Z}$`)),
        inForce: true,
      },
      {
        id: ids[2],
        company: co,
        userId: 1001,
        version: 1,
        name: EXAMPLE_NAME,
        effectiveFrom: '2026-01-01',
        effectiveTo: null,
        timeZone: 'America/New_York',
        loadedAt: expect.stringMatching(new RegExp(`^${ISO_Z}$`)),
        inForce: true,
      },
    ]);
    expect(cards).toEqual(JSON.parse(JSON.stringify(await listRateCards(target.db, { now: () => Date.now() }, co))));

    const text = await wharf('ratecard', 'list', '--company', co);
    expect(text.code).toBe(0);
    expect(text.err).toEqual([]);
    expect(text.out).toHaveLength(3);
    const [later2, first, bound] = text.out;
    expect(later2).toMatch(
      new RegExp(`^#${ids[1]}  default  v2  "From 2099"  effective 2099-01-01 \\(America/New_York\\)  loaded ${ISO_Z}$`),
    );
    expect(first).toMatch(
      new RegExp(`^#${ids[0]}  default  v1  "${EXAMPLE_NAME}"  effective 2026-01-01 \\(America/New_York\\)  loaded ${ISO_Z}  IN FORCE$`),
    );
    expect(bound).toMatch(
      new RegExp(
        `^#${ids[2]}  UserID 1001  v1  "${EXAMPLE_NAME}"  effective 2026-01-01 \\(America/New_York\\)  loaded ${ISO_Z}  IN FORCE$`,
      ),
    );
    expect(first).toContain(`loaded ${cards[1]!.loadedAt}`);
  });
});
