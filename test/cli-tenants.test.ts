import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp, EDI_PREFIX } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';
import { describeEachDialect } from './helpers/dialects.js';
import { uniqueId } from './helpers/factories.js';
import { SHIP_TO } from './helpers/orders.js';
import { ORDER_IMPORT, THREEPL_ORDER } from './helpers/paths.js';

/** `company list`, `customer list` and `facility list` (plain lines and JSON), and `facility update`. */

const CREATED = '2026-03-05T14:07:09.123Z';

describeEachDialect('wharf company, customer and facility list', (dialect) => {
  let target: CliTarget;
  const wharf = (...argv: string[]) => run([...argv, '--db', target.url]);

  beforeAll(async () => {
    target = await createCliTarget(dialect);
  });
  afterAll(async () => {
    await target?.destroy();
  });

  it('say so when there is nothing to list', async () => {
    expect((await wharf('migrate')).code).toBe(0);
    expect(await wharf('company', 'list')).toEqual({ code: 0, out: ['no companies'], err: [] });
    expect(await wharf('customer', 'list')).toEqual({ code: 0, out: ['no customers'], err: [] });
    expect(await wharf('facility', 'list')).toEqual({ code: 0, out: ['no facilities'], err: [] });
    for (const noun of ['company', 'customer', 'facility']) {
      expect(await wharf(noun, 'list', '--json')).toEqual({ code: 0, out: ['[]'], err: [] });
    }
  });

  it('list every company, customer and facility in ID order, or those of one company', async () => {
    const db = target.db;
    const clock = new TestClock(Date.parse(CREATED));
    await tenants.addCompany(db, clock, { companyId: 'BETA' });
    await tenants.addCompany(db, clock, { companyId: 'ACME', name: 'Acme Logistics' });
    await tenants.addCustomer(db, clock, { companyId: 'ACME', customerId: 'CU2' });
    await tenants.addCustomer(db, clock, { companyId: 'ACME', customerId: 'CU1', name: 'Cup Co' });
    await tenants.addCustomer(db, clock, { companyId: 'BETA', customerId: 'CU1' });
    await tenants.addFacility(db, clock, { companyId: 'BETA', facilityId: 'NYC1' });
    await tenants.addFacility(db, clock, { companyId: 'ACME', facilityId: 'LAX1', timeZone: 'America/Los_Angeles' });
    await tenants.addFacility(db, clock, { companyId: 'ACME', facilityId: 'CHI1', name: 'Chicago DC', timeZone: 'America/Chicago' });

    expect(await wharf('company', 'list')).toEqual({
      code: 0,
      out: [`ACME  "Acme Logistics"  created ${CREATED}`, `BETA  "BETA"  created ${CREATED}`],
      err: [],
    });
    expect(await wharf('customer', 'list')).toEqual({
      code: 0,
      out: [`ACME  CU1  "Cup Co"  created ${CREATED}`, `ACME  CU2  "CU2"  created ${CREATED}`, `BETA  CU1  "CU1"  created ${CREATED}`],
      err: [],
    });
    expect(await wharf('facility', 'list')).toEqual({
      code: 0,
      out: [
        `ACME  CHI1  "Chicago DC"  America/Chicago  created ${CREATED}`,
        `ACME  LAX1  "LAX1"  America/Los_Angeles  created ${CREATED}`,
        `BETA  NYC1  "NYC1"  UTC  created ${CREATED}`,
      ],
      err: [],
    });

    expect(await wharf('customer', 'list', '--company', 'BETA')).toEqual({
      code: 0,
      out: [`BETA  CU1  "CU1"  created ${CREATED}`],
      err: [],
    });
    expect(await wharf('facility', 'list', '--company', 'BETA')).toEqual({
      code: 0,
      out: [`BETA  NYC1  "NYC1"  UTC  created ${CREATED}`],
      err: [],
    });

    const json = async (...argv: string[]) => {
      const result = await wharf(...argv, '--json');
      expect(result.code).toBe(0);
      expect(result.err).toEqual([]);
      return JSON.parse(result.out.join('\n')) as unknown;
    };
    expect(await json('company', 'list')).toEqual([
      { company: 'ACME', name: 'Acme Logistics', createdAt: CREATED },
      { company: 'BETA', name: 'BETA', createdAt: CREATED },
    ]);
    expect(await json('customer', 'list', '--company', 'ACME')).toEqual([
      { company: 'ACME', customer: 'CU1', name: 'Cup Co', createdAt: CREATED },
      { company: 'ACME', customer: 'CU2', name: 'CU2', createdAt: CREATED },
    ]);
    expect(await json('facility', 'list', '--company', 'ACME')).toEqual([
      { company: 'ACME', facility: 'CHI1', name: 'Chicago DC', timeZone: 'America/Chicago', createdAt: CREATED },
      { company: 'ACME', facility: 'LAX1', name: 'LAX1', timeZone: 'America/Los_Angeles', createdAt: CREATED },
    ]);
  });

  it('refuse an unknown --company with exit 1, printing nothing else', async () => {
    for (const noun of ['customer', 'facility']) {
      for (const json of [[], ['--json']]) {
        expect(await wharf(noun, 'list', '--company', 'NOPE', ...json)).toEqual({
          code: 1,
          out: [],
          err: ['error: Company NOPE not found'],
        });
      }
    }
  });
});

describeEachDialect('wharf facility update', (dialect) => {
  let target: CliTarget;
  const wharf = (...argv: string[]) => run([...argv, '--db', target.url]);
  const zoneOf = async (companyId: string, facilityId: string) =>
    (
      await target.db
        .selectFrom('facilities')
        .select('time_zone')
        .where('company_id', '=', companyId)
        .where('facility_id', '=', facilityId)
        .executeTakeFirstOrThrow()
    ).time_zone;

  beforeAll(async () => {
    target = await createCliTarget(dialect);
  });
  afterAll(async () => {
    await target?.destroy();
  });

  /** A company with one customer and one facility in `zone`, made through the CLI. */
  async function tenant(zone = 'UTC') {
    const ids = { company: uniqueId('CO'), customer: uniqueId('CU'), facility: uniqueId('FA') };
    expect((await wharf('company', 'add', ids.company)).code).toBe(0);
    expect((await wharf('customer', 'add', ids.company, ids.customer)).code).toBe(0);
    expect((await wharf('facility', 'add', ids.company, ids.facility, '--timezone', zone)).code).toBe(0);
    return ids;
  }

  it("changes a facility's time zone, and says when it already had it", async () => {
    const { company, facility } = await tenant('America/Chicago');
    expect(await wharf('facility', 'update', company, facility, '--timezone', 'America/New_York')).toEqual({
      code: 0,
      out: [`facility ${facility} of ${company} is now in America/New_York (was America/Chicago)`],
      err: [],
    });
    expect(await zoneOf(company, facility)).toBe('America/New_York');
    const listed = await wharf('facility', 'list', '--company', company, '--json');
    expect(JSON.parse(listed.out.join('\n'))).toEqual([expect.objectContaining({ facility, timeZone: 'America/New_York' })]);
    expect(await wharf('facility', 'update', company, facility, '--timezone', 'America/New_York')).toEqual({
      code: 0,
      out: [`facility ${facility} of ${company} is already in America/New_York; nothing changed`],
      err: [],
    });
  });

  it('refuses a zone that is not IANA, an unknown facility and an unknown company with exit 1, changing nothing', async () => {
    const { company, facility } = await tenant('America/Chicago');
    expect(await wharf('facility', 'update', company, facility, '--timezone', 'Mars/Base')).toEqual({
      code: 1,
      out: [],
      err: ['error: timezone Mars/Base is not an IANA time zone (e.g. America/Chicago)'],
    });
    expect(await wharf('facility', 'update', company, 'NOSUCHFA', '--timezone', 'UTC')).toEqual({
      code: 1,
      out: [],
      err: [`error: Facility NOSUCHFA not found in company ${company}`],
    });
    expect(await wharf('facility', 'update', 'NOSUCHCO', facility, '--timezone', 'UTC')).toEqual({
      code: 1,
      out: [],
      err: ['error: Company NOSUCHCO not found'],
    });
    const noZone = await wharf('facility', 'update', company, facility);
    expect(noZone.code).toBe(2);
    expect(noZone.out).toEqual([]);
    expect(noZone.err[0]).toBe("error: required option '--timezone <zone>' not specified");
    expect(await zoneOf(company, facility)).toBe('America/Chicago');
  });

  it("shows a document's stored instants in the new zone once the change is read; the instants do not move", async () => {
    const { company, customer, facility } = await tenant('UTC');
    const customerKey = (await wharf('key', 'create', '--role', 'customer', '--company', company, '--customer', customer)).out[0]!;
    const operatorKey = (await wharf('key', 'create', '--role', 'operator', '--company', company)).out[0]!;
    const clock = new TestClock(Date.parse('2026-03-05T14:07:09.123Z'));
    const app = await buildApp({ config: loadConfig({ databaseUrl: target.url }, {}), db: target.db, clock, logger: false });
    try {
      const post = (path: string, body: unknown, key: string) =>
        app.inject({
          method: 'POST',
          url: `${EDI_PREFIX}${path}`,
          headers: { 'content-type': 'application/json', authorization: `APIKey ${key}` },
          payload: JSON.stringify(body),
        });
      const imported = await post(
        ORDER_IMPORT,
        {
          CompanyID: company,
          CustomerID: customer,
          FacilityID: facility,
          POContent: { ReferenceNo: 'SO-1', Address: SHIP_TO, Items: [{ ItemID: 'SKU-1', OrderedQty: '1', UOM: 'EA' }] },
        },
        customerKey,
      );
      expect(imported.statusCode, imported.body).toBe(200);
      const svcpoid = imported.json().Order.SVCPOID as string;
      const times = async () => {
        const got = await post(`${THREEPL_ORDER}/get`, { CompanyID: company, FacilityID: facility, SVCPOID: svcpoid }, operatorKey);
        expect(got.statusCode, got.body).toBe(200);
        const { CreatedWhen, UpdatedWhen } = got.json().Order as { CreatedWhen: string; UpdatedWhen: string };
        return { CreatedWhen, UpdatedWhen };
      };
      const stored = () => target.db.selectFrom('orders').select(['created_at', 'updated_at']).where('svcpoid', '=', svcpoid).execute();
      const storedBefore = await stored();

      expect(await times()).toEqual({ CreatedWhen: '2026-03-05T14:07:09.123', UpdatedWhen: '2026-03-05T14:07:09.123Z' });
      expect((await wharf('facility', 'update', company, facility, '--timezone', 'America/Chicago')).code).toBe(0);
      // A server trusts a facility it looked up for a second; past it, every read shows the new zone.
      clock.advance(1001);
      expect(await times()).toEqual({ CreatedWhen: '2026-03-05T08:07:09.123', UpdatedWhen: '2026-03-05T08:07:09.123-06:00' });
      expect(await stored()).toEqual(storedBefore);
      expect(storedBefore).toEqual([
        { created_at: Date.parse('2026-03-05T14:07:09.123Z'), updated_at: Date.parse('2026-03-05T14:07:09.123Z') },
      ]);
    } finally {
      await app.close();
    }
  });
});
