import { afterAll, beforeAll, expect, it } from 'vitest';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';
import { describeEachDialect } from './helpers/dialects.js';

/** `wharf x12 partner add|list` (DESIGN §16): a customer's X12 trading partners, by ISA qualifier and id. */

describeEachDialect('wharf x12 partner', (dialect) => {
  let target: CliTarget;
  const wharf = (...argv: string[]) => run([...argv, '--db', target.url]);

  beforeAll(async () => {
    target = await createCliTarget(dialect);
    expect((await wharf('migrate')).code).toBe(0);
    const clock = new TestClock();
    await tenants.addCompany(target.db, clock, { companyId: 'DEMO' });
    await tenants.addCustomer(target.db, clock, { companyId: 'DEMO', customerId: 'ACME' });
    await tenants.addCustomer(target.db, clock, { companyId: 'DEMO', customerId: 'GLOBEX' });
  });
  afterAll(async () => {
    await target?.destroy();
  });

  it('adds partners, their GS id their ISA id unless given, and lists them by qualifier and id', async () => {
    expect(await wharf('x12', 'partner', 'list')).toEqual({ code: 0, out: ['no partners'], err: [] });
    expect(await wharf('x12', 'partner', 'add', '--company', 'DEMO', '--customer', 'ACME', '--id', 'ACMEEDI')).toEqual({
      code: 0,
      out: ['partner ZZ/ACMEEDI (GS ACMEEDI) added for ACME of DEMO'],
      err: [],
    });
    const globex = ['--company', 'DEMO', '--customer', 'GLOBEX', '--id', '0123456789', '--qualifier', '01', '--gs-id', 'GLOBEXWMS'];
    expect(await wharf('x12', 'partner', 'add', ...globex)).toEqual({
      code: 0,
      out: ['partner 01/0123456789 (GS GLOBEXWMS) added for GLOBEX of DEMO'],
      err: [],
    });
    const listed = await wharf('x12', 'partner', 'list', '--company', 'DEMO');
    expect(listed.code).toBe(0);
    expect(listed.out.map((line) => line.replace(/created \S+$/, 'created …'))).toEqual([
      'DEMO  01/0123456789  GS GLOBEXWMS  customer GLOBEX  created …',
      'DEMO  ZZ/ACMEEDI  GS ACMEEDI  customer ACME  created …',
    ]);
    const json = JSON.parse((await wharf('x12', 'partner', 'list', '--json')).out.join('\n')) as { partnerId: string; gsId: string }[];
    expect(json.map(({ partnerId, gsId }) => [partnerId, gsId])).toEqual([
      ['0123456789', 'GLOBEXWMS'],
      ['ACMEEDI', 'ACMEEDI'],
    ]);
  });

  it('refuses a partner the company has already, an unknown customer or company, and ids X12 cannot carry, changing nothing', async () => {
    const add = (...argv: string[]) => wharf('x12', 'partner', 'add', '--company', 'DEMO', ...argv);
    expect(await add('--customer', 'GLOBEX', '--id', 'ACMEEDI')).toEqual({
      code: 1,
      out: [],
      err: ['error: Partner ZZ/ACMEEDI already exists in company DEMO'],
    });
    expect(await add('--customer', 'NOPE', '--id', 'NOPEEDI')).toEqual({
      code: 1,
      out: [],
      err: ['error: Customer NOPE not found in company DEMO'],
    });
    expect(await add('--customer', 'ACME', '--id', 'BAD*ID~', '--qualifier', 'zzz')).toEqual({
      code: 1,
      out: [],
      err: [
        'error: id must be 1 to 15 letters, digits, spaces or . , & / ( ) @ # _ - characters, as ISA06 takes',
        'error: qualifier must be the 2-character ISA qualifier, such as ZZ or 01',
      ],
    });
    expect(await wharf('x12', 'partner', 'list', '--company', 'NOPE')).toEqual({
      code: 1,
      out: [],
      err: ['error: Company NOPE not found'],
    });
    expect((await wharf('x12', 'partner', 'list')).out).toHaveLength(2);
  });
});
