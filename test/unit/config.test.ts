import { describe, expect, it } from 'vitest';
import { ConfigError, describeSettings, loadConfig } from '../../src/config.js';

/** loadConfig(overrides, env): defaults, environment parsing, flags over environment, and refusals. */

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, but the configuration was accepted');
}

describe('loadConfig', () => {
  it('fills every default from an empty environment', () => {
    expect(loadConfig({}, {})).toEqual({
      databaseUrl: 'sqlite:./data/wharf.db',
      port: 8080,
      host: '127.0.0.1',
      logLevel: 'info',
      bodyLimit: 5 * 1024 * 1024,
      x12BodyLimit: 16 * 1024 * 1024,
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      connectionsCheckingIntervalMs: 2_000,
      maxConnections: 10_000,
      sqliteSynchronous: 'FULL',
      postgresPreparedStatements: true,
      only: 'all',
      rateLimitEdi: 600,
      rateLimitRate: 6000,
      webhookAllowPrivate: false,
      webhookConcurrency: 64,
      webhookLeaseMs: 60_000,
      webhookPollMs: 500,
      webhookRetentionDays: 30,
      eventRetentionDays: 90,
      x12RetentionDays: 90,
      idempotencyRetentionHours: 48,
      workerMetricsPort: 0,
      shutdownTimeoutMs: 30_000,
    });
  });

  it('reads and converts the environment', () => {
    const config = loadConfig(
      {},
      {
        DATABASE_URL: 'postgres://wharf@db.example:5432/wharf',
        PORT: '9090',
        HOST: '0.0.0.0',
        LOG_LEVEL: 'warn',
        BODY_LIMIT: '2048',
        X12_BODY_LIMIT: '4096',
        REQUEST_TIMEOUT_MS: '20000',
        HEADERS_TIMEOUT_MS: '5000',
        KEEP_ALIVE_TIMEOUT_MS: '65000',
        CONNECTIONS_CHECKING_INTERVAL_MS: '1000',
        MAX_CONNECTIONS: '2500',
        SQLITE_SYNCHRONOUS: 'NORMAL',
        PG_PREPARED_STATEMENTS: 'false',
        WHARF_ONLY: 'rate',
        RATE_LIMIT_EDI: '0',
        RATE_LIMIT_RATE: '120',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_CONCURRENCY: '8',
        WEBHOOK_LEASE_MS: '5000',
        WEBHOOK_POLL_MS: '100',
        WEBHOOK_RETENTION_DAYS: '7',
        EVENT_RETENTION_DAYS: '30',
        X12_RETENTION_DAYS: '365',
        IDEMPOTENCY_RETENTION_HOURS: '24',
        WORKER_METRICS_PORT: '9464',
        SHUTDOWN_TIMEOUT_MS: '500',
      },
    );
    expect(config).toEqual({
      databaseUrl: 'postgres://wharf@db.example:5432/wharf',
      port: 9090,
      host: '0.0.0.0',
      logLevel: 'warn',
      bodyLimit: 2048,
      x12BodyLimit: 4096,
      requestTimeoutMs: 20_000,
      headersTimeoutMs: 5_000,
      keepAliveTimeoutMs: 65_000,
      connectionsCheckingIntervalMs: 1_000,
      maxConnections: 2_500,
      sqliteSynchronous: 'NORMAL',
      postgresPreparedStatements: false,
      only: 'rate',
      rateLimitEdi: 0,
      rateLimitRate: 120,
      webhookAllowPrivate: true,
      webhookConcurrency: 8,
      webhookLeaseMs: 5_000,
      webhookPollMs: 100,
      webhookRetentionDays: 7,
      eventRetentionDays: 30,
      x12RetentionDays: 365,
      idempotencyRetentionHours: 24,
      workerMetricsPort: 9464,
      shutdownTimeoutMs: 500,
    });
    expect(typeof config.port).toBe('number');
  });

  it('accepts every documented DATABASE_URL form', () => {
    for (const url of [
      'sqlite:./data/wharf.db',
      'sqlite::memory:',
      'sqlite:/tmp/x/wharf.db',
      'postgres://u@h:5432/d',
      'postgresql://u@h/d',
    ]) {
      expect(loadConfig({}, { DATABASE_URL: url }).databaseUrl).toBe(url);
    }
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({}, { PORT: '', DATABASE_URL: '' })).toMatchObject({ port: 8080, databaseUrl: 'sqlite:./data/wharf.db' });
  });

  it('lets flags override the environment, and falls back to it where a flag is absent', () => {
    const env = { PORT: '9090', HOST: '10.0.0.1', DATABASE_URL: 'sqlite:/env/wharf.db' };
    expect(loadConfig({ port: '9191', databaseUrl: 'postgres://flag@h/d' }, env)).toMatchObject({
      port: 9191,
      host: '10.0.0.1',
      databaseUrl: 'postgres://flag@h/d',
    });
    // commander passes undefined for a flag that was not given
    expect(loadConfig({ port: undefined, host: undefined, databaseUrl: undefined }, env)).toMatchObject({
      port: 9090,
      host: '10.0.0.1',
      databaseUrl: 'sqlite:/env/wharf.db',
    });
    expect(loadConfig({ port: 7070 }, {}).port).toBe(7070);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['DATABASE_URL', 'mysql://x'],
    ['SQLITE_SYNCHRONOUS', 'OFF'],
    ['PG_PREPARED_STATEMENTS', 'off'],
    ['LOG_LEVEL', 'loud'],
    ['BODY_LIMIT', 'lots'],
    ['WHARF_ONLY', 'everything'],
    ['RATE_LIMIT_EDI', '-1'],
    ['RATE_LIMIT_RATE', 'many'],
    ['REQUEST_TIMEOUT_MS', '0'],
    ['HEADERS_TIMEOUT_MS', 'soon'],
    ['CONNECTIONS_CHECKING_INTERVAL_MS', '-5'],
    ['WEBHOOK_ALLOW_PRIVATE', 'yes'],
    ['WEBHOOK_ALLOW_PRIVATE', '1'],
    ['WEBHOOK_LEASE_MS', '999'],
    ['EVENT_RETENTION_DAYS', '0'],
    ['X12_RETENTION_DAYS', '0'],
    ['IDEMPOTENCY_RETENTION_HOURS', '23'],
  ])('refuses %s=%s with a ConfigError naming the variable', (variable, value) => {
    const error = configError(() => loadConfig({}, { [variable]: value }));
    expect(error.message).toContain(variable);
    expect(error.problems.length).toBeGreaterThanOrEqual(1);
    expect(error.problems.every((p) => p.startsWith(variable))).toBe(true);
  });

  it.each([
    ['PORT', '80.5'],
    ['PORT', 'true'],
    ['SHUTDOWN_TIMEOUT_MS', '1.9'],
    ['BODY_LIMIT', '4096.7'],
  ])('refuses %s=%s, which is not a whole number, instead of truncating it', (variable, value) => {
    expect(configError(() => loadConfig({}, { [variable]: value })).message).toContain(variable);
  });

  it('refuses headers that may take longer than the whole request, which Node would refuse at start', () => {
    expect(configError(() => loadConfig({}, { REQUEST_TIMEOUT_MS: '5000' })).problems).toEqual([
      'HEADERS_TIMEOUT_MS must be at most REQUEST_TIMEOUT_MS (got 10000 and 5000)',
    ]);
    expect(loadConfig({}, { REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '5000' })).toMatchObject({
      requestTimeoutMs: 5000,
      headersTimeoutMs: 5000,
    });
  });

  it('bounds MAX_CONNECTIONS to 1 to 1,000,000 whole connections: no 0 that would mean no bound', () => {
    expect(configError(() => loadConfig({}, { MAX_CONNECTIONS: '0' })).problems).toEqual([
      'MAX_CONNECTIONS expected integer to be greater or equal to 1 (got 0)',
    ]);
    expect(configError(() => loadConfig({}, { MAX_CONNECTIONS: '1000001' })).message).toContain('MAX_CONNECTIONS');
    expect(configError(() => loadConfig({}, { MAX_CONNECTIONS: 'many' })).message).toContain('MAX_CONNECTIONS');
    expect(loadConfig({ maxConnections: '1' }, { MAX_CONNECTIONS: '50' }).maxConnections).toBe(1);
  });

  it('never reads PORT=1e3 as port 1', () => {
    let port: number | undefined;
    try {
      port = loadConfig({}, { PORT: '1e3' }).port;
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return;
    }
    expect(port).toBe(1000);
  });

  it('names the variable of a bad flag too, and reports every bad setting at once', () => {
    expect(configError(() => loadConfig({ port: 'abc' }, {})).message).toContain('PORT');
    const error = configError(() => loadConfig({}, { PORT: 'abc', DATABASE_URL: 'mysql://x', SQLITE_SYNCHRONOUS: 'OFF' }));
    for (const variable of ['PORT', 'DATABASE_URL', 'SQLITE_SYNCHRONOUS']) expect(error.message).toContain(variable);
  });

  it('describes every setting with its variable and default', () => {
    const described = describeSettings();
    expect(described.map((s) => s.env)).toEqual([
      'DATABASE_URL',
      'PORT',
      'HOST',
      'LOG_LEVEL',
      'BODY_LIMIT',
      'X12_BODY_LIMIT',
      'REQUEST_TIMEOUT_MS',
      'HEADERS_TIMEOUT_MS',
      'KEEP_ALIVE_TIMEOUT_MS',
      'CONNECTIONS_CHECKING_INTERVAL_MS',
      'MAX_CONNECTIONS',
      'SQLITE_SYNCHRONOUS',
      'PG_PREPARED_STATEMENTS',
      'WHARF_ONLY',
      'RATE_LIMIT_EDI',
      'RATE_LIMIT_RATE',
      'WEBHOOK_ALLOW_PRIVATE',
      'WEBHOOK_CONCURRENCY',
      'WEBHOOK_LEASE_MS',
      'WEBHOOK_POLL_MS',
      'WEBHOOK_RETENTION_DAYS',
      'EVENT_RETENTION_DAYS',
      'X12_RETENTION_DAYS',
      'IDEMPOTENCY_RETENTION_HOURS',
      'WORKER_METRICS_PORT',
      'SHUTDOWN_TIMEOUT_MS',
    ]);
    expect(described.find((s) => s.env === 'PORT')?.default).toBe(8080);
    for (const setting of described) expect(setting.description).not.toBe('');
  });
});
