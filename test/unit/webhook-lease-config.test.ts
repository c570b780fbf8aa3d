import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { MIN_WEBHOOK_LEASE_MS, requireLeaseLongerThanAttempt } from '../../src/modules/webhooks/worker.js';
import { run } from '../helpers/cli.js';

/**
 * WEBHOOK_LEASE_MS against the 15 s an attempt may take (docs/webhooks.md): a lease an attempt could
 * outlast would let a second process take the delivery and attempt it beside the first, so a
 * process that dispatches refuses one, before it opens the database or takes a port.
 */

const REFUSAL =
  'WEBHOOK_LEASE_MS must be at least 20000, above the 15 s a webhook attempt may take: a shorter lease lets another process attempt the same delivery at once (got 19999)';

describe('the webhook lease', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wharf-lease-'));
  });
  const previous = process.env.WEBHOOK_LEASE_MS;
  afterEach(() => {
    if (previous === undefined) delete process.env.WEBHOOK_LEASE_MS;
    else process.env.WEBHOOK_LEASE_MS = previous;
    rmSync(dir, { recursive: true, force: true });
  });

  it('must outlast an attempt: 20 s at least, the default 60 s', () => {
    expect(MIN_WEBHOOK_LEASE_MS).toBe(20_000);
    expect(() => requireLeaseLongerThanAttempt(loadConfig({}, {}))).not.toThrow();
    expect(() => requireLeaseLongerThanAttempt(loadConfig({}, { WEBHOOK_LEASE_MS: '20000' }))).not.toThrow();
    let refused: unknown;
    try {
      requireLeaseLongerThanAttempt(loadConfig({}, { WEBHOOK_LEASE_MS: '19999' }));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems).toEqual([REFUSAL]);
  });

  it.each([
    ['worker', []],
    ['serve', ['--port', '0']],
  ])('wharf %s refuses a shorter lease with exit 2 and one line, creating no database', async (command, flags) => {
    process.env.WEBHOOK_LEASE_MS = '19999';
    const database = join(dir, 'wharf.db');
    expect(await run([command, '--db', `sqlite:${database}`, ...flags])).toEqual({
      code: 2,
      out: [],
      err: [`error: Invalid configuration: ${REFUSAL}`],
    });
    expect(existsSync(database)).toBe(false);
  });
});
