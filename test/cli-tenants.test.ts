import { afterAll, beforeAll, expect, it } from 'vitest';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';
import { describeEachDialect } from './helpers/dialects.js';

/** `company list`, `customer list` and `facility list`: plain lines and JSON. */

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
