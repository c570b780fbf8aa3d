import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * Every setting Wharf reads, with its environment variable, default and meaning. This is the only
 * file that reads `process.env`; command-line flags override the environment.
 */
const settings = {
  databaseUrl: {
    env: 'DATABASE_URL',
    schema: Type.String({
      pattern: '^(sqlite:.+|postgres(ql)?://.+)$',
      default: 'sqlite:./data/wharf.db',
      description: '`sqlite:<path>`, `sqlite::memory:` or `postgres://user@host:port/db`',
    }),
  },
  port: {
    env: 'PORT',
    schema: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'HTTP port' }),
  },
  host: {
    env: 'HOST',
    schema: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Address to listen on' }),
  },
  logLevel: {
    env: 'LOG_LEVEL',
    schema: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
      { default: 'info', description: 'pino log level' },
    ),
  },
  bodyLimit: {
    env: 'BODY_LIMIT',
    schema: Type.Integer({
      minimum: 1024,
      maximum: 100 * 1024 * 1024,
      default: 5 * 1024 * 1024,
      description: 'Largest request body in bytes; larger bodies get 413',
    }),
  },
  x12BodyLimit: {
    env: 'X12_BODY_LIMIT',
    schema: Type.Integer({
      minimum: 1024,
      maximum: 100 * 1024 * 1024,
      default: 16 * 1024 * 1024,
      description: 'Largest X12 interchange in bytes (POST /edi/x12); one interchange may carry many orders, so larger than BODY_LIMIT',
    }),
  },
  requestTimeoutMs: {
    env: 'REQUEST_TIMEOUT_MS',
    schema: Type.Integer({
      minimum: 1,
      default: 30_000,
      description:
        'How long a client may take to send a whole request (headers and body); a slower one gets 408 and its connection is closed',
    }),
  },
  headersTimeoutMs: {
    env: 'HEADERS_TIMEOUT_MS',
    schema: Type.Integer({
      minimum: 1,
      default: 10_000,
      description:
        "How long a client may take to send a request's headers (408 and closed beyond), counted from the request's first byte, or on a new connection from when it opens: a connection that sends nothing is closed after it; at most REQUEST_TIMEOUT_MS",
    }),
  },
  keepAliveTimeoutMs: {
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    schema: Type.Integer({
      minimum: 1,
      default: 72_000,
      description: 'How long an idle keep-alive connection stays open (longer than a load balancer keeps its own)',
    }),
  },
  connectionsCheckingIntervalMs: {
    env: 'CONNECTIONS_CHECKING_INTERVAL_MS',
    schema: Type.Integer({
      minimum: 1,
      default: 2_000,
      description: 'How often the server looks for requests past those timeouts (a late one is answered within this much more)',
    }),
  },
  maxConnections: {
    env: 'MAX_CONNECTIONS',
    schema: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 10_000,
      description:
        'Most connections the server holds open at once; one more is closed as it arrives, without an answer (each takes a file descriptor: keep the limit of open files above it)',
    }),
  },
  sqliteSynchronous: {
    env: 'SQLITE_SYNCHRONOUS',
    schema: Type.Union([Type.Literal('FULL'), Type.Literal('NORMAL')], {
      default: 'FULL',
      description:
        'SQLite durability: FULL survives a power loss; NORMAL survives a process crash but may lose the last commits on power loss',
    }),
  },
  postgresPreparedStatements: {
    env: 'PG_PREPARED_STATEMENTS',
    schema: Type.Boolean({
      default: true,
      description:
        'PostgreSQL: prepare each statement once per connection (faster writes); false behind a pooler in transaction mode that does not keep prepared statements (PgBouncer before 1.21, or its max_prepared_statements = 0)',
    }),
  },
  only: {
    env: 'WHARF_ONLY',
    schema: Type.Union([Type.Literal('all'), Type.Literal('edi'), Type.Literal('rate')], {
      default: 'all',
      description: 'Serve both APIs (`all`), only the EDI API (`edi`) or only the rate engine (`rate`)',
    }),
  },
  rateLimitEdi: {
    env: 'RATE_LIMIT_EDI',
    schema: Type.Integer({
      minimum: 0,
      default: 600,
      description: 'Requests a minute an API key may make on the EDI routes, unless the key has its own limit; 0 = no limits there at all',
    }),
  },
  rateLimitRate: {
    env: 'RATE_LIMIT_RATE',
    schema: Type.Integer({
      minimum: 0,
      default: 6000,
      description: 'Requests a minute an API key may make on the rate engine, unless the key has its own limit; 0 = no limits there at all',
    }),
  },
  webhookAllowPrivate: {
    env: 'WEBHOOK_ALLOW_PRIVATE',
    schema: Type.Boolean({
      default: false,
      description:
        'Let webhook endpoints use http:// and private or loopback addresses (local use, tests, the demo); by default an endpoint must be https:// and reach a public address at every attempt',
    }),
  },
  webhookConcurrency: {
    env: 'WEBHOOK_CONCURRENCY',
    schema: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 64,
      description:
        'Webhook deliveries a dispatching process attempts at once; one company gets at most half of them, one endpoint at most 4 (over every process)',
    }),
  },
  webhookLeaseMs: {
    env: 'WEBHOOK_LEASE_MS',
    schema: Type.Integer({
      minimum: 1000,
      default: 60_000,
      description:
        'How long a dispatching process holds a delivery it took; a process killed meanwhile loses it to another after this. At least 20000, above the 15 s an attempt may take: a process that dispatches refuses to start with less',
    }),
  },
  webhookPollMs: {
    env: 'WEBHOOK_POLL_MS',
    schema: Type.Integer({
      minimum: 10,
      default: 500,
      description: 'How often an idle dispatcher looks for new events and due retries (changes made by its own process wake it at once)',
    }),
  },
  webhookRetentionDays: {
    env: 'WEBHOOK_RETENTION_DAYS',
    schema: Type.Integer({
      minimum: 1,
      maximum: 3650,
      default: 30,
      description:
        'How long a delivery that ended (succeeded, or failed for good) is kept with its attempts in the delivery log; older ones are purged every hour',
    }),
  },
  eventRetentionDays: {
    env: 'EVENT_RETENTION_DAYS',
    schema: Type.Integer({
      minimum: 1,
      maximum: 3650,
      default: 90,
      description:
        'How long an event is kept for the events search; older ones are purged every hour, except those an enabled webhook endpoint still waits for',
    }),
  },
  x12RetentionDays: {
    env: 'X12_RETENTION_DAYS',
    schema: Type.Integer({
      minimum: 1,
      maximum: 3650,
      default: 90,
      description:
        'How long the record of an X12 interchange received (what replays it) and an advice a partner has taken are kept; advices not taken are kept whatever their age',
    }),
  },
  idempotencyRetentionHours: {
    env: 'IDEMPOTENCY_RETENTION_HOURS',
    schema: Type.Integer({
      minimum: 24,
      maximum: 8760,
      default: 48,
      description: 'How long the answer to a request with an Idempotency-Key (a success or a refusal) is kept to be replayed; at least 24',
    }),
  },
  workerMetricsPort: {
    env: 'WORKER_METRICS_PORT',
    schema: Type.Integer({
      minimum: 0,
      maximum: 65535,
      default: 0,
      description: '`wharf worker` answers /healthz, /readyz and /metrics on this port (at HOST); 0: it serves no HTTP',
    }),
  },
  shutdownTimeoutMs: {
    env: 'SHUTDOWN_TIMEOUT_MS',
    schema: Type.Integer({
      minimum: 0,
      default: 30_000,
      description:
        'How long a graceful shutdown may take in all: in-flight requests finish, then webhook attempts in flight (up to 15 s of it); beyond it the process exits at once',
    }),
  },
} satisfies Record<string, { env: string; schema: TSchema }>;

type Settings = typeof settings;
export type SettingName = keyof Settings;

export const ConfigSchema = Type.Object(
  Object.fromEntries(Object.entries(settings).map(([name, s]) => [name, s.schema])) as {
    [K in SettingName]: Settings[K]['schema'];
  },
);
export type Config = Static<typeof ConfigSchema>;

/** Name, environment variable, default and description of every setting, for docs and `--help`. */
export function describeSettings(): { name: SettingName; env: string; default: unknown; description: string }[] {
  return (Object.keys(settings) as SettingName[]).map((name) => ({
    name,
    env: settings[name].env,
    default: settings[name].schema.default,
    description: settings[name].schema.description ?? '',
  }));
}

/**
 * Environment values are text; an integer setting takes only plain decimal digits, so that `80.5`,
 * `1e3` or `0x50` are refused rather than read as some other number.
 */
function asInteger(schema: TSchema, value: unknown): unknown {
  return schema.type === 'integer' && typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
}

/** A boolean setting takes `true` or `false` from the environment, nothing else. */
function asBoolean(schema: TSchema, value: unknown): unknown {
  return schema.type === 'boolean' && (value === 'true' || value === 'false') ? value === 'true' : value;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
  }
}

/**
 * Builds the configuration from the environment and explicit overrides (command-line flags win),
 * fills defaults and validates every value; throws ConfigError naming each bad variable.
 */
export function loadConfig(
  overrides: Partial<Record<SettingName, unknown>> = {},
  env: Record<string, string | undefined> = process.env,
): Config {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(settings) as SettingName[]) {
    const value = overrides[name] ?? env[settings[name].env];
    if (value !== undefined && value !== '') raw[name] = asBoolean(settings[name].schema, asInteger(settings[name].schema, value));
  }
  const converted = Value.Default(ConfigSchema, raw);
  if (Value.Check(ConfigSchema, converted)) {
    // Node refuses to start a server whose headers may take longer than the whole request.
    if (converted.headersTimeoutMs <= converted.requestTimeoutMs) return converted;
    throw new ConfigError([
      `HEADERS_TIMEOUT_MS must be at most REQUEST_TIMEOUT_MS (got ${converted.headersTimeoutMs} and ${converted.requestTimeoutMs})`,
    ]);
  }
  const problems = [...Value.Errors(ConfigSchema, converted)].map((error) => {
    const name = error.path.slice(1) as SettingName;
    const label = settings[name] ? settings[name].env : name;
    return `${label} ${error.message.toLowerCase()} (got ${JSON.stringify(error.value)})`;
  });
  throw new ConfigError(problems);
}
