import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { EDI_PREFIX } from '../src/app.js';
import { freePorts } from './helpers/processes.js';
import { startReceiver } from './helpers/receiver.js';
import { PROCESS_TEST_MS } from './helpers/two-processes.js';

/**
 * `npm run demo` shows webhooks working on one machine (docs/webhooks.md): the real `wharf demo` allows
 * local receivers, prints how to make an endpoint and watch its deliveries, and delivers to one; the
 * receiver it suggests, run as printed, takes each delivery at the first attempt.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the demo and webhooks', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'wharf-demo-webhooks-'));
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it(
    'allows a loopback endpoint, prints the curl lines to make and watch one and a receiver that answers, and delivers to both',
    async () => {
      const [port, receiverPort] = await freePorts(2);
      // The environment says no private addresses; the demo allows them anyway.
      const env = { ...process.env, LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_POLL_MS: '20' };
      const child = spawn(
        process.execPath,
        [inject('wharfCli'), 'demo', '--port', String(port), '--db', `sqlite:${join(workDir, 'demo.db')}`],
        {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let output = '';
      child.stdout.on('data', (chunk) => (output += String(chunk)));
      child.stderr.on('data', (chunk) => (output += String(chunk)));
      const receiver = await startReceiver();
      let suggested: ReturnType<typeof spawn> | undefined;
      try {
        // Ready when it has printed everything; an exit before that fails with what it printed.
        while (!output.includes('Ctrl-C stops.')) {
          if (child.exitCode !== null) throw new Error(`wharf demo exited:\n${output}`);
          await pause(25);
        }
        expect(output).toContain('/edi/webhook/endpoint/create');
        expect(output).toContain('/edi/webhook/delivery/search-by-paging');
        // Where staff sign in, and with which key.
        expect(output).toContain(`Operator console: http://127.0.0.1:${port}/console/  (sign in with the operator key,`);
        // The README's walk-through pastes this line: every key, by its role's name.
        const keyOf = (role: string) => new RegExp(`^ {2}${role} +(\\S+)$`, 'm').exec(output)![1]!;
        const customer = keyOf('customer');
        expect(output).toContain(
          `  export CUSTOMER_KEY=${customer} OPERATOR_KEY=${keyOf('operator')} ADMIN_KEY=${keyOf('admin')} RATER_KEY=${keyOf('rater')}\n`,
        );
        // The webhook lines use the customer's key (limited to LAX1): the customer's system subscribes.
        const webhookLines = output.slice(output.indexOf('/edi/webhook/endpoint/create'), output.indexOf('Operator console:'));
        expect(webhookLines.match(/APIKey \S+'/g)).toEqual([`APIKey ${customer}'`, `APIKey ${customer}'`]);
        const base = `http://127.0.0.1:${port}${EDI_PREFIX}`;
        const send = (path: string, body: unknown) =>
          fetch(`${base}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `APIKey ${customer}` },
            body: JSON.stringify(body),
          });
        const created = await send('/edi/webhook/endpoint/create', { CompanyID: 'DEMO', CustomerID: 'ACME', Url: receiver.url() });
        expect(created.status).toBe(200);
        const { Secret, FacilityIDs } = ((await created.json()) as { Endpoint: { Secret: string; FacilityIDs: string[] } }).Endpoint;
        expect(FacilityIDs).toEqual(['LAX1']);
        const imported = await send('/edi/item-master/import', {
          CompanyID: 'DEMO',
          CustomerID: 'ACME',
          Items: [{ itemID: 'DEMO-WEBHOOK' }],
        });
        expect(imported.status).toBe(200);
        while (receiver.received.length === 0) await pause(25);
        const [got] = receiver.received;
        expect(new Webhook(Secret).verify(got!.body, got!.headers as Record<string, string>)).toMatchObject({
          type: 'item.created',
          data: { CompanyID: 'DEMO', CustomerID: 'ACME', ItemID: 'DEMO-WEBHOOK', Status: 'Active' },
        });

        // The suggested receiver, its script as printed (in single quotes, for a shell) on another
        // port: it must answer 2xx, or every attempt would fail and be retried.
        const script = /^ {2}node -e '([^']+)'$/m.exec(output)?.[1];
        expect(script, 'a node -e receiver line').toContain('listen(9000,');
        expect(output).toContain('"Url":"http://127.0.0.1:9000/hooks"');
        let printed = '';
        suggested = spawn(process.execPath, ['-e', script!.replace('listen(9000,', `listen(${receiverPort},`)], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        suggested.stdout!.on('data', (chunk) => (printed += String(chunk)));
        while ((await fetch(`http://127.0.0.1:${receiverPort}/`).catch(() => undefined)) === undefined) await pause(25);
        const toSuggested = await send('/edi/webhook/endpoint/create', {
          CompanyID: 'DEMO',
          CustomerID: 'ACME',
          Url: `http://127.0.0.1:${receiverPort}/hooks`,
          EventTypes: ['item.created'],
        });
        expect(toSuggested.status).toBe(200);
        const { EndpointID } = ((await toSuggested.json()) as { Endpoint: { EndpointID: string } }).Endpoint;
        expect(
          (await send('/edi/item-master/import', { CompanyID: 'DEMO', CustomerID: 'ACME', Items: [{ itemID: 'DEMO-RECEIVER' }] })).status,
        ).toBe(200);
        type Delivery = { Status: string; Attempts: { StatusCode: number | null }[] };
        const deliveries = async () =>
          (
            (await (
              await send('/edi/webhook/delivery/search-by-paging', { CompanyID: 'DEMO', CustomerID: 'ACME', EndpointID })
            ).json()) as {
              results: { data: Delivery[] };
            }
          ).results.data;
        while ((await deliveries())[0]?.Status !== 'Succeeded') await pause(25);
        expect((await deliveries()).map((d) => [d.Status, d.Attempts.map((a) => a.StatusCode)])).toEqual([['Succeeded', [204]]]);
        expect(JSON.parse(printed.trim())).toMatchObject({ type: 'item.created', data: { ItemID: 'DEMO-RECEIVER' } });
      } finally {
        suggested?.kill('SIGTERM');
        child.kill('SIGTERM');
        await receiver.close();
      }
      expect(await exit, output).toBe(0);
    },
    PROCESS_TEST_MS,
  );
});
