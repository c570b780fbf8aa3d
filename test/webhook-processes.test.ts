import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/dialects.js';
import { expectGracefulStops, freePorts, runWharf, startWharf, waitReady, type Wharf } from './helpers/processes.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { createTenant, post, PROCESS_TEST_MS, QTY, type Tenant } from './helpers/two-processes.js';
import { uniqueId } from './helpers/factories.js';
import { MIN_WEBHOOK_LEASE_MS } from '../src/modules/webhooks/worker.js';

/**
 * Webhooks are never lost and shared by processes (docs/webhooks.md), proven with the real `wharf serve`:
 * a dispatching process killed with SIGKILL in the middle of an attempt loses its delivery to
 * another once its lease expires; and two processes dispatching one PostgreSQL queue deliver every
 * event exactly once between them, never one twice, none skipped.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits, without a deadline of its own (the test's bounds it), until `done` holds. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await done())) await pause(25);
}

/** A process's counter or gauge from /metrics (the sum over its labels that match). */
async function metric(wharf: Wharf, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${wharf.base}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}${labels}`) || (labels === '' && line.startsWith(`${name} `)))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

for (const { name: dialect, enabled } of DIALECTS) {
  describe.skipIf(!enabled)(`webhook dispatching processes [${dialect}]`, () => {
    const workDir = mkdtempSync(join(tmpdir(), 'wharf-webhooks-'));
    const env = {
      ...process.env,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_POLL_MS: '50',
      // The shortest a dispatching process accepts (above the 15 s an attempt may take), so that the
      // takeover comes as soon as it may.
      WEBHOOK_LEASE_MS: String(MIN_WEBHOOK_LEASE_MS),
    };
    let database: TestDatabase | undefined;
    let url: string;
    let tenant: Tenant;
    let receiver: Receiver;
    const wharfs: Wharf[] = [];

    const cli = (...args: string[]) => runWharf([...args, '--db', url], env);
    const serve = async (name: string) => {
      const [port] = await freePorts(1);
      const wharf = startWharf(name, url, port!, [], env);
      wharfs.push(wharf);
      await waitReady(wharf);
      return wharf;
    };
    /** A company-wide endpoint of the tenant's admin, for inventory.adjusted events only. */
    const createEndpoint = async (wharf: Wharf) => {
      const answer = await post(
        wharf,
        tenant,
        '/edi/webhook/endpoint/create',
        { CompanyID: tenant.companyId, Url: receiver.url(), EventTypes: ['inventory.adjusted'] },
        tenant.adminKey,
      );
      expect(answer.status, answer.body).toBe(200);
      return JSON.parse(answer.body).Endpoint as { EndpointID: string };
    };
    const adjust = async (wharf: Wharf) => {
      const body = {
        CompanyID: tenant.companyId,
        FacilityID: tenant.facilityId,
        CustomerID: tenant.customerId,
        AdjustmentNo: uniqueId('ADJ'),
        Items: [{ ItemNumber: 'SKU-1', UOM: 'EA', Qty: '1' }],
      };
      const answer = await post(wharf, tenant, QTY, body);
      expect(answer.status, answer.body).toBe(200);
    };
    const webhookIds = () => receiver.received.map((got) => got.headers['webhook-id'] as string);

    beforeAll(async () => {
      if (dialect === 'postgres') {
        database = await createTestDatabase('postgres', { migrate: false });
        url = database.url;
      } else {
        url = `sqlite:${join(workDir, 'wharf.db')}`;
      }
      await cli('migrate');
      tenant = await createTenant(cli);
    }, PROCESS_TEST_MS);

    afterEach(async () => {
      await receiver?.close();
      await expectGracefulStops(wharfs.splice(0));
    }, PROCESS_TEST_MS);

    afterAll(async () => {
      await database?.destroy();
      rmSync(workDir, { recursive: true, force: true });
    }, PROCESS_TEST_MS);

    it(
      'a dispatcher killed in the middle of an attempt: another process delivers once the lease expires',
      async () => {
        receiver = await startReceiver();
        // The first attempt never gets an answer while its process lives; the next one does.
        receiver.answerWith(() => (receiver.received.length === 1 ? { status: 200, delayMs: 600_000 } : { status: 200, body: 'ok' }));
        const first = await serve('wharf A');
        const endpoint = await createEndpoint(first);
        await adjust(first);
        await until(() => receiver.received.length === 1);

        first.child.kill('SIGKILL');
        expect(await first.exit).toEqual({ code: null, signal: 'SIGKILL' });
        const second = await serve('wharf B');
        await until(() => receiver.received.length === 2);
        expect(webhookIds()[1]).toBe(webhookIds()[0]);

        // The receiver has the attempt; its outcome is written just after.
        const searchDeliveries = async () => {
          const search = await post(
            second,
            tenant,
            '/edi/webhook/delivery/search-by-paging',
            { CompanyID: tenant.companyId, EndpointID: endpoint.EndpointID },
            tenant.adminKey,
          );
          return JSON.parse(search.body).results.data as { Status: string }[];
        };
        await until(async () => (await searchDeliveries())[0]?.Status === 'Succeeded');
        const [delivery] = await searchDeliveries();
        // The killed process wrote nothing of its attempt; the one that took over logged its own.
        expect(delivery).toMatchObject({ Status: 'Succeeded', Attempts: [{ AttemptNo: 1, StatusCode: 200, Response: 'ok' }] });
        expect(await metric(second, 'wharf_webhook_queue_depth')).toBe(0);
        // The next test counts the whole queue: this endpoint's receiver is gone with this test.
        const deleted = await post(
          second,
          tenant,
          '/edi/webhook/endpoint/delete',
          { CompanyID: tenant.companyId, EndpointID: endpoint.EndpointID },
          tenant.adminKey,
        );
        expect(deleted.status, deleted.body).toBe(200);
      },
      PROCESS_TEST_MS,
    );

    it.skipIf(dialect !== 'postgres')(
      'two processes dispatch one queue: every event delivered exactly once, none twice at the same time, none skipped',
      async () => {
        receiver = await startReceiver();
        // A little time in every answer, so that the two processes' attempts overlap.
        receiver.answerWith({ status: 200, body: 'ok', delayMs: 5 });
        const a = await serve('wharf A');
        const b = await serve('wharf B');
        await createEndpoint(a);
        const total = 300;
        for (let i = 0; i < total; i += 10) {
          await Promise.all(Array.from({ length: 10 }, (_, j) => adjust((i + j) % 2 === 0 ? a : b)));
        }
        await until(() => new Set(webhookIds()).size === total);
        // Every attempt written: the two processes' successes add up to the events, and then no
        // request more came.
        const succeeded = async () =>
          Promise.all([a, b].map((wharf) => metric(wharf, 'wharf_webhook_attempts_total', '{outcome="succeeded"}')));
        await until(async () => (await succeeded()).reduce((sum, n) => sum + n, 0) >= total);
        expect(await succeeded().then((counts) => counts.reduce((sum, n) => sum + n, 0))).toBe(total);
        expect(webhookIds()).toHaveLength(total);
        const [byA, byB] = await succeeded();
        expect(Math.min(byA!, byB!), `each process delivered some: ${byA} + ${byB}`).toBeGreaterThan(0);
      },
      PROCESS_TEST_MS,
    );
  });
}
