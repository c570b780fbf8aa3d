import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP receiver of webhooks on loopback (docs/webhooks.md's tests): it keeps every request it is
 * sent and answers as the test says — a status, headers, a body, or nothing for a while.
 */

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Waits this long before answering. */
  delayMs?: number;
  /** Waits for this before answering (then for `delayMs`): a test holds an attempt open while it acts. */
  heldUntil?: Promise<unknown>;
}

export interface Receiver {
  url: (path?: string) => string;
  received: Received[];
  /** How the next requests are answered (200 "ok" by default); `answer` may depend on the request. */
  answerWith(answer: Answer | ((request: Received) => Answer)): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let answer: Answer | ((request: Received) => Answer) = { status: 200, body: 'ok' };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const got = { path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(got);
      const { status, headers = {}, body = '', delayMs = 0, heldUntil } = typeof answer === 'function' ? answer(got) : answer;
      // Unref'd: an answer held back (a test's hung receiver) never keeps the test process alive.
      void Promise.resolve(heldUntil).then(() =>
        setTimeout(() => {
          if (response.destroyed) return;
          response.writeHead(status, headers);
          response.end(body);
        }, delayMs).unref(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hooks') => `http://127.0.0.1:${port}${path}`,
    received,
    answerWith(next) {
      answer = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
