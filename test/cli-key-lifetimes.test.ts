import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp, EDI_PREFIX } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { App } from '../src/http/module.js';
import { sha256Hex } from '../src/lib/ids.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';
import { describeEachDialect } from './helpers/dialects.js';
import { problems, uniqueId } from './helpers/factories.js';
import { ITEM_SEARCH } from './helpers/paths.js';
import type { ApiKeyView } from '../src/modules/tenants/tenants.schemas.js';

/**
 * Keys that end: `key create --expires` and `key rotate`. The CLI makes the keys; a server on the
 * same database, on a test clock, shows when they stop working (401, as an unknown key).
 */

const UNKNOWN = problems('Unknown or revoked API key');
const DAY = 24 * 60 * 60 * 1000;

const KEY_PATTERN = /^wk_[A-Za-z0-9_-]{43,}$/;
const HOUR = 60 * 60 * 1000;

describeEachDialect('keys that expire', (dialect) => {
  let target: CliTarget;
  let app: App;
  let clock: TestClock;
  let company: string;
  let customer: string;
  let facility: string;
  const wharf = (...argv: string[]) => run([...argv, '--db', target.url]);
  const countKeys = async () => (await target.db.selectFrom('api_keys').select('id').execute()).length;
  const search = (key: string) =>
    app.inject({
      method: 'POST',
      url: `${EDI_PREFIX}${ITEM_SEARCH}`,
      headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
      payload: JSON.stringify({ CompanyID: company, CustomerID: customer }),
    });
  const statusAt = async (at: number, key: string) => {
    clock.time = at;
    return (await search(key)).statusCode;
  };
  async function createKey(...args: string[]): Promise<{ key: string; view: ApiKeyView }> {
    const created = await wharf('key', 'create', '--role', 'customer', '--company', company, '--customer', customer, ...args, '--json');
    expect(created.err).toEqual([]);
    expect(created.code).toBe(0);
    const { key, ...view } = JSON.parse(created.out.join('\n')) as ApiKeyView & { key: string };
    return { key, view };
  }
  const listed = async (id: number) => {
    const keys = JSON.parse((await wharf('key', 'list', '--json')).out.join('\n')) as ApiKeyView[];
    return keys.find((k) => k.id === id);
  };
  const lineOf = async (id: number) => (await wharf('key', 'list')).out.find((line) => line.startsWith(`#${id} `));

  beforeAll(async () => {
    target = await createCliTarget(dialect);
    company = uniqueId('CO');
    customer = uniqueId('CU');
    expect((await wharf('company', 'add', company)).code).toBe(0);
    expect((await wharf('customer', 'add', company, customer)).code).toBe(0);
    facility = uniqueId('FA');
    expect((await wharf('facility', 'add', company, facility)).code).toBe(0);
    clock = new TestClock(Date.now());
    app = await buildApp({ config: loadConfig({ databaseUrl: target.url }, {}), db: target.db, clock, logger: false });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await target?.destroy();
  });

  it('key create --expires stores the instant, and key list shows it', async () => {
    const { view } = await createKey('--expires', '2099-01-31T09:00:00-08:00', '--label', 'until 2099');
    expect(view.expiresAt).toBe('2099-01-31T17:00:00.000Z');
    expect(await listed(view.id)).toEqual(view);
    expect(await lineOf(view.id)).toBe(
      `#${view.id}  customer  ${company}  customers=${customer}  "until 2099"  created ${view.createdAt}  last used never  expires 2099-01-31T17:00:00.000Z`,
    );
    // A date alone is 00:00 UTC of that day.
    expect((await createKey('--expires', '2099-02-01')).view.expiresAt).toBe('2099-02-01T00:00:00.000Z');
    // Without --expires a key never expires, and its line says nothing of it.
    const forever = await createKey();
    expect(forever.view.expiresAt).toBeNull();
    expect(await lineOf(forever.view.id)).toBe(
      `#${forever.view.id}  customer  ${company}  customers=${customer}  created ${forever.view.createdAt}  last used never`,
    );
  });

  it('key list marks a key whose expiry has passed EXPIRED', async () => {
    const now = Date.now();
    const { view } = await tenants.createApiKey(target.db, new TestClock(now - 2 * DAY), {
      role: 'admin',
      companyId: company,
      customerIds: [],
      facilityIds: [],
      userIds: [],
      label: '',
      expiresAt: now - DAY,
    });
    const expiredAt = new Date(now - DAY).toISOString();
    expect(await lineOf(view.id)).toBe(
      `#${view.id}  admin  ${company}  (whole company)  created ${view.createdAt}  last used never  EXPIRED ${expiredAt}`,
    );
  });

  it('a key stops working at the instant it expires, answered as an unknown key, even when a server remembers it', async () => {
    const { key, view } = await createKey('--expires', '2099-03-01T00:00:00Z');
    const end = Date.parse(view.expiresAt!);
    // Looked up half a second before the end: a server may trust it for a second, but not past the end.
    expect(await statusAt(end - 500, key)).toBe(200);
    expect(await statusAt(end - 1, key)).toBe(200);
    const response = await (async () => {
      clock.time = end;
      return search(key);
    })();
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(UNKNOWN);
    expect(await statusAt(end + DAY, key)).toBe(401);
    expect(await tenants.authenticateApiKey(target.db, new TestClock(end - 1), key)).toMatchObject({ keyId: view.id });
    expect(await tenants.authenticateApiKey(target.db, new TestClock(end), key)).toBeUndefined();
  });

  it('key create refuses an --expires that is not an ISO date, or not in the future, with exit 1, storing nothing', async () => {
    const before = await countKeys();
    const notADate = (text: string) => ({
      code: 1,
      out: [],
      err: [`error: --expires ${text} is not an ISO 8601 date (2027-01-31) or date-time with a zone (2027-01-31T17:00:00Z)`],
    });
    for (const text of ['tomorrow', '2099-02-30', '2099-01-31T17:00', '2099-01-31 17:00Z', '31/01/2099', '']) {
      expect(await wharf('key', 'create', '--role', 'admin', '--company', company, '--expires', text)).toEqual(notADate(text));
    }
    expect(await wharf('key', 'create', '--role', 'admin', '--company', company, '--expires', '2020-01-01')).toEqual({
      code: 1,
      out: [],
      err: ['error: --expires 2020-01-01T00:00:00.000Z is not in the future'],
    });
    expect(await countKeys()).toBe(before);
  });

  it('key rotate prints a new key of the same role, scope and label; the old one works 24 hours more, then stops', async () => {
    const old = await createKey('--facility', facility, '--label', 'ERP sync');
    const rotated = await wharf('key', 'rotate', String(old.view.id));
    expect(rotated.code).toBe(0);
    expect(rotated.out).toHaveLength(1);
    const newKey = rotated.out[0]!;
    expect(newKey).toMatch(KEY_PATTERN);
    expect(newKey).not.toBe(old.key);

    // Stored as its hash, as every key.
    const { id: freshId } = await target.db
      .selectFrom('api_keys')
      .select('id')
      .where('key_hash', '=', sha256Hex(newKey))
      .executeTakeFirstOrThrow();
    const before = (await listed(old.view.id))!;
    const fresh = (await listed(Number(freshId)))!;
    expect(fresh).toEqual({
      ...old.view,
      id: Number(freshId),
      createdAt: fresh.createdAt,
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: null,
    });
    expect(before).toEqual({
      ...old.view,
      expiresAt: new Date(Date.parse(fresh.createdAt) + 24 * HOUR).toISOString(),
      replacedBy: fresh.id,
    });
    expect(rotated.err).toEqual([`key #${fresh.id} replaces key #${old.view.id}, which stops working at ${before.expiresAt}`]);

    const end = Date.parse(before.expiresAt!);
    expect(await statusAt(end - 1, old.key)).toBe(200);
    expect(await statusAt(end - 1, newKey)).toBe(200);
    expect(await statusAt(end, old.key)).toBe(401);
    expect(await statusAt(end, newKey)).toBe(200);
    expect(await tenants.authenticateApiKey(target.db, clock, newKey)).toMatchObject({
      keyId: fresh.id,
      role: 'customer',
      companyId: company,
      customerIds: [customer],
      facilityIds: [facility],
    });
  });

  it('key rotate --grace sets the hours the old key keeps; --json shows both keys; an earlier expiry stays', async () => {
    const old = await createKey('--label', 'half an hour');
    const rotated = await wharf('key', 'rotate', String(old.view.id), '--grace', '0.5', '--json');
    expect(rotated.code).toBe(0);
    expect(rotated.err).toEqual([]);
    const { key, replaces, ...view } = JSON.parse(rotated.out.join('\n')) as ApiKeyView & { key: string; replaces: ApiKeyView };
    expect(key).toMatch(KEY_PATTERN);
    expect(view).toEqual({ ...old.view, id: view.id, createdAt: view.createdAt, expiresAt: null });
    expect(replaces).toEqual({
      ...old.view,
      expiresAt: new Date(Date.parse(view.createdAt) + HOUR / 2).toISOString(),
      replacedBy: view.id,
    });

    const atOnce = await createKey();
    const cut = await wharf('key', 'rotate', String(atOnce.view.id), '--grace', '0');
    expect(cut.code).toBe(0);
    expect(await tenants.authenticateApiKey(target.db, { now: () => Date.now() }, atOnce.key)).toBeUndefined();
    expect(await tenants.authenticateApiKey(target.db, { now: () => Date.now() }, cut.out[0]!)).toMatchObject({ role: 'customer' });

    const soon = new Date(Date.now() + HOUR).toISOString();
    const expiring = await createKey('--expires', soon);
    const kept = await wharf('key', 'rotate', String(expiring.view.id), '--json');
    expect(kept.code).toBe(0);
    expect((JSON.parse(kept.out.join('\n')) as { replaces: ApiKeyView }).replaces.expiresAt).toBe(soon);
  });

  it('key rotate keeps the expiry, rate limit, scope and label, and says so; a key already replaced is refused with exit 1', async () => {
    const old = await createKey('--facility', facility, '--label', 'ERP sync', '--rate-limit', '100', '--expires', '2099-06-30T12:00:00Z');
    const rotated = await wharf('key', 'rotate', String(old.view.id), '--grace', '2');
    expect(rotated.code).toBe(0);
    const { id: freshId } = await target.db
      .selectFrom('api_keys')
      .select('id')
      .where('key_hash', '=', sha256Hex(rotated.out[0]!))
      .executeTakeFirstOrThrow();
    const fresh = (await listed(Number(freshId)))!;
    const graceEnd = new Date(Date.parse(fresh.createdAt) + 2 * HOUR).toISOString();
    expect(rotated.err).toEqual([
      `key #${fresh.id} replaces key #${old.view.id}, which stops working at ${graceEnd}; key #${fresh.id} expires at 2099-06-30T12:00:00.000Z, as key #${old.view.id} was to`,
    ]);
    expect(fresh).toEqual({ ...old.view, id: fresh.id, createdAt: fresh.createdAt, expiresAt: '2099-06-30T12:00:00.000Z' });
    expect(await listed(old.view.id)).toEqual({ ...old.view, expiresAt: graceEnd, replacedBy: fresh.id });
    expect(await lineOf(old.view.id)).toBe(
      `#${old.view.id}  customer  ${company}  customers=${customer} facilities=${facility}  "ERP sync"  created ${old.view.createdAt}  last used never  100 a minute  replaced by #${fresh.id}  expires ${graceEnd}`,
    );

    // In its grace period the old key is being replaced already: rotating it again would leave two new keys.
    const keysBefore = await target.db.selectFrom('api_keys').selectAll().orderBy('id').execute();
    expect(await wharf('key', 'rotate', String(old.view.id))).toEqual({
      code: 1,
      out: [],
      err: [
        `error: API key ${old.view.id} was already replaced by key ${fresh.id} and works only until ${graceEnd}; rotate key ${fresh.id} instead`,
      ],
    });
    expect(await target.db.selectFrom('api_keys').selectAll().orderBy('id').execute()).toEqual(keysBefore);
    // Its replacement rotates, keeping the expiry again.
    const next = await wharf('key', 'rotate', String(fresh.id), '--json');
    expect(next.code).toBe(0);
    expect(JSON.parse(next.out.join('\n'))).toMatchObject({ expiresAt: '2099-06-30T12:00:00.000Z', rateLimit: 100, label: 'ERP sync' });
  });

  it('key rotate refuses an unknown, revoked or expired key and a bad --grace with exit 1, changing nothing', async () => {
    const revoked = await createKey();
    expect((await wharf('key', 'revoke', String(revoked.view.id))).code).toBe(0);
    const now = Date.now();
    const expired = await tenants.createApiKey(target.db, new TestClock(now - 2 * DAY), {
      role: 'admin',
      companyId: company,
      customerIds: [],
      facilityIds: [],
      userIds: [],
      label: '',
      expiresAt: now - DAY,
    });
    const alive = await createKey();
    const keysBefore = await target.db.selectFrom('api_keys').selectAll().orderBy('id').execute();
    const refused = (message: string) => ({ code: 1, out: [], err: [`error: ${message}`] });

    expect(await wharf('key', 'rotate', '987654321')).toEqual(refused('API key 987654321 not found'));
    expect(await wharf('key', 'rotate', String(revoked.view.id))).toEqual(
      refused(`API key ${revoked.view.id} is revoked; it cannot be rotated`),
    );
    expect(await wharf('key', 'rotate', String(expired.view.id))).toEqual(
      refused(`API key ${expired.view.id} expired at ${new Date(now - DAY).toISOString()}; it cannot be rotated`),
    );
    for (const grace of ['abc', '-1', '1e3', '24h', '']) {
      expect(await wharf('key', 'rotate', String(alive.view.id), '--grace', grace)).toEqual(
        refused(`--grace ${grace} is not a number of hours (e.g. 24 or 0.5)`),
      );
    }
    expect(await wharf('key', 'rotate', String(alive.view.id), '--grace', '8761')).toEqual(
      refused('--grace must be from 0 to 8760 hours (a year)'),
    );
    expect(await target.db.selectFrom('api_keys').selectAll().orderBy('id').execute()).toEqual(keysBefore);
  });
});
