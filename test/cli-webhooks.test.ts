import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { settleChange } from '../src/app.js';
import type { Config } from '../src/config.js';
import { connectDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/database.js';
import type { DialectName } from '../src/db/dialect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { migrations } from '../src/db/migrations/index.js';
import type { Clock } from '../src/lib/clock.js';
import { sha256Hex } from '../src/lib/ids.js';
import { VERSION } from '../src/lib/version.js';
import { sequenceEvents } from '../src/modules/events/events.service.js';
import { importItems } from '../src/modules/items/items.service.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { fanOut } from '../src/modules/webhooks/deliveries.service.js';
import * as server from '../src/server.js';
import { TestClock } from './helpers/app.js';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';
import { describeEachDialect, postgresDatabaseExists, postgresDatabaseUrl } from './helpers/dialects.js';
import { createKey, uniqueId } from './helpers/factories.js';
import { freePorts, stopWharf, type Wharf } from './helpers/processes.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { PROCESS_TEST_MS } from './helpers/two-processes.js';

/**
 * `wharf webhook add|list|rotate|disable|enable|replay` (the operator as the company's
 * administrator), `wharf serve --no-webhooks`, and `wharf worker`, which dispatches webhooks alone
 * (docs/webhooks.md): in-process against a real database of each dialect, and the worker as a real
 * process delivering to a real loopback receiver.
 */

/** What `serve` and `demo` ask startServer for: the real one would listen, so it is stood in for here. */
const started = vi.hoisted(() => [] as ({ migrate?: boolean; webhooks?: boolean } | undefined)[]);
vi.mock('../src/server.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/server.js')>();
  return {
    ...real,
    startServer: vi.fn(async (config: Config, options?: { migrate?: boolean; webhooks?: boolean }) => {
      started.push(options);
      const db = real.openDatabase(config);
      await migrateToLatest(db);
      return { db, app: { log: pino({ level: 'silent' }) }, address: 'http://127.0.0.1:8080', close: () => db.destroy() };
    }),
    closeOnSignals: vi.fn(),
  };
});

const ENDPOINT_ID = /^ep_[0-9A-HJKMNP-TV-Z]{26}$/;
const DELIVERY_ID = /^dlv_[0-9A-HJKMNP-TV-Z]{26}$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** When the test clock says the events happened. */
const NOW = '2026-03-05T14:07:09.123Z';
const HTTP_REFUSED = 'error: Url must be https:// (WEBHOOK_ALLOW_PRIVATE=true allows http:// and private or loopback addresses)';

/** Imports items through the item service as an admin key of the company: one item.created event each. */
async function importAsAdmin(db: Db, clock: Clock, companyId: string, customerId: string, itemIds: string[]): Promise<void> {
  const key = await createKey(db, clock, { companyId, customerIds: [customerId], facilityIds: [] }, 'admin');
  const principal = (await tenants.authenticateApiKey(db, clock, key))!;
  const request = { CompanyID: companyId, CustomerID: customerId, Items: itemIds.map((itemID) => ({ itemID })) };
  const identity = { companyId, keyId: principal.keyId, requestHash: sha256Hex(JSON.stringify(request)) };
  await importItems({ db, clock, principal, identity, settle: settleChange }, request);
}

/** A database URL that names nothing, and where a message shows it. */
function missingDatabase(dialect: DialectName, dir: string): { url: string; where: string; stillMissing(): Promise<boolean> } {
  if (dialect === 'sqlite') {
    const path = join(dir, 'nowhere', 'wharf.db');
    return { url: `sqlite:${path}`, where: path, stillMissing: async () => !existsSync(join(dir, 'nowhere')) };
  }
  const name = `wharf_missing_${uniqueId('x').toLowerCase()}`;
  const where = postgresDatabaseUrl(name);
  return { url: where, where, stillMissing: async () => !(await postgresDatabaseExists(name)) };
}

describeEachDialect('wharf webhook', (dialect) => {
  let target: CliTarget;
  const wharf = (...argv: string[]) => run([...argv, '--db', target.url]);

  beforeAll(async () => {
    target = await createCliTarget(dialect);
    expect((await wharf('migrate')).code).toBe(0);
  });
  afterAll(async () => {
    await target?.destroy();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** A company with two customers, made through the CLI. */
  async function tenant() {
    const company = uniqueId('CO');
    const customers = [uniqueId('CU'), uniqueId('CU')] as const;
    expect((await wharf('company', 'add', company)).code).toBe(0);
    for (const customer of customers) expect((await wharf('customer', 'add', company, customer)).code).toBe(0);
    return { company, customers };
  }

  const endpointRow = (endpointId: string) =>
    target.db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', endpointId).executeTakeFirstOrThrow();

  /** `webhook add`, expected to succeed: the endpoint id and the secret it printed. */
  async function add(...argv: string[]): Promise<{ id: string; secret: string; out: string[] }> {
    const added = await wharf('webhook', 'add', ...argv);
    expect(added).toMatchObject({ code: 0, err: [] });
    const id = /^endpoint (\S+) added: /.exec(added.out[0] ?? '')?.[1] ?? '';
    const secret = /^secret (\S+) {2}\(shown this once: keep it to verify the signatures\)$/.exec(added.out[1] ?? '')?.[1] ?? '';
    expect(id).toMatch(ENDPOINT_ID);
    expect(secret).toMatch(SECRET);
    return { id, secret, out: added.out };
  }

  it('add prints the endpoint and its secret once; list shows every endpoint, never a secret', async () => {
    const { company, customers } = await tenant();
    expect(await wharf('webhook', 'list', company)).toEqual({ code: 0, out: ['no endpoints'], err: [] });
    expect(await wharf('webhook', 'list', company, '--json')).toEqual({ code: 0, out: ['[]'], err: [] });

    const all = await add(company, 'https://hooks.example.com/wharf');
    expect(all.out).toEqual([
      `endpoint ${all.id} added: https://hooks.example.com/wharf (every customer of ${company}, all events)`,
      `secret ${all.secret}  (shown this once: keep it to verify the signatures)`,
    ]);
    const one = await add(
      company,
      'https://erp.example.com/hooks?from=wharf',
      '--customer',
      customers[0],
      '--types',
      'order.shipped, item.created,order.shipped',
      '--description',
      'ERP feed',
    );
    expect(one.out[0]).toBe(
      `endpoint ${one.id} added: https://erp.example.com/hooks?from=wharf (customer ${customers[0]} of ${company}, order.shipped,item.created)`,
    );

    // Stored as the API would store it, the secret the one printed, and no API key behind it (NULL).
    expect(await endpointRow(all.id)).toMatchObject({
      company_id: company,
      customer_id: null,
      event_types: null,
      secret: all.secret,
      key_id: null,
    });
    expect(await endpointRow(one.id)).toMatchObject({
      customer_id: customers[0],
      event_types: JSON.stringify(['order.shipped', 'item.created']),
      description: 'ERP feed',
      secret: one.secret,
      enabled: 1,
      key_id: null,
    });

    const listedJson = await wharf('webhook', 'list', company, '--json');
    expect(listedJson.code).toBe(0);
    const listed = JSON.parse(listedJson.out.join('\n')) as Record<string, unknown>[];
    expect(listed).toEqual([
      {
        EndpointID: all.id,
        CustomerID: null,
        FacilityIDs: null,
        Url: 'https://hooks.example.com/wharf',
        EventTypes: null,
        Description: null,
        Enabled: true,
        DisabledReason: null,
        FailingSince: null,
        CreatedWhen: expect.stringMatching(ISO),
        UpdatedWhen: expect.stringMatching(ISO),
      },
      {
        EndpointID: one.id,
        CustomerID: customers[0],
        FacilityIDs: null,
        Url: 'https://erp.example.com/hooks?from=wharf',
        EventTypes: ['order.shipped', 'item.created'],
        Description: 'ERP feed',
        Enabled: true,
        DisabledReason: null,
        FailingSince: null,
        CreatedWhen: expect.stringMatching(ISO),
        UpdatedWhen: expect.stringMatching(ISO),
      },
    ]);
    const [first, second] = listed as { CreatedWhen: string }[];
    const plain = await wharf('webhook', 'list', company);
    expect(plain).toEqual({
      code: 0,
      out: [
        `${all.id}  (every customer)  https://hooks.example.com/wharf  all events  enabled  created ${first!.CreatedWhen}`,
        `${one.id}  ${customers[0]}  https://erp.example.com/hooks?from=wharf  order.shipped,item.created  enabled  "ERP feed"  created ${second!.CreatedWhen}`,
      ],
      err: [],
    });
    for (const text of [...plain.out, ...listedJson.out]) expect(text).not.toContain('whsec_');

    // --customer lists that customer's own endpoints; another customer has none.
    expect((await wharf('webhook', 'list', company, '--customer', customers[0])).out).toEqual([plain.out[1]]);
    expect(await wharf('webhook', 'list', company, '--customer', customers[1], '--json')).toEqual({ code: 0, out: ['[]'], err: [] });
  });

  it('add --facilities limits an endpoint to facilities of the company; list and add show them; another facility is refused', async () => {
    const { company, customers } = await tenant();
    const facilities = [uniqueId('FA'), uniqueId('FA')].sort() as [string, string];
    for (const facility of facilities) expect((await wharf('facility', 'add', company, facility)).code).toBe(0);
    const limited = await add(
      company,
      'https://hooks.example.com/facilities',
      '--customer',
      customers[0],
      '--facilities',
      facilities.join(', '),
    );
    expect(limited.out[0]).toBe(
      `endpoint ${limited.id} added: https://hooks.example.com/facilities (customer ${customers[0]} of ${company} in facilities ${facilities.join(',')}, all events)`,
    );
    const listed = await wharf('webhook', 'list', company);
    expect(listed.code).toBe(0);
    expect(listed.out[0]).toMatch(
      new RegExp(
        `^${limited.id}  ${customers[0]}  in facilities ${facilities.join(',')}  https://hooks.example.com/facilities  all events  enabled  created `,
      ),
    );
    expect(JSON.parse((await wharf('webhook', 'list', company, '--json')).out.join('\n'))[0].FacilityIDs).toEqual(facilities);

    const other = await tenant();
    const otherFacility = uniqueId('FA');
    expect((await wharf('facility', 'add', other.company, otherFacility)).code).toBe(0);
    expect(
      await wharf('webhook', 'add', company, 'https://hooks.example.com/x', '--facilities', `${facilities[0]},${otherFacility}`),
    ).toEqual({
      code: 1,
      out: [],
      err: [`error: Facility ${otherFacility} not found in company ${company}`],
    });
    expect(JSON.parse((await wharf('webhook', 'list', company, '--json')).out.join('\n'))).toHaveLength(1);
  });

  it('add refuses a customer’s 21st endpoint with exit 1, as the API does with 409', async () => {
    const { company, customers } = await tenant();
    for (let i = 0; i < 20; i++) await add(company, `https://hooks.example.com/${i}`, '--customer', customers[0]);
    expect(await wharf('webhook', 'add', company, 'https://hooks.example.com/21', '--customer', customers[0])).toEqual({
      code: 1,
      out: [],
      err: [
        `error: Customer ${customers[0]} already has 20 webhook endpoints, and a customer may have at most 20: delete one before creating another`,
      ],
    });
    expect(JSON.parse((await wharf('webhook', 'list', company, '--json')).out.join('\n'))).toHaveLength(20);
  });

  it('add --json prints the endpoint with its secret, for scripts', async () => {
    const { company } = await tenant();
    const added = await wharf('webhook', 'add', company, 'https://hooks.example.com/json', '--types', 'ack.failed', '--json');
    expect(added.code).toBe(0);
    const endpoint = JSON.parse(added.out.join('\n'));
    expect(endpoint).toEqual({
      EndpointID: expect.stringMatching(ENDPOINT_ID),
      CustomerID: null,
      FacilityIDs: null,
      Url: 'https://hooks.example.com/json',
      EventTypes: ['ack.failed'],
      Description: null,
      Enabled: true,
      DisabledReason: null,
      FailingSince: null,
      CreatedWhen: expect.stringMatching(ISO),
      UpdatedWhen: expect.stringMatching(ISO),
      Secret: expect.stringMatching(SECRET),
    });
    expect((await endpointRow(endpoint.EndpointID)).secret).toBe(endpoint.Secret);
  });

  it('rotate prints a new secret once; the old one signs beside it for 24 hours more', async () => {
    const { company } = await tenant();
    const { id, secret: oldSecret } = await add(company, 'https://hooks.example.com/rotate');

    const rotated = await wharf('webhook', 'rotate', company, id);
    const row = await endpointRow(id);
    expect(row.secret).not.toBe(oldSecret);
    expect(row.secret).toMatch(SECRET);
    expect(row.previous_secret).toBe(oldSecret);
    expect(Number(row.previous_secret_until)).toBe(Number(row.updated_at) + 24 * 3_600_000);
    expect(rotated).toEqual({
      code: 0,
      out: [
        `secret ${row.secret}  (the new secret of ${id}, shown this once)`,
        `the old secret signs beside it for 24 hours more, until ${new Date(Number(row.previous_secret_until)).toISOString()}`,
      ],
      err: [],
    });

    const again = await wharf('webhook', 'rotate', company, id, '--json');
    const after = await endpointRow(id);
    expect(after.previous_secret).toBe(row.secret);
    expect(JSON.parse(again.out.join('\n'))).toMatchObject({
      EndpointID: id,
      Secret: after.secret,
      PreviousSecretUntil: new Date(Number(after.previous_secret_until)).toISOString(),
    });
    for (const text of (await wharf('webhook', 'list', company)).out) expect(text).not.toContain('whsec_');
  });

  it('disable and enable an endpoint, saying when nothing changed', async () => {
    const { company } = await tenant();
    const { id } = await add(company, 'https://hooks.example.com/toggle');

    expect(await wharf('webhook', 'disable', company, id)).toEqual({
      code: 0,
      out: [`endpoint ${id} disabled: its waiting deliveries wait, and events made until it is enabled are not delivered to it`],
      err: [],
    });
    expect(await endpointRow(id)).toMatchObject({ enabled: 0, disabled_reason: 'Disabled by its owner' });
    expect((await wharf('webhook', 'list', company)).out[0]).toContain(
      `${id}  (every customer)  https://hooks.example.com/toggle  all events  DISABLED (Disabled by its owner)  created `,
    );
    expect(await wharf('webhook', 'disable', company, id)).toEqual({
      code: 0,
      out: [`endpoint ${id} is already disabled; nothing changed`],
      err: [],
    });

    expect(await wharf('webhook', 'enable', company, id)).toEqual({
      code: 0,
      out: [`endpoint ${id} enabled (it was: Disabled by its owner)`],
      err: [],
    });
    expect(await endpointRow(id)).toMatchObject({ enabled: 1, disabled_reason: null });
    expect(await wharf('webhook', 'enable', company, id)).toEqual({
      code: 0,
      out: [`endpoint ${id} is already enabled; nothing changed`],
      err: [],
    });
  });

  it('replay queues one delivery again, or every delivery to an endpoint of the events since a time', async () => {
    const { company, customers } = await tenant();
    const { id } = await add(company, 'https://hooks.example.com/replay');
    const clock = new TestClock(Date.parse(NOW));
    // The CLI made the endpoint at the real time, after NOW; an endpoint takes only later events, so date it before them.
    await target.db
      .updateTable('webhook_endpoints')
      .set({ created_at: clock.now() - 1 })
      .where('endpoint_id', '=', id)
      .execute();
    await importAsAdmin(target.db, clock, company, customers[0], ['REPLAY-A', 'REPLAY-B']);
    await sequenceEvents(target.db);
    await fanOut(target.db, clock.now());

    const endpoint = await endpointRow(id);
    const deliveriesOf = () =>
      target.db
        .selectFrom('webhook_deliveries')
        .select(['delivery_id', 'event_type', 'status', 'retry_step', 'next_attempt_at'])
        .where('company_id', '=', company)
        .where('endpoint_id', '=', endpoint.id)
        .orderBy('id')
        .execute();
    const made = await deliveriesOf();
    expect(made.map((d) => d.event_type)).toEqual(['item.created', 'item.created']);
    expect(made[0]!.delivery_id).toMatch(DELIVERY_ID);
    // As if both had been delivered.
    await target.db
      .updateTable('webhook_deliveries')
      .set({ status: 'Succeeded', next_attempt_at: null })
      .where('company_id', '=', company)
      .where('endpoint_id', '=', endpoint.id)
      .execute();

    const before = Date.now();
    const one = made[0]!.delivery_id;
    expect(await wharf('webhook', 'replay', company, '--delivery', one)).toEqual({
      code: 0,
      out: [`1 delivery queued again: ${one}`],
      err: [],
    });
    const [replayed, untouched] = await deliveriesOf();
    expect(replayed).toMatchObject({ delivery_id: one, status: 'Pending', retry_step: 0 });
    expect(Number(replayed!.next_attempt_at)).toBeGreaterThanOrEqual(before);
    expect(untouched).toMatchObject({ status: 'Succeeded', next_attempt_at: null });

    // The events were made at NOW: at or after it (given with another offset) takes both, a millisecond later none.
    expect(await wharf('webhook', 'replay', company, '--endpoint', id, '--since', '2026-03-05T06:07:09.123-08:00')).toEqual({
      code: 0,
      out: [`2 deliveries queued again: those to ${id} of the events made at or after ${NOW}`],
      err: [],
    });
    expect((await deliveriesOf()).map((d) => d.status)).toEqual(['Pending', 'Pending']);
    expect(await wharf('webhook', 'replay', company, '--endpoint', id, '--since', '2026-03-05T14:07:09.124Z')).toEqual({
      code: 0,
      out: [`0 deliveries queued again: those to ${id} of the events made at or after 2026-03-05T14:07:09.124Z`],
      err: [],
    });
  });

  it('replay takes --delivery, or --endpoint and --since with an offset; anything else is refused', async () => {
    const { company } = await tenant();
    const { id } = await add(company, 'https://hooks.example.com/usage');
    for (const argv of [[], ['--endpoint', id], ['--since', NOW], ['--delivery', 'dlv_X', '--endpoint', id, '--since', NOW]]) {
      const refused = await wharf('webhook', 'replay', company, ...argv);
      expect({ argv, code: refused.code, out: refused.out }).toEqual({ argv, code: 2, out: [] });
      expect(refused.err[0]).toMatch(
        /^error: (give --delivery <dlv_…>, or --endpoint <ep_…> and --since <time>|option '--delivery <DeliveryID>' cannot be used with option)/,
      );
    }
    for (const since of ['2026-03-05T14:07:09', '2026-03-05', 'yesterday']) {
      expect(await wharf('webhook', 'replay', company, '--endpoint', id, '--since', since)).toEqual({
        code: 1,
        out: [],
        err: [`error: --since ${since} is not an ISO 8601 date-time with its offset (2026-03-05T14:07:09Z, 2026-03-05T06:07:09-08:00)`],
      });
    }
  });

  it('refuses an unknown company, customer, endpoint or delivery with exit 1 and one line, changing nothing', async () => {
    const { company } = await tenant();
    const other = await tenant();
    const { id } = await add(company, 'https://hooks.example.com/mine');
    const count = async () => (await target.db.selectFrom('webhook_endpoints').select('id').execute()).length;
    const endpoints = await count();
    const refused = (message: string) => ({ code: 1, out: [], err: [`error: ${message}`] });

    for (const argv of [
      ['add', 'NOPE', 'https://hooks.example.com/x'],
      ['list', 'NOPE'],
      ['list', 'NOPE', '--json'],
      ['rotate', 'NOPE', id],
      ['disable', 'NOPE', id],
      ['enable', 'NOPE', id],
      ['replay', 'NOPE', '--delivery', 'dlv_NOPE'],
    ]) {
      expect({ argv, ...(await wharf('webhook', ...argv)) }).toEqual({ argv, ...refused('Company NOPE not found') });
    }
    expect(await wharf('webhook', 'add', company, 'https://hooks.example.com/x', '--customer', 'NOPE')).toEqual(
      refused(`Customer NOPE not found in company ${company}`),
    );
    expect(await wharf('webhook', 'list', company, '--customer', 'NOPE')).toEqual(refused(`Customer NOPE not found in company ${company}`));
    // Another company's endpoint is unknown here, as one that does not exist.
    for (const endpointId of ['ep_NOPE', id]) {
      const where = endpointId === id ? other.company : company;
      for (const verb of ['rotate', 'disable', 'enable']) {
        expect(await wharf('webhook', verb, where, endpointId)).toEqual(refused(`Not found endpoint ${endpointId}`));
      }
      expect(await wharf('webhook', 'replay', where, '--endpoint', endpointId, '--since', NOW)).toEqual(
        refused(`Not found endpoint ${endpointId}`),
      );
    }
    expect(await wharf('webhook', 'replay', company, '--delivery', 'dlv_NOPE')).toEqual(refused('Not found delivery dlv_NOPE'));
    expect(await count()).toBe(endpoints);
    expect(await endpointRow(id)).toMatchObject({ enabled: 1, previous_secret: null });
  });

  it('takes http:// and private addresses only with WEBHOOK_ALLOW_PRIVATE=true, saying so', async () => {
    const { company } = await tenant();
    const count = async () =>
      (await target.db.selectFrom('webhook_endpoints').select('id').where('company_id', '=', company).execute()).length;
    vi.stubEnv('WEBHOOK_ALLOW_PRIVATE', 'false');
    expect(await wharf('webhook', 'add', company, 'http://hooks.example.com/plain')).toEqual({ code: 1, out: [], err: [HTTP_REFUSED] });
    expect(await wharf('webhook', 'add', company, 'https://127.0.0.1/hooks')).toEqual({
      code: 1,
      out: [],
      err: [
        'error: Url must reach a public address, not 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=true allows http:// and private or loopback addresses)',
      ],
    });
    // What no setting allows is refused as the API refuses it.
    expect(await wharf('webhook', 'add', company, 'ftp://hooks.example.com/x')).toEqual({
      code: 1,
      out: [],
      err: ['error: Url must be https://'],
    });
    expect(await wharf('webhook', 'add', company, 'not a url')).toEqual({ code: 1, out: [], err: ['error: Url must be an absolute URL'] });
    expect(await count()).toBe(0);

    vi.stubEnv('WEBHOOK_ALLOW_PRIVATE', 'true');
    const { out } = await add(company, 'http://127.0.0.1:9/hooks');
    expect(out[0]).toMatch(/^endpoint ep_\S+ added: http:\/\/127\.0\.0\.1:9\/hooks \(every customer of CO\S+, all events\)$/);
    expect(await wharf('webhook', 'add', company, 'ftp://hooks.example.com/x')).toEqual({
      code: 1,
      out: [],
      err: ['error: Url must be http:// or https://'],
    });
    expect(await count()).toBe(1);
  });

  it('refuses bad usage with exit 2: an unknown event type, a missing argument', async () => {
    const { company } = await tenant();
    const unknown = await wharf('webhook', 'add', company, 'https://hooks.example.com/x', '--types', 'order.shipped,order.teleported');
    expect(unknown.code).toBe(2);
    expect(unknown.out).toEqual([]);
    expect(unknown.err[0]).toBe(
      `error: option '--types <a,b,…>' argument 'order.shipped,order.teleported' is invalid. "order.teleported" is not an event type; they are: receipt.imported, receipt.updated, receipt.cancelled, receipt.opened, receipt.received, receipt.closed, order.imported, order.updated, order.cancelled, order.opened, order.shipped, order.closed, inventory.adjusted, inventory.changed, item.created, item.updated, ack.failed, x12.ready`,
    );
    const missing = await wharf('webhook', 'add', company);
    expect(missing.code).toBe(2);
    expect(missing.err[0]).toBe("error: missing required argument 'Url'");
    expect((await target.db.selectFrom('webhook_endpoints').select('id').where('company_id', '=', company).execute()).length).toBe(0);
  });

  it('wharf worker reads --metrics-port as WORKER_METRICS_PORT, and refuses a port that is none', async () => {
    expect(await run(['worker', '--db', target.url, '--metrics-port', '70000'])).toEqual({
      code: 2,
      out: [],
      err: ['error: Invalid configuration: WORKER_METRICS_PORT expected integer to be less or equal to 65535 (got 70000)'],
    });
  });

  it('wharf worker refuses a database that does not exist, creating nothing, and one whose schema is behind', async () => {
    const missing = missingDatabase(dialect, target.dir);
    expect(await run(['worker', '--db', missing.url])).toEqual({ code: 1, out: [], err: [`error: no database at ${missing.where}`] });
    expect(await missing.stillMissing()).toBe(true);

    const empty = await createCliTarget(dialect);
    try {
      await sql`select 1`.execute(empty.db); // it exists (SQLite's file too), without any table
      expect(await run(['worker', '--db', empty.url])).toEqual({
        code: 1,
        out: [],
        err: [
          `error: the database at ${empty.url.replace(/^sqlite:/, '')} is not up to date (${Object.keys(migrations).length} migrations to run): run wharf migrate`,
        ],
      });
      expect(await empty.db.introspection.getTables()).toEqual([]);
    } finally {
      await empty.destroy();
    }
  });
});

describe('wharf serve --no-webhooks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wharf-cli-webhooks-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serve dispatches webhooks unless --no-webhooks; demo dispatches them', async () => {
    const url = `sqlite:${join(dir, 'serve.db')}`;
    started.length = 0;
    expect(await run(['serve', '--db', url])).toEqual({ code: 0, out: [], err: [] });
    expect(await run(['serve', '--no-webhooks', '--db', url])).toEqual({ code: 0, out: [], err: [] });
    expect(await run(['serve', '--no-webhooks', '--no-migrate', '--db', url])).toEqual({ code: 0, out: [], err: [] });
    expect(started).toEqual([
      { migrate: true, webhooks: true },
      { migrate: true, webhooks: false },
      { migrate: false, webhooks: false },
    ]);
    expect(vi.mocked(server.closeOnSignals)).toHaveBeenCalledTimes(3);

    const demo = await run(['demo', '--db', url]);
    expect(demo.code).toBe(0);
    // No options: webhooks are on (startServer dispatches unless told `webhooks: false`).
    expect(started.at(-1)).toBeUndefined();
    expect(started).toHaveLength(4);
    // The stand-in's pools stay open: close them (closeOnSignals, stood in for, would have).
    for (const call of vi.mocked(server.startServer).mock.results) await (await call.value).close();
  });

  it('the help of serve and worker names them', async () => {
    const serveHelp = await run(['serve', '--help']);
    expect(serveHelp.out.join('\n')).toContain('--no-webhooks');
    const workerHelp = await run(['worker', '--help']);
    expect(workerHelp.out.join('\n')).toContain('Usage: wharf worker [options]');
    expect(workerHelp.out.join('\n')).toContain('--metrics-port <n>');
  });
});

describe('wharf worker, as a process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wharf-worker-'));
  const url = `sqlite:${join(dir, 'wharf.db')}`;
  let receiver: Receiver;
  let db: Db;
  const workers: Wharf[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    db = connectDatabase(url);
  });
  afterAll(async () => {
    for (const worker of workers) if (!worker.exited) worker.child.kill('SIGKILL');
    await receiver?.close();
    await db?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  function startWorkerProcess(env: NodeJS.ProcessEnv): Wharf {
    const child = spawn(process.execPath, [inject('wharfCli'), 'worker', '--db', url], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const worker: Wharf = {
      name: 'wharf worker',
      child,
      base: '',
      output: [],
      exited: false,
      exit: new Promise((resolve) =>
        child.once('exit', (code, signal) => {
          worker.exited = true;
          resolve({ code, signal });
        }),
      ),
    };
    child.stdout!.on('data', (chunk) => worker.output.push(String(chunk)));
    child.stderr!.on('data', (chunk) => worker.output.push(String(chunk)));
    workers.push(worker);
    return worker;
  }

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it(
    'delivers a signed event to a loopback receiver, logs JSON lines, and stops gracefully on SIGTERM',
    async () => {
      vi.stubEnv('WEBHOOK_ALLOW_PRIVATE', 'true');
      const company = uniqueId('CO');
      const customer = uniqueId('CU');
      expect((await run(['migrate', '--db', url])).code).toBe(0);
      expect((await run(['company', 'add', company, '--db', url])).code).toBe(0);
      expect((await run(['customer', 'add', company, customer, '--db', url])).code).toBe(0);
      const added = await run(['webhook', 'add', company, receiver.url(), '--types', 'item.created', '--json', '--db', url]);
      expect(added.code).toBe(0);
      const endpoint = JSON.parse(added.out.join('\n')) as { EndpointID: string; Secret: string };

      const [metricsPort] = await freePorts(1);
      const worker = startWorkerProcess({
        ...process.env,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_MS: '20',
        LOG_LEVEL: 'info',
        WORKER_METRICS_PORT: String(metricsPort),
      });
      // Another process (this test) commits the change; the worker finds it on its next look.
      await importAsAdmin(db, new TestClock(Date.now()), company, customer, ['WORKER-1']);
      while (receiver.received.length === 0) {
        if (worker.exited) throw new Error(`the worker exited:\n${worker.output.join('')}`);
        await pause(20);
      }

      const [got] = receiver.received;
      expect(got!.path).toBe('/hooks');
      const payload = new Webhook(endpoint.Secret).verify(got!.body, {
        'webhook-id': String(got!.headers['webhook-id']),
        'webhook-timestamp': String(got!.headers['webhook-timestamp']),
        'webhook-signature': String(got!.headers['webhook-signature']),
      }) as { type: string; data: Record<string, unknown> };
      expect(payload).toMatchObject({ type: 'item.created', data: { CompanyID: company, CustomerID: customer } });

      // Its metrics port shows what it did, as a server's /metrics does (the attempt is counted once recorded).
      const metricsBase = `http://127.0.0.1:${metricsPort}`;
      const health = await fetch(`${metricsBase}/healthz`, { headers: { 'x-request-id': 'scrape-1' } });
      expect(health.status).toBe(200);
      expect(health.headers.get('x-request-id')).toBe('scrape-1');
      expect(await health.json()).toEqual({ status: 'ok', version: VERSION });
      expect(await (await fetch(`${metricsBase}/readyz`)).json()).toEqual({ status: 'ready' });
      let metrics = '';
      while (!metrics.includes('wharf_webhook_attempts_total{outcome="succeeded"} 1')) {
        if (worker.exited) throw new Error(`the worker exited:\n${worker.output.join('')}`);
        const answer = await fetch(`${metricsBase}/metrics`);
        expect(answer.status).toBe(200);
        metrics = await answer.text();
      }
      expect(metrics).toContain('wharf_webhook_queue_depth 0');
      expect(metrics).toContain('wharf_webhook_lag_seconds_count 1');
      expect(metrics).toContain(`wharf_build_info{version="${VERSION}"} 1`);
      expect((await fetch(`${metricsBase}/edi/events/search-by-paging`, { method: 'POST' })).status).toBe(404);

      expect(await stopWharf(worker)).toEqual({ code: 0, signal: null });
      // A graceful stop waited for the attempt in flight: it is recorded.
      const deliveries = await db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_attempts as a', (join) => join.onRef('a.company_id', '=', 'd.company_id').onRef('a.delivery_id', '=', 'd.id'))
        .select(['d.status', 'a.status_code'])
        .where('d.company_id', '=', company)
        .execute();
      expect(deliveries).toEqual([{ status: 'Succeeded', status_code: 200 }]);
      expect(receiver.received).toHaveLength(1);

      const lines = worker.output
        .join('')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { msg: string });
      expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['dispatching webhooks', 'shutting down', 'stopped']));
      expect(lines.find((line) => line.msg === 'dispatching webhooks')).toMatchObject({ metrics: `${metricsBase}/metrics` });
      expect(lines.find((line) => line.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
    },
    PROCESS_TEST_MS,
  );
});
