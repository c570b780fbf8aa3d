import { connect, type AddressInfo, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { App } from '../../src/http/module.js';
import { VERSION } from '../../src/lib/version.js';
import { WebhookTally } from '../../src/modules/webhooks/webhook-metrics.js';
import { buildWorkerApp } from '../../src/worker-app.js';
import { useTestApp } from '../helpers/app.js';
import { problems } from '../helpers/factories.js';

/**
 * Connections cost the server a bounded amount (MAX_CONNECTIONS, HEADERS_TIMEOUT_MS): a connection
 * that sends nothing is closed, no more than MAX_CONNECTIONS are held open, and idle connections do
 * not keep the server from answering. Nothing here depends on how long anything takes: the limits
 * are short where the test waits for one, and every wait is for an event.
 */

const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';

/** A raw connection and everything it read until the server closed it (or the test did). */
interface Probe {
  socket: Socket;
  received: () => string;
  /** Resolves when the connection is closed: by the server, or reset. */
  closed: Promise<{ by: 'server' | 'reset' }>;
}

const opened: Socket[] = [];
afterEach(() => {
  for (const socket of opened.splice(0)) socket.destroy();
});

async function open(port: number, text?: string): Promise<Probe> {
  const socket = connect(port, '127.0.0.1');
  opened.push(socket);
  let received = '';
  let reset = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => (reset = true));
  const closed = new Promise<{ by: 'server' | 'reset' }>((resolve) =>
    socket.on('close', () => resolve({ by: reset ? 'reset' : 'server' })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  if (text !== undefined) socket.write(text);
  return { socket, received: () => received, closed };
}

/** Waits until the socket has read a whole answer to one request (headers and the body its Content-Length gives). */
async function answered(probe: Probe): Promise<string> {
  for (;;) {
    const text = probe.received();
    const end = text.indexOf('\r\n\r\n');
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(text)?.[1] ?? Number.NaN);
    if (end >= 0 && text.length - end - 4 >= length) return text;
    await new Promise((resolve) => probe.socket.once('data', resolve));
  }
}

/** Waits until the server counts `count` open connections (it accepts them after the client sees them connected). */
async function serverHolds(app: App, predicate: (open: number) => boolean): Promise<number> {
  for (;;) {
    const count = await new Promise<number>((resolve, reject) =>
      app.server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
    );
    if (predicate(count)) return count;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function listen(app: App): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

const statusLine = (text: string) => text.split('\r\n')[0];
const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as unknown;

describe('idle connections', () => {
  // Short limits, so that the tests wait a fraction of a second for them.
  const ctx = useTestApp('sqlite', {
    requestTimeoutMs: 300,
    headersTimeoutMs: 300,
    keepAliveTimeoutMs: 300,
    connectionsCheckingIntervalMs: 50,
  });
  let port: number;
  beforeAll(async () => {
    port = await listen(ctx().app);
  });

  it('closes a connection that never sends a byte after HEADERS_TIMEOUT_MS, with a 408', async () => {
    const idle = await open(port);
    expect(await idle.closed).toEqual({ by: 'server' });
    expect(statusLine(idle.received())).toBe('HTTP/1.1 408 Request Timeout');
    expect(bodyOf(idle.received())).toEqual(problems('Request timed out: its headers or its body did not arrive in time'));
  });

  it('closes a kept-alive connection that sends nothing after its answer when KEEP_ALIVE_TIMEOUT_MS ends, without a second answer', async () => {
    const kept = await open(port, HEALTHZ);
    const first = await answered(kept);
    expect(statusLine(first)).toBe('HTTP/1.1 200 OK');
    expect(first).toMatch(/\r\nconnection: keep-alive\r\n/i);
    expect(await kept.closed).toEqual({ by: 'server' });
    expect(kept.received()).toBe(first);
  });
});

describe('many idle connections', () => {
  // The default limits: MAX_CONNECTIONS 10,000, HEADERS_TIMEOUT_MS 10 s.
  const ctx = useTestApp('sqlite');
  let port: number;
  beforeAll(async () => {
    port = await listen(ctx().app);
  });

  it('answers /healthz while 600 connections that send nothing are open', async () => {
    expect(ctx().app.server.maxConnections).toBe(10_000);
    const idle = await Promise.all(Array.from({ length: 600 }, () => open(port)));
    await serverHolds(ctx().app, (count) => count >= 600);
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', version: VERSION });
    // Nothing was read on the idle connections meanwhile.
    expect(idle.map((probe) => probe.received()).filter(Boolean)).toEqual([]);
  });
});

describe('MAX_CONNECTIONS', () => {
  const ctx = useTestApp('sqlite', { maxConnections: 3 });
  let port: number;
  beforeAll(async () => {
    port = await listen(ctx().app);
  });

  it('closes a connection beyond the limit unanswered, logs it once, and takes connections again when one closes', async () => {
    const held = await Promise.all([0, 1, 2].map(() => open(port, HEALTHZ)));
    for (const probe of held) expect(statusLine(await answered(probe))).toBe('HTTP/1.1 200 OK');
    expect(await serverHolds(ctx().app, (count) => count === 3)).toBe(3);

    const beyond = await open(port, HEALTHZ);
    // Closed unanswered; an answer instead ends the wait as well, and fails here.
    expect(await Promise.race([beyond.closed.then(() => 'closed'), answered(beyond).then(statusLine)])).toBe('closed');
    expect(beyond.received()).toBe('');
    expect(ctx().logs.filter((line) => line.msg === 'connections refused: MAX_CONNECTIONS are open')).toEqual([
      expect.objectContaining({ level: 40, refused: 1, maxConnections: 3 }),
    ]);

    held[0]!.socket.destroy();
    await serverHolds(ctx().app, (count) => count < 3);
    const next = await open(port, HEALTHZ);
    expect(statusLine(await answered(next))).toBe('HTTP/1.1 200 OK');
  });
});

describe("the worker's metrics port", () => {
  // `wharf worker --metrics-port` listens too: the same limits hold there.
  const ctx = useTestApp('sqlite');
  let worker: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    const config = {
      ...loadConfig({ databaseUrl: ctx().database.url }, {}),
      maxConnections: 2,
      headersTimeoutMs: 300,
      requestTimeoutMs: 300,
      connectionsCheckingIntervalMs: 50,
    };
    worker = await buildWorkerApp({ config, db: ctx().database.db, tally: new WebhookTally(), logger: ctx().app.log });
    port = await listen(worker as App);
  });
  afterAll(async () => {
    await worker.close();
  });

  it('closes a connection that sends nothing and one beyond MAX_CONNECTIONS', async () => {
    const idle = await open(port);
    expect((await idle.closed).by).toBe('server');
    const held = await Promise.all([0, 1].map(() => open(port, HEALTHZ)));
    for (const probe of held) expect(statusLine(await answered(probe))).toBe('HTTP/1.1 200 OK');
    await serverHolds(worker as App, (count) => count === 2);
    const beyond = await open(port, HEALTHZ);
    expect(await Promise.race([beyond.closed.then(() => 'closed'), answered(beyond).then(statusLine)])).toBe('closed');
    expect(beyond.received()).toBe('');
  });
});
