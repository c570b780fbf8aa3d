import { Agent, request } from 'undici';
import { publicOnlyLookup, RefusedAddress, urlProblem } from './address-policy.js';
import { retryAfterMs } from './retry-schedule.js';

/**
 * One HTTP attempt of a delivery (docs/webhooks.md): POST the payload with its Standard Webhooks
 * headers; a 2xx within 15 s is a success. Whatever comes back, the first 1 KB of the answer is
 * kept for the delivery log; no error of the receiver's side is thrown.
 */

export const ATTEMPT_TIMEOUT_MS = 15_000;
const LOGGED_BYTES = 1024;

export interface Attempt {
  url: string;
  /** The JSON payload, exactly as signed. */
  body: string;
  headers: Record<string, string>;
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  /** Why no status came: a refused address, a timeout, a connection error. */
  error: string | null;
  /** The first 1 KB of the answer's body. */
  response: string | null;
  durationMs: number;
  /** What the receiver's Retry-After asks for, in ms from the end of the attempt (0: nothing). */
  retryAfterMs: number;
}

export interface Sender {
  send(attempt: Attempt): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

/** The first bytes of a body, as text; the rest is not read. */
async function firstBytes(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= LOGGED_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, LOGGED_BYTES).toString('utf8');
}

/** What the log says of an attempt that got no status; never the stack. */
function errorText(error: unknown): string {
  if (error instanceof RefusedAddress) return error.message;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof RefusedAddress) return cause.message;
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return `No answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  }
  return (code ? `${code}: ${message ?? ''}` : (message ?? String(error))).slice(0, 500);
}

/**
 * A sender over one connection pool. Unless private addresses are allowed, every connection is made
 * to a looked-up public address only, and a URL is checked again before every attempt.
 */
export function createSender({ allowPrivate, now = Date.now }: { allowPrivate: boolean; now?: () => number }): Sender {
  const agent = new Agent({
    headersTimeout: ATTEMPT_TIMEOUT_MS,
    bodyTimeout: ATTEMPT_TIMEOUT_MS,
    connect: allowPrivate ? {} : { lookup: publicOnlyLookup },
  });
  return {
    async send({ url, body, headers }) {
      const started = performance.now();
      const outcome = (fields: Partial<AttemptOutcome>): AttemptOutcome => ({
        ok: false,
        statusCode: null,
        error: null,
        response: null,
        retryAfterMs: 0,
        ...fields,
        durationMs: Math.round(performance.now() - started),
      });
      const problem = urlProblem(url, allowPrivate);
      if (problem) return outcome({ error: problem });
      try {
        const answer = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'Wharf-Webhooks/1', ...headers },
          body,
          dispatcher: agent,
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        const response = await firstBytes(answer.body);
        const statusCode = answer.statusCode;
        return outcome({
          ok: statusCode >= 200 && statusCode < 300,
          statusCode,
          response,
          retryAfterMs: retryAfterMs(answer.headers['retry-after'], now()),
        });
      } catch (error) {
        return outcome({ error: errorText(error) });
      }
    },
    close: () => agent.close(),
  };
}
