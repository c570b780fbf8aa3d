#!/usr/bin/env node
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DateTime } from 'luxon';
import type { TSchema } from '@sinclair/typebox';
import { buildApp, settleChange } from './app.js';
import { ConfigError, loadConfig, type Config, type SettingName } from './config.js';
import type { Db } from './db/database.js';
import { backupDatabase, databaseLocation } from './db/dialect.js';
import { migrateToLatest } from './db/migrate.js';
import { DEMO, seedDemo } from './demo.js';
import type { Principal } from './http/auth.js';
import type { CommandContext } from './http/command-context.js';
import { parseWithOffset } from './http/time.js';
import { invalid, notFound, Refusal } from './lib/refusal.js';
import { systemClock } from './lib/clock.js';
import { sha256Hex } from './lib/ids.js';
import { inputProblems } from './lib/validate.js';
import { VERSION } from './lib/version.js';
import { EVENT_TYPES, type EventType } from './modules/events/events.schemas.js';
import { RateCardError } from './modules/rating/rate-card.compile.js';
import * as rating from './modules/rating/rating.service.js';
import { ROLES } from './modules/tenants/tenants.schemas.js';
import * as tenants from './modules/tenants/tenants.service.js';
import { urlProblem } from './modules/webhooks/address-policy.js';
import { replayDeliveries } from './modules/webhooks/deliveries.service.js';
import * as endpoints from './modules/webhooks/endpoints.service.js';
import {
  EndpointCreateRequestSchema,
  EndpointListRequestSchema,
  EndpointLookupSchema,
  type Endpoint,
} from './modules/webhooks/webhooks.schemas.js';
import { closeOnSignals, openDatabase, openExistingDatabase, requireDatabase, startServer, startWorker } from './server.js';

/** Where the command writes; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

const collect = (value: string, previous: string[] = []) => [...previous, value];
const collectInt = (value: string, previous: number[] = []) => {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError('must be a positive integer');
  return [...previous, Number(value)];
};
const parseKeyId = (value: string) => {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError('must be a key id (a positive integer)');
  return Number(value);
};
const parseRateLimit = (value: string) => {
  if (!/^\d{1,10}$/.test(value) || Number(value) > 1_000_000_000)
    throw new InvalidArgumentError('must be requests a minute, 0 to 1000000000');
  return Number(value);
};
/** An ISO 8601 date (00:00 UTC of that day) or date-time with its zone, as epoch milliseconds. */
const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
function parseInstant(option: string, text: string): number {
  const instant = DateTime.fromISO(text, { zone: 'utc' });
  if (!INSTANT.test(text) || !instant.isValid) {
    throw invalid(`${option} ${text} is not an ISO 8601 date (2027-01-31) or date-time with a zone (2027-01-31T17:00:00Z)`);
  }
  return instant.toMillis();
}

/** A number of hours (up to two decimals), as milliseconds. */
function parseHours(option: string, text: string): number {
  if (!/^\d{1,4}(\.\d{1,2})?$/.test(text)) throw invalid(`${option} ${text} is not a number of hours (e.g. 24 or 0.5)`);
  return Math.round(Number(text) * 60 * 60 * 1000);
}

const dbOption = () => new Option('--db <url>', 'database URL (default: DATABASE_URL or sqlite:./data/wharf.db)');

/** Runs `work` on the configured database, migrated to the latest schema, and closes it. */
async function withDatabase<T>(options: { db?: string }, work: (db: Db, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig({ databaseUrl: options.db });
  const db = openDatabase(config);
  try {
    await migrateToLatest(db);
    return await work(db, config);
  } finally {
    await db.destroy();
  }
}

/** The configuration, once the database it names is known to exist (checked without creating it). */
async function existingDatabaseConfig(options: { db?: string }): Promise<Config> {
  const config = loadConfig({ databaseUrl: options.db });
  await requireDatabase(config);
  return config;
}

/**
 * Runs `work` on the configured database as it is, for the commands that only read: a database
 * that does not exist is refused, not created (opening SQLite's file would make it), and so is one
 * whose schema is behind, which `migrate` or a writing command brings up to date.
 */
async function withExistingDatabase<T>(options: { db?: string }, work: (db: Db, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig({ databaseUrl: options.db });
  const db = await openExistingDatabase(config);
  try {
    return await work(db, config);
  } finally {
    await db.destroy();
  }
}

/** Prints what a list command found: a JSON array with --json, else a line a row (its non-empty fields), or `none`. */
function printList<T>(io: CliIo, json: boolean | undefined, rows: T[], none: string, fields: (row: T) => string[]): void {
  if (json) return io.out(JSON.stringify(rows, null, 2));
  if (rows.length === 0) return io.out(none);
  for (const row of rows) io.out(fields(row).filter(Boolean).join('  '));
}

function serverOverrides(options: Record<string, unknown>): Partial<Record<SettingName, unknown>> {
  return { databaseUrl: options.db, port: options.port, host: options.host, only: options.only };
}

/**
 * The API key the CLI's webhook commands act with: none. The operator at the command line acts as
 * the administrator of the company without a key, and what it writes records no key id (NULL), as
 * the CLI's other writes do (a rate card's loaded_by_key_id, an event's key_id). A Principal's keyId
 * is a number because every HTTP request has a key, so this null is typed as one; the webhook
 * services pass it only to webhook_endpoints.key_id (which takes NULL), to `settle` (which writes
 * nothing for them: they move no stock) and to the idempotency record (never written: the CLI sends
 * no Idempotency-Key). A made-up number such as 0 would read as a key that never existed; should a
 * service ever write it into a column that requires a key, NULL fails loudly instead.
 */
const NO_API_KEY = null as unknown as number;

/** The operator as the administrator of one company: every customer, every facility. */
function companyAdmin(companyId: string): Principal {
  return { keyId: NO_API_KEY, role: 'admin', companyId, customerIds: [], facilityIds: [], userIds: [], rateLimit: null };
}

/** A command's context outside HTTP (as the demo builds one): the company's administrator, no Idempotency-Key. */
function adminContext(db: Db, request: { CompanyID: string }): CommandContext {
  return {
    db,
    clock: systemClock,
    principal: companyAdmin(request.CompanyID),
    identity: { companyId: request.CompanyID, keyId: NO_API_KEY, requestHash: sha256Hex(JSON.stringify(request)) },
    settle: settleChange,
  };
}

/** A webhook request built from arguments gets the checks its route's schema makes, in the same words. */
function checkRequest(schema: TSchema, request: unknown): void {
  const problems = inputProblems(schema, request);
  if (problems.length > 0) throw invalid(...problems);
}

/** The company a webhook command names must exist, and so must its customer where it names one. */
async function requireTenant(db: Db, request: { CompanyID: string; CustomerID?: string }): Promise<void> {
  if (!(await tenants.companyExists(db, request.CompanyID))) throw notFound(`Company ${request.CompanyID} not found`);
  if (request.CustomerID !== undefined && !(await tenants.customerExists(db, request.CompanyID, request.CustomerID))) {
    throw notFound(`Customer ${request.CustomerID} not found in company ${request.CompanyID}`);
  }
}

/** `--types a,b`: event types, each known, none twice. */
const parseEventTypes = (value: string): EventType[] => {
  const types = [...new Set(value.split(',').map((type) => type.trim()))];
  const unknown = types.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `${unknown.map((type) => `"${type}"`).join(', ')} is not an event type; they are: ${EVENT_TYPES.join(', ')}`,
    );
  }
  return types as EventType[];
};

/** Whose events an endpoint takes, and which. */
const endpointScope = (companyId: string, endpoint: Endpoint) =>
  `${endpoint.CustomerID === null ? `every customer of ${companyId}` : `customer ${endpoint.CustomerID} of ${companyId}`}, ${
    endpoint.EventTypes === null ? 'all events' : endpoint.EventTypes.join(',')
  }`;

const deliveries = (count: number) => `${count} ${count === 1 ? 'delivery' : 'deliveries'}`;

/** The `wharf` command line; `io` receives everything it prints. */
export function createCli(io: CliIo = processIo): Command {
  const program = new Command('wharf')
    .description('Wharf, the warehouse integration server')
    .version(VERSION, '-V, --version', 'print the version')
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride()
    .showHelpAfterError();

  program
    .command('serve')
    .description('serve the API (migrates the database first unless --no-migrate)')
    .option('--port <n>', 'port (default: PORT or 8080)')
    .option('--host <h>', 'address (default: HOST or 127.0.0.1)')
    .addOption(dbOption())
    .addOption(new Option('--only <api>', 'serve only one API').choices(['edi', 'rate']))
    .option('--no-migrate', 'do not run migrations at start')
    .option('--no-webhooks', 'do not dispatch webhooks in this process (run wharf worker for them)')
    .action(async (options) => {
      const config = loadConfig(serverOverrides(options));
      const server = await startServer(config, { migrate: options.migrate, webhooks: options.webhooks });
      closeOnSignals(server, server.app.log, config.shutdownTimeoutMs);
    });

  program
    .command('worker')
    .description('dispatch webhooks without serving HTTP, on a database that exists and is up to date; SIGTERM stops it gracefully')
    .addOption(dbOption())
    .action(async (options) => {
      const config = loadConfig({ databaseUrl: options.db });
      const worker = await startWorker(config);
      closeOnSignals(worker, worker.log, config.shutdownTimeoutMs);
    });

  program
    .command('migrate')
    .description('bring the database schema up to date')
    .addOption(dbOption())
    .action(async (options) => {
      const config = loadConfig({ databaseUrl: options.db });
      const db = openDatabase(config);
      try {
        const applied = await migrateToLatest(db);
        io.out(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
      } finally {
        await db.destroy();
      }
    });

  const company = program.command('company').description('manage companies');
  company
    .command('add <CompanyID>')
    .description('add a company (the operator organisation)')
    .option('--name <name>', 'display name')
    .addOption(dbOption())
    .action(async (companyId: string, options) => {
      await withDatabase(options, (db) => tenants.addCompany(db, systemClock, { companyId, name: options.name }));
      io.out(`company ${companyId} added`);
    });
  company
    .command('list')
    .description('list the companies')
    .option('--json', 'print a JSON array')
    .addOption(dbOption())
    .action(async (options) => {
      const companies = await withExistingDatabase(options, (db) => tenants.listCompanies(db));
      printList(io, options.json, companies, 'no companies', (c) => [c.company, `"${c.name}"`, `created ${c.createdAt}`]);
    });

  const customer = program.command('customer').description('manage customers');
  customer
    .command('add <CompanyID> <CustomerID>')
    .description('add a customer (a merchant) to a company')
    .option('--name <name>', 'display name')
    .addOption(dbOption())
    .action(async (companyId: string, customerId: string, options) => {
      await withDatabase(options, (db) => tenants.addCustomer(db, systemClock, { companyId, customerId, name: options.name }));
      io.out(`customer ${customerId} added to ${companyId}`);
    });
  customer
    .command('list')
    .description('list the customers of every company, or of one')
    .option('--company <CompanyID>', 'only the customers of this company')
    .option('--json', 'print a JSON array')
    .addOption(dbOption())
    .action(async (options) => {
      const customers = await withExistingDatabase(options, (db) => tenants.listCustomers(db, options.company));
      printList(io, options.json, customers, 'no customers', (c) => [c.company, c.customer, `"${c.name}"`, `created ${c.createdAt}`]);
    });

  const facility = program.command('facility').description('manage facilities');
  facility
    .command('add <CompanyID> <FacilityID>')
    .description('add a facility (a warehouse) to a company')
    .option('--timezone <zone>', 'IANA time zone, e.g. America/Chicago', 'UTC')
    .option('--name <name>', 'display name')
    .addOption(dbOption())
    .action(async (companyId: string, facilityId: string, options) => {
      await withDatabase(options, (db) =>
        tenants.addFacility(db, systemClock, { companyId, facilityId, name: options.name, timeZone: options.timezone }),
      );
      io.out(`facility ${facilityId} added to ${companyId} (${options.timezone})`);
    });
  facility
    .command('update <CompanyID> <FacilityID>')
    .description("change a facility's time zone: times read after it are shown in the new zone; stored instants stay")
    .requiredOption('--timezone <zone>', 'IANA time zone, e.g. America/Chicago')
    .addOption(dbOption())
    .action(async (companyId: string, facilityId: string, options) => {
      const { facility: updated, previousTimeZone } = await withDatabase(options, (db) =>
        tenants.setFacilityTimeZone(db, { companyId, facilityId, timeZone: options.timezone }),
      );
      io.out(
        updated.timeZone === previousTimeZone
          ? `facility ${facilityId} of ${companyId} is already in ${previousTimeZone}; nothing changed`
          : `facility ${facilityId} of ${companyId} is now in ${updated.timeZone} (was ${previousTimeZone})`,
      );
    });
  facility
    .command('list')
    .description('list the facilities of every company, or of one, with their time zones')
    .option('--company <CompanyID>', 'only the facilities of this company')
    .option('--json', 'print a JSON array')
    .addOption(dbOption())
    .action(async (options) => {
      const facilities = await withExistingDatabase(options, (db) => tenants.listFacilities(db, options.company));
      printList(io, options.json, facilities, 'no facilities', (f) => [
        f.company,
        f.facility,
        `"${f.name}"`,
        f.timeZone,
        `created ${f.createdAt}`,
      ]);
    });

  const key = program.command('key').description('manage API keys');
  key
    .command('create')
    .description('create an API key and print it (shown this once)')
    .addOption(new Option('--role <role>', 'what the key may do').choices(ROLES).makeOptionMandatory())
    .requiredOption('--company <CompanyID>', 'the company the key belongs to')
    .option('--customer <CustomerID>', 'a customer a customer key acts for (repeatable)', collect)
    .option('--facility <FacilityID>', 'a facility the key is limited to (repeatable; default every facility)', collect)
    .option('--user-id <n>', 'a rate-engine UserID a rater key quotes for (repeatable)', collectInt)
    .option('--label <label>', 'what the key is for')
    .option(
      '--rate-limit <n>',
      'requests a minute the key may make (default: RATE_LIMIT_EDI or RATE_LIMIT_RATE; 0 = no limit)',
      parseRateLimit,
    )
    .option('--expires <date>', 'when the key stops working: an ISO date (00:00 UTC) or date-time with a zone')
    .option('--json', 'print an object with the key and its details')
    .addOption(dbOption())
    .action(async (options) => {
      const expiresAt = options.expires === undefined ? undefined : parseInstant('--expires', options.expires);
      const created = await withDatabase(options, (db) =>
        tenants.createApiKey(db, systemClock, {
          role: options.role,
          companyId: options.company,
          customerIds: options.customer ?? [],
          facilityIds: options.facility ?? [],
          userIds: options.userId ?? [],
          label: options.label ?? '',
          rateLimit: options.rateLimit ?? null,
          expiresAt,
        }),
      );
      io.out(options.json ? JSON.stringify({ key: created.key, ...created.view }, null, 2) : created.key);
    });

  key
    .command('list')
    .description('list API keys (never the keys themselves)')
    .option('--company <CompanyID>', 'only the keys of this company')
    .option('--json', 'print a JSON array')
    .addOption(dbOption())
    .action(async (options) => {
      const keys = await withExistingDatabase(options, (db) => tenants.listApiKeys(db, options.company));
      const now = systemClock.now();
      const expiry = (at: string | null) => (at === null ? '' : Date.parse(at) <= now ? `EXPIRED ${at}` : `expires ${at}`);
      printList(io, options.json, keys, 'no keys', (k) => {
        const scope = [
          k.customers.length ? `customers=${k.customers.join(',')}` : '',
          k.facilities.length ? `facilities=${k.facilities.join(',')}` : '',
          k.userIds.length ? `userIds=${k.userIds.join(',')}` : '',
        ].filter(Boolean);
        return [
          `#${k.id}`,
          k.role,
          k.company,
          scope.join(' ') || '(whole company)',
          k.label ? `"${k.label}"` : '',
          `created ${k.createdAt}`,
          `last used ${k.lastUsedAt ?? 'never'}`,
          k.rateLimit === null ? '' : k.rateLimit === 0 ? 'no rate limit' : `${k.rateLimit} a minute`,
          k.revokedAt ? `REVOKED ${k.revokedAt}` : '',
          expiry(k.expiresAt),
        ];
      });
    });

  key
    .command('rotate')
    .description(
      'replace a key: print a new key of the same role, scope and label (shown this once); the old one works for the grace period, then stops',
    )
    .argument('<id>', 'the key id `key list` shows', parseKeyId)
    .option('--grace <hours>', 'how long the old key keeps working, in hours (0 to 8760)', '24')
    .option('--json', 'print an object with the new key, its details and the replaced key')
    .addOption(dbOption())
    .action(async (id: number, options) => {
      const graceMs = parseHours('--grace', options.grace);
      const { key: newKey, view, replaced } = await withDatabase(options, (db) => tenants.rotateApiKey(db, systemClock, id, graceMs));
      if (options.json) return io.out(JSON.stringify({ key: newKey, ...view, replaces: replaced }, null, 2));
      io.out(newKey);
      io.err(`key #${view.id} replaces key #${replaced.id}, which stops working at ${replaced.expiresAt}`);
    });

  key
    .command('revoke')
    .description('revoke an API key at once, on every running server')
    .argument('<id>', 'the key id `key list` shows', parseKeyId)
    .addOption(dbOption())
    .action(async (id: number, options) => {
      const view = await withDatabase(options, (db) => tenants.revokeApiKey(db, systemClock, id));
      io.out(`key #${view.id} revoked at ${view.revokedAt}`);
    });

  const ratecard = program.command('ratecard').description('manage rate cards of the last-mile rate engine');
  ratecard
    .command('load <file>')
    .description("check a rate card (JSON or YAML) and store it as its binding's next version; in force on every server within a second")
    .requiredOption('--company <CompanyID>', 'the company whose card it is')
    .option('--user-id <n>', 'bind the card to this rate-engine UserID instead of making it the company default', collectInt)
    .addOption(dbOption())
    .action(async (file: string, options, command: Command) => {
      const userIds: number[] = options.userId ?? [];
      if (userIds.length > 1) command.error('error: --user-id may be given once', { exitCode: 2 });
      const text = readFileSync(file, 'utf8');
      const { card, changed } = await withDatabase(options, (db) =>
        rating.loadRateCard(db, systemClock, { companyId: options.company, userId: userIds[0], text }),
      );
      const binding = card.userId === null ? 'the company default' : `UserID ${card.userId}`;
      io.out(
        changed
          ? `rate card "${card.name}" loaded for ${card.company} (${binding}) as version ${card.version}, effective ${card.effectiveFrom}${card.effectiveTo ? ` to ${card.effectiveTo}` : ''}`
          : `rate card "${card.name}" is already version ${card.version} for ${card.company} (${binding}); nothing changed`,
      );
    });
  ratecard
    .command('list')
    .description('list the rate cards of a company, every version, and which is in force today')
    .requiredOption('--company <CompanyID>', 'the company')
    .option('--json', 'print a JSON array')
    .addOption(dbOption())
    .action(async (options) => {
      const cards = await withExistingDatabase(options, (db) => rating.listRateCards(db, systemClock, options.company));
      printList(io, options.json, cards, 'no rate cards', (card) => [
        `#${card.id}`,
        card.userId === null ? 'default' : `UserID ${card.userId}`,
        `v${card.version}`,
        `"${card.name}"`,
        `effective ${card.effectiveFrom}${card.effectiveTo ? ` to ${card.effectiveTo}` : ''} (${card.timeZone})`,
        `loaded ${card.loadedAt}`,
        card.inForce ? 'IN FORCE' : '',
      ]);
    });

  const webhook = program.command('webhook').description("manage a company's webhook endpoints as its administrator (DESIGN §13)");
  webhook
    .command('add <CompanyID> <Url>')
    .description('add an endpoint and print its id and its signing secret (the secret is shown this once)')
    .option('--customer <CustomerID>', "only this customer's events (default: every customer of the company)")
    .option('--types <a,b,…>', 'only these event types, comma-separated (default: all)', parseEventTypes)
    .option('--description <text>', 'what the endpoint is for')
    .option('--json', 'print the endpoint, its secret included, as a JSON object')
    .addOption(dbOption())
    .action(async (companyId: string, url: string, options) => {
      const request = {
        CompanyID: companyId,
        CustomerID: options.customer as string | undefined,
        Url: url,
        EventTypes: options.types as EventType[] | undefined,
        Description: options.description as string | undefined,
      };
      checkRequest(EndpointCreateRequestSchema, request);
      const { Endpoint: created } = await withDatabase(options, async (db, config) => {
        const problem = urlProblem(url, config.webhookAllowPrivate);
        // The service refuses it too; the operator is told what would allow it.
        if (problem && !config.webhookAllowPrivate && urlProblem(url, true) === undefined) {
          throw invalid(`${problem} (WEBHOOK_ALLOW_PRIVATE=true allows http:// and private or loopback addresses)`);
        }
        await requireTenant(db, request);
        return endpoints.createEndpoint(adminContext(db, request), request, config.webhookAllowPrivate);
      });
      if (options.json) return io.out(JSON.stringify(created, null, 2));
      io.out(`endpoint ${created.EndpointID} added: ${created.Url} (${endpointScope(companyId, created)})`);
      io.out(`secret ${created.Secret}  (shown this once: keep it to verify the signatures)`);
    });
  webhook
    .command('list <CompanyID>')
    .description("list a company's endpoints (never their secrets)")
    .option('--customer <CustomerID>', "only this customer's endpoints")
    .option('--json', 'print a JSON array')
    .addOption(dbOption())
    .action(async (companyId: string, options) => {
      const request = { CompanyID: companyId, CustomerID: options.customer as string | undefined };
      checkRequest(EndpointListRequestSchema, request);
      const { Endpoints: found } = await withExistingDatabase(options, async (db) => {
        await requireTenant(db, request);
        return endpoints.listEndpoints(db, companyAdmin(companyId), request);
      });
      printList(io, options.json, found, 'no endpoints', (e) => [
        e.EndpointID,
        e.CustomerID ?? '(every customer)',
        e.Url,
        e.EventTypes === null ? 'all events' : e.EventTypes.join(','),
        e.Enabled ? 'enabled' : `DISABLED${e.DisabledReason ? ` (${e.DisabledReason})` : ''}`,
        e.Description ? `"${e.Description}"` : '',
        `created ${e.CreatedWhen}`,
      ]);
    });
  webhook
    .command('rotate <CompanyID> <EndpointID>')
    .description('give an endpoint a new signing secret and print it (shown this once); the old one signs beside it for 24 hours')
    .option('--json', 'print the endpoint, its new secret included, and until when the old one signs, as a JSON object')
    .addOption(dbOption())
    .action(async (companyId: string, endpointId: string, options) => {
      const request = { CompanyID: companyId, EndpointID: endpointId };
      checkRequest(EndpointLookupSchema, request);
      const { Endpoint: rotated } = await withDatabase(options, async (db) => {
        await requireTenant(db, request);
        return endpoints.rotateSecret(adminContext(db, request), request);
      });
      const oldUntil = new Date(Date.parse(rotated.UpdatedWhen) + endpoints.ROTATION_OVERLAP_MS).toISOString();
      if (options.json) return io.out(JSON.stringify({ ...rotated, PreviousSecretUntil: oldUntil }, null, 2));
      io.out(`secret ${rotated.Secret}  (the new secret of ${rotated.EndpointID}, shown this once)`);
      io.out(`the old secret signs beside it for 24 hours more, until ${oldUntil}`);
    });
  for (const [name, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    webhook
      .command(`${name} <CompanyID> <EndpointID>`)
      .description(
        enabled
          ? 'enable an endpoint again (also one disabled by a 410 or by five days of failures): its waiting deliveries go out'
          : 'disable an endpoint: its waiting deliveries wait, and events made meanwhile are not delivered to it (the events search has them)',
      )
      .addOption(dbOption())
      .action(async (companyId: string, endpointId: string, options) => {
        const request = { CompanyID: companyId, EndpointID: endpointId };
        checkRequest(EndpointLookupSchema, request);
        const said = await withDatabase(options, async (db, config) => {
          await requireTenant(db, request);
          const before = await endpoints.requireEndpoint(db, { companyId }, endpointId);
          if ((before.enabled === 1) === enabled) return `endpoint ${endpointId} is already ${name}d; nothing changed`;
          await endpoints.updateEndpoint(adminContext(db, request), { ...request, Enabled: enabled }, config.webhookAllowPrivate);
          return enabled
            ? `endpoint ${endpointId} enabled${before.disabled_reason ? ` (it was: ${before.disabled_reason})` : ''}`
            : `endpoint ${endpointId} disabled: its waiting deliveries wait, and events made until it is enabled are not delivered to it`;
        });
        io.out(said);
      });
  }
  webhook
    .command('replay <CompanyID>')
    .description('queue deliveries again, due now: one delivery, or every delivery to an endpoint of an event made since a time')
    .addOption(new Option('--delivery <DeliveryID>', 'the delivery to queue again (dlv_…)').conflicts(['endpoint', 'since']))
    .option('--endpoint <EndpointID>', 'the endpoint whose deliveries to queue again (ep_…), with --since')
    .option('--since <time>', 'with --endpoint: of the events made at or after this ISO 8601 date-time with its offset')
    .addOption(dbOption())
    .action(async (companyId: string, options, command: Command) => {
      const byEndpoint = options.endpoint !== undefined || options.since !== undefined;
      if (
        (options.delivery === undefined) !== byEndpoint ||
        (byEndpoint && (options.endpoint === undefined || options.since === undefined))
      ) {
        command.error('error: give --delivery <dlv_…>, or --endpoint <ep_…> and --since <time>', { exitCode: 2 });
      }
      const since = options.since === undefined ? undefined : parseWithOffset(options.since);
      if (options.since !== undefined && since === undefined) {
        throw invalid(
          `--since ${options.since} is not an ISO 8601 date-time with its offset (2026-03-05T14:07:09Z, 2026-03-05T06:07:09-08:00)`,
        );
      }
      const request = { CompanyID: companyId, DeliveryID: options.delivery, EndpointID: options.endpoint, Since: options.since };
      const { Replayed } = await withDatabase(options, async (db) => {
        await requireTenant(db, request);
        return replayDeliveries(adminContext(db, request), request);
      });
      io.out(
        options.delivery !== undefined
          ? `${deliveries(Replayed)} queued again: ${options.delivery}`
          : `${deliveries(Replayed)} queued again: those to ${options.endpoint} of the events made at or after ${new Date(since!).toISOString()}`,
      );
    });

  program
    .command('backup <file>')
    .description('SQLite: copy the database to a new file while servers run; PostgreSQL: print the pg_dump command to use')
    .addOption(dbOption())
    .action(async (file: string, options) => {
      const config = await existingDatabaseConfig(options);
      if (existsSync(file)) throw invalid(`${file} already exists; a backup is written to a new file`);
      const backup = await backupDatabase(config.databaseUrl, file);
      if ('command' in backup) {
        io.err('Wharf does not copy a PostgreSQL database itself; back it up with (the password from PGPASSWORD or ~/.pgpass):');
        return io.out(backup.command);
      }
      io.out(`database ${databaseLocation(config.databaseUrl)} backed up to ${file}`);
    });

  program
    .command('demo')
    .description('seed the DEMO tenant (idempotent), print its keys and a curl line, and serve')
    .option('--port <n>', 'port (default: PORT or 8080)')
    .option('--host <h>', 'address (default: HOST or 127.0.0.1)')
    .addOption(dbOption())
    .action(async (options) => {
      // A demo runs on one machine: its endpoints may be local receivers (DESIGN §13).
      const config = loadConfig({ ...serverOverrides(options), webhookAllowPrivate: true });
      const keyFile = demoKeyFile(config.databaseUrl);
      const server = await startServer(config);
      const keys = await seedDemo(server.db, systemClock, keyFile);
      const base = server.address;
      io.out(
        [
          `Wharf demo is serving at ${base}  (database ${config.databaseUrl}, keys saved in ${keyFile})`,
          `Tenant: company ${DEMO.company}, customer ${DEMO.customer}, facility ${DEMO.facility} (${DEMO.timeZone})`,
          'API keys:',
          ...Object.entries(keys).map(([role, k]) => `  ${role.padEnd(9)} ${k}`),
          '',
          'Try it:',
          `  curl -s ${base}/shared/bam/v1/public/edi/item-master/search-by-paging \\`,
          `    -H 'Authorization: APIKey ${keys.customer}' -H 'Content-Type: application/json' \\`,
          `    -d '{"CompanyID":"${DEMO.company}","CustomerID":"${DEMO.customer}","Status":"Active","Paging":{"PageNo":1}}'`,
          '',
          `A last-mile rate quote (the rater key quotes for UserID ${DEMO.raterUserId}):`,
          `  curl -s ${base}/api/RateEngine/SVC/lastmile \\`,
          `    -H 'Authorization: APIKey ${keys.rater}' -H 'Content-Type: application/json' \\`,
          `    -d '{"UserID":${DEMO.raterUserId},"Data":{"OriginZip":"90001","DestZip":"10001","Length":"12","Width":"10","Hight":"8","Weight":"5.2"}}'`,
          '',
          'Webhooks (local receivers allowed here): point an endpoint at any HTTP server of yours, e.g. one',
          'started with `nc -lk 9000`, make a change (an import), and read what was sent and answered:',
          `  curl -s ${base}/shared/bam/v1/public/edi/webhook/endpoint/create \\`,
          `    -H 'Authorization: APIKey ${keys.admin}' -H 'Content-Type: application/json' \\`,
          `    -d '{"CompanyID":"${DEMO.company}","CustomerID":"${DEMO.customer}","Url":"http://127.0.0.1:9000/hooks"}'`,
          `  curl -s ${base}/shared/bam/v1/public/edi/webhook/delivery/search-by-paging \\`,
          `    -H 'Authorization: APIKey ${keys.admin}' -H 'Content-Type: application/json' \\`,
          `    -d '{"CompanyID":"${DEMO.company}","CustomerID":"${DEMO.customer}"}'`,
          '',
          `Interactive docs: ${base}/docs    OpenAPI: ${base}/openapi.json    Ctrl-C stops.`,
        ].join('\n'),
      );
      closeOnSignals(server, server.app.log, config.shutdownTimeoutMs);
    });

  program
    .command('openapi')
    .description('print the OpenAPI document')
    .action(async () => {
      // The document depends on the routes only, so any empty database will do.
      const config = loadConfig({ databaseUrl: 'sqlite::memory:' }, {});
      const db = openDatabase(config);
      const app = await buildApp({ config, db, logger: false });
      await app.ready();
      io.out(JSON.stringify(app.swagger(), null, 2));
      await app.close();
      await db.destroy();
    });

  return program;
}

/** The demo keys live beside the embedded database (or under ./data for PostgreSQL). */
function demoKeyFile(databaseUrl: string): string {
  const path = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : '';
  return join(path && path !== ':memory:' ? dirname(path) : 'data', 'demo-keys.json');
}

/** Runs the command line and returns the exit code: 0 ok, 1 refused or failed, 2 bad usage. */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  try {
    await createCli(io).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof ConfigError) {
      io.err(`error: ${error.message}`);
      return 2;
    }
    if (error instanceof RateCardError) {
      io.err('error: the rate card was not loaded; the card in force stays:');
      for (const problem of error.problems) io.err(`  ${problem}`);
      return 1;
    }
    if (error instanceof Refusal) {
      for (const message of error.messages) io.err(`error: ${message}`);
      return 1;
    }
    io.err(`error: ${(error as Error).message}`);
    return 1;
  }
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === realpathSync(process.argv[1]);
if (invokedDirectly) {
  const code = await runCli(process.argv.slice(2));
  // serve, worker and demo keep running; every other command ends here.
  if (code !== 0) process.exit(code);
}
