import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { TestClock } from './helpers/app.js';
import { createCliTarget, run, type CliTarget } from './helpers/cli.js';
import { describeEachDialect } from './helpers/dialects.js';

/** `wharf x12 partner add|list`, `846` and `export` (docs/x12.md): a customer's X12 trading partners, and the advices waiting for them. */

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

  it('queues an 846 for each partner of a customer, and exports every waiting advice to a folder, marking it taken', async () => {
    const clock = new TestClock();
    await tenants.addFacility(target.db, clock, { companyId: 'DEMO', facilityId: 'LAX1', timeZone: 'America/Los_Angeles' });
    const queued = await wharf('x12', '846', '--company', 'DEMO', '--customer', 'ACME', '--facility', 'LAX1');
    expect(queued.code, queued.err.join('\n')).toBe(0);
    expect(queued.out).toEqual([expect.stringMatching(/^846 000000001 queued for ZZ\/ACMEEDI as outbox advice \d+$/)]);
    expect(await wharf('x12', '846', '--company', 'DEMO', '--customer', 'ACME', '--facility', 'NOPE')).toEqual({
      code: 1,
      out: [],
      err: ['error: Facility NOPE not found in company DEMO'],
    });
    expect(await wharf('x12', '846', '--company', 'DEMO', '--customer', 'GLOBEX', '--facility', 'LAX1')).toMatchObject({
      code: 0,
      out: [expect.stringMatching(/^846 000000001 queued for 01\/0123456789 as outbox advice \d+$/)],
    });

    const dir = mkdtempSync(join(tmpdir(), 'wharf-x12-export-'));
    try {
      const exported = await wharf('x12', 'export', '--dir', dir, '--company', 'DEMO');
      expect(exported).toEqual({
        code: 0,
        out: [join(dir, 'DEMO-ZZ-ACMEEDI-000000001-846.x12'), join(dir, 'DEMO-01-0123456789-000000001-846.x12'), '2 advices exported'],
        err: [],
      });
      const text = readFileSync(join(dir, 'DEMO-ZZ-ACMEEDI-000000001-846.x12'), 'utf8');
      expect(text.split('\n')[0]).toMatch(
        /^ISA\*00\*          \*00\*          \*ZZ\*DEMO           \*ZZ\*ACMEEDI        \*\d{6}\*\d{4}\*U\*00401\*000000001\*0\*P\*>~$/,
      );
      expect(text).toContain('\nST*846*0001~\nBIA*00*SI*LAX1-');
      // Taken: a second export writes nothing.
      expect(await wharf('x12', 'export', '--dir', dir)).toEqual({ code: 0, out: ['0 advices exported'], err: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sets Wharf's own ids in a company's interchanges, which its advices are sent from", async () => {
    const show = () => wharf('x12', 'identity', 'show', '--company', 'DEMO');
    expect(await show()).toEqual({ code: 0, out: ['DEMO is ZZ/DEMO (GS DEMO) in its interchanges'], err: [] });
    expect(
      await wharf('x12', 'identity', 'set', '--company', 'DEMO', '--id', 'DEMOWHSE', '--qualifier', '01', '--gs-id', 'DEMOGS'),
    ).toEqual({
      code: 0,
      out: ['DEMO is 01/DEMOWHSE (GS DEMOGS) in its interchanges'],
      err: [],
    });
    expect(await show()).toEqual({ code: 0, out: ['DEMO is 01/DEMOWHSE (GS DEMOGS) in its interchanges'], err: [] });
    expect(await wharf('x12', 'identity', 'set', '--company', 'NOPE', '--id', 'X')).toEqual({
      code: 1,
      out: [],
      err: ['error: Company NOPE not found'],
    });
    expect(await wharf('x12', 'identity', 'set', '--company', 'DEMO', '--id', 'BAD~ID')).toMatchObject({ code: 1, out: [] });

    expect((await wharf('x12', '846', '--company', 'DEMO', '--customer', 'ACME', '--facility', 'LAX1')).code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'wharf-x12-identity-'));
    try {
      const exported = await wharf('x12', 'export', '--dir', dir, '--company', 'DEMO');
      expect(exported.out).toEqual([join(dir, 'DEMO-ZZ-ACMEEDI-000000002-846.x12'), '1 advice exported']);
      const text = readFileSync(join(dir, 'DEMO-ZZ-ACMEEDI-000000002-846.x12'), 'utf8');
      expect(text.split('\n')[0]).toMatch(/^ISA\*00\*          \*00\*          \*01\*DEMOWHSE       \*ZZ\*ACMEEDI        \*/);
      expect(text.split('\n')[1]).toMatch(/^GS\*IB\*DEMOGS\*ACMEEDI\*/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('export files', () => {
    const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);
    const dir = mkdtempSync(join(tmpdir(), 'wharf-x12-files-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const queue846 = async () => {
      const queued = await wharf('x12', '846', '--company', 'SAFE', '--customer', 'CU', '--facility', 'F1');
      expect(queued.code, queued.err.join('\n')).toBe(0);
    };
    /** The file names of SAFE's advices to partners X/1 and X_1 with this ISA13. */
    const namesOf = (isa13: string) => [`SAFE-ZZ-X%2F1-${isa13}-846.x12`, `SAFE-ZZ-X%5F1-${isa13}-846.x12`];

    beforeAll(async () => {
      const clock = new TestClock();
      await tenants.addCompany(target.db, clock, { companyId: 'SAFE' });
      await tenants.addCustomer(target.db, clock, { companyId: 'SAFE', customerId: 'CU' });
      await tenants.addFacility(target.db, clock, { companyId: 'SAFE', facilityId: 'F1', timeZone: 'America/Chicago' });
      for (const id of ['X/1', 'X_1']) {
        expect((await wharf('x12', 'partner', 'add', '--company', 'SAFE', '--customer', 'CU', '--id', id)).code).toBe(0);
      }
    });

    it('gives partners X/1 and X_1 files of their own, new and owner-only (0600), in a folder it makes owner-only', async () => {
      await queue846();
      const folder = join(dir, 'made', 'by-export');
      const exported = await wharf('x12', 'export', '--dir', folder, '--company', 'SAFE');
      expect({ ...exported, out: [...exported.out].sort() }).toEqual({
        code: 0,
        out: ['2 advices exported', ...namesOf('000000001').map((name) => join(folder, name))].sort(),
        err: [],
      });
      expect(readdirSync(folder).sort()).toEqual(namesOf('000000001').sort());
      const [slash, underscore] = namesOf('000000001').map((name) => readFileSync(join(folder, name), 'utf8'));
      expect(slash!.split('\n')[0]).toMatch(/\*ZZ\*X\/1 {12}\*/);
      expect(underscore!.split('\n')[0]).toMatch(/\*ZZ\*X_1 {12}\*/);
      expect(namesOf('000000001').map((name) => modeOf(join(folder, name)))).toEqual(['600', '600']);
      expect([modeOf(join(dir, 'made')), modeOf(folder)]).toEqual(['700', '700']);
    });

    it("writes neither over a file nor through a symbolic link at an advice's name: that advice waits, and exit 1 says why", async () => {
      await queue846();
      const folder = join(dir, 'planted');
      const elsewhere = join(dir, 'elsewhere');
      mkdirSync(folder);
      mkdirSync(elsewhere);
      const [slash, underscore] = namesOf('000000002').map((name) => join(folder, name));
      symlinkSync(join(elsewhere, 'written-through-the-link'), slash!);
      writeFileSync(underscore!, 'not an advice');

      const refused = await wharf('x12', 'export', '--dir', folder, '--company', 'SAFE');
      expect({ ...refused, err: refused.err.map((line) => line.replace(/advice \d+ /, 'advice N ')) }).toEqual({
        code: 1,
        out: ['0 advices exported'],
        err: [slash, underscore].map((file) => `error: ${file} already exists: outbox advice N was not written and waits`),
      });
      expect(readdirSync(elsewhere)).toEqual([]);
      expect(readFileSync(underscore!, 'utf8')).toBe('not an advice');

      // A folder given as a symbolic link is refused before anything is written.
      const linkedFolder = join(dir, 'linked');
      symlinkSync(elsewhere, linkedFolder);
      expect(await wharf('x12', 'export', '--dir', linkedFolder, '--company', 'SAFE')).toEqual({
        code: 1,
        out: [],
        err: [`error: ${linkedFolder} is a symbolic link: give the folder itself`],
      });
      expect(readdirSync(elsewhere)).toEqual([]);

      // Both still wait: a folder without those names takes them.
      rmSync(slash!);
      rmSync(underscore!);
      const exported = await wharf('x12', 'export', '--dir', folder, '--company', 'SAFE');
      expect(exported.code, exported.err.join('\n')).toBe(0);
      expect(exported.out).toContain('2 advices exported');
      expect(readdirSync(folder).sort()).toEqual(namesOf('000000002').sort());
      expect(existsSync(join(elsewhere, 'written-through-the-link'))).toBe(false);
    });
  });
});
