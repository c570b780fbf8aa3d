import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { quoteParcel, type Parcel } from '../src/modules/rating/engine.js';
import { compileRateCard } from '../src/modules/rating/rate-card.compile.js';
import { presentQuotation } from '../src/modules/rating/rating.present.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/dialects.js';
import { expectGracefulStops, freePorts, runWharf, startWharf, stopWharf, waitReady, type Wharf } from './helpers/processes.js';
import { createTenant, INVENTORY, itKeepsTheInvariants, post, PROCESS_TEST_MS, type Tenant } from './helpers/two-processes.js';

/**
 * The promise of docs/orders.md, taken literally: two Wharf processes — the real `wharf serve`, compiled
 * from src/ for this run — share one PostgreSQL database. 200 parallel −1 adjustments against 150
 * units, alternating between them: exactly 150 succeed, 50 get 409, the balance is 0 and the ledger
 * sums to it; one AdjustmentNo sent ten times at once to both posts once; 150 one-unit orders against
 * 100 units allocate exactly 100 (those invariants are in test/helpers/two-processes.ts, which
 * test/pgbouncer.test.ts runs through PgBouncer too); a rate card loaded with the CLI prices the
 * next quotes of both processes within the second they may remember the card they chose, and a
 * third started with `--only rate` serves the rate engine alone. All stop cleanly on SIGTERM.
 */

const ROOT = realpathSync(join(dirname(fileURLToPath(import.meta.url)), '..'));
const PARCEL: Parcel = { originZip: '90001', destZip: '10001', length: '12', width: '10', height: '8', weight: '5.2' };
const postgresEnabled = DIALECTS.find((d) => d.name === 'postgres')!.enabled;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!postgresEnabled)('two Wharf processes on one PostgreSQL database', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'wharf-two-processes-'));
  const env = { ...process.env, LOG_LEVEL: 'warn' };
  let database: TestDatabase | undefined;
  const wharfs: Wharf[] = [];
  let tenant: Tenant;

  /** Runs a `wharf` command against the test database and answers what it printed. */
  const cli = (...args: string[]): Promise<string> => runWharf([...args, '--db', database!.url], env);

  const serve = (name: string, port: number, ...flags: string[]): Wharf => startWharf(name, database!.url, port, flags, env);

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    tenant = await createTenant(cli);

    const [portA, portB] = await freePorts(2);
    wharfs.push(serve('wharf A', portA!), serve('wharf B', portB!));
    await Promise.all(wharfs.map(waitReady));
  }, PROCESS_TEST_MS);

  afterAll(async () => {
    try {
      await expectGracefulStops(wharfs);
    } finally {
      await database?.destroy();
      rmSync(workDir, { recursive: true, force: true });
    }
  }, PROCESS_TEST_MS);

  itKeepsTheInvariants(() => ({ database: database!, wharfs: wharfs as [Wharf, Wharf], tenant, cli }));

  it('the compiled CLI and both processes report the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await runWharf(['--version'], env)).toBe(version);
    for (const wharf of wharfs) {
      const response = await fetch(`${wharf.base}/healthz`);
      expect(await response.json()).toEqual({ status: 'ok', version });
    }
  });

  /** A quote for UserID 7 by the admin key: the PARCEL, through the rate engine of one process. */
  const quote = async (wharf: Wharf) => {
    const response = await fetch(`${wharf.base}/api/RateEngine/SVC/lastmile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `APIKey ${tenant.adminKey}` },
      body: JSON.stringify({
        UserID: 7,
        Data: { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' },
      }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { Result: { name: string; Price: string }[]; ErrorSeverity: number };
  };

  it(
    'a rate card loaded with the CLI is in force on both processes within a second; a refused one changes nothing',
    async () => {
      const [a, b] = wharfs as [Wharf, Wharf];
      const example = readFileSync(join(ROOT, 'examples/rate-card.json'), 'utf8');
      const cardFile = (name: string, text: string) => {
        const file = join(workDir, name);
        writeFileSync(file, text);
        return file;
      };

      expect(await cli('ratecard', 'load', cardFile('v1.json', example), '--company', tenant.companyId)).toMatch(
        /as version 1, effective 2026-01-01$/,
      );
      const before = await Promise.all([quote(a), quote(b)]);
      expect(before[0]).toEqual(before[1]);
      expect(before[0]!.Result.map((entry) => entry.name)).toEqual(['Economy', 'Ground']);

      // Version 2 marks every line up by 100 %: both processes quote what the engine makes of it.
      const marked = JSON.parse(example);
      marked.markup = { percent: '100' };
      expect(await cli('ratecard', 'load', cardFile('v2.json', JSON.stringify(marked)), '--company', tenant.companyId)).toMatch(
        /as version 2,/,
      );
      await sleep(1100);
      const after = await Promise.all([quote(a), quote(b)]);
      expect(after[0]).toEqual(after[1]);
      const today = DateTime.now().setZone(marked.timeZone).toISODate()!;
      const expected = presentQuotation(compileRateCard(marked), quoteParcel(compileRateCard(marked), PARCEL, { date: today, userId: 7 }));
      expect(after[0]).toEqual(expected);
      expect(after[0]).not.toEqual(before[0]);

      // A card with a mistake is refused whole; both processes keep quoting version 2.
      await expect(cli('ratecard', 'load', cardFile('bad.json', '{"name":"broken"}'), '--company', tenant.companyId)).rejects.toThrow();
      await sleep(1100);
      expect(await Promise.all([quote(a), quote(b)])).toEqual(after);
    },
    PROCESS_TEST_MS,
  );

  it(
    'wharf serve --only rate serves the rate engine alone, with the card in force, and stops cleanly',
    async () => {
      const [port] = await freePorts(1);
      const rateOnly = serve('wharf rate-only', port!, '--only', 'rate');
      try {
        await waitReady(rateOnly);
        // The card the previous test left in force prices this process's quotes as it does A's.
        expect(await quote(rateOnly)).toEqual(await quote(wharfs[0]!));
        const { companyId, customerId, facilityId } = tenant;
        const edi = await post(rateOnly, tenant, INVENTORY, { CompanyID: companyId, FacilityID: facilityId, CustomerID: customerId });
        expect(edi.status).toBe(404);
      } finally {
        expect(await stopWharf(rateOnly), rateOnly.output.join('')).toEqual({ code: 0, signal: null });
      }
    },
    PROCESS_TEST_MS,
  );
});
