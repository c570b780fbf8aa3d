#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DateTime } from 'luxon';
import { buildApp } from './app.js';
import { dbOption, printList, withDatabase, withExistingDatabase, type CliIo } from './cli-support.js';
import { addWebhookCommands } from './cli-webhooks.js';
import { addX12Commands } from './cli-x12.js';
import { ConfigError, loadConfig, type Config, type SettingName } from './config.js';
import { backupDatabase, databaseLocation } from './db/dialect.js';
import { migrateToLatest } from './db/migrate.js';
import { DEMO, seedDemo } from './demo.js';
import { invalid, Refusal } from './lib/refusal.js';
import { systemClock } from './lib/clock.js';
import { VERSION } from './lib/version.js';
import { purgeExpired, PURGE_BATCH_SIZE } from './retention.js';
import { RateCardError } from './modules/rating/rate-card.compile.js';
import * as rating from './modules/rating/rating.service.js';
import { ROLES } from './modules/tenants/tenants.schemas.js';
import * as tenants from './modules/tenants/tenants.service.js';
import { closeOnSignals, openDatabase, requireDatabase, startServer, startWorker } from './server.js';

/** The `wharf` command line: it builds the program, runs it, and is the `wharf` binary when run directly. */

export type { CliIo };

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

/** The configuration, once the database it names is known to exist (checked without creating it). */
async function existingDatabaseConfig(options: { db?: string }): Promise<Config> {
  const config = loadConfig({ databaseUrl: options.db });
  await requireDatabase(config);
  return config;
}

function serverOverrides(options: Record<string, unknown>): Partial<Record<SettingName, unknown>> {
  return { databaseUrl: options.db, port: options.port, host: options.host, only: options.only };
}

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
    .description('dispatch webhooks without serving the API, on a database that exists and is up to date; SIGTERM stops it gracefully')
    .addOption(dbOption())
    .option('--metrics-port <n>', 'answer /healthz, /readyz and /metrics on this port (default: WORKER_METRICS_PORT, or none)')
    .option('--host <h>', 'address of the metrics port (default: HOST or 127.0.0.1)')
    .action(async (options) => {
      const config = loadConfig({ databaseUrl: options.db, workerMetricsPort: options.metricsPort, host: options.host });
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

  program
    .command('purge')
    .description(
      'purge what is past its retention (idempotency records, ended webhook deliveries, events, X12 interchanges, taken X12 advices), a batch per transaction, and print how many of each went',
    )
    .addOption(dbOption())
    .action(async (options) => {
      const purged = await withExistingDatabase(options, (db, config) =>
        purgeExpired(db, config, systemClock.now(), { size: PURGE_BATCH_SIZE }),
      );
      for (const { kind, rule, rows } of purged) io.out(`${kind}: ${rows} purged (${rule})`);
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
          k.replacedBy === null ? '' : `replaced by #${k.replacedBy}`,
          expiry(k.expiresAt),
        ];
      });
    });

  key
    .command('rotate')
    .description(
      'replace a key: print a new key of the same role, scope, label, rate limit and expiry (shown this once); the old one works for the grace period, then stops',
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
      const keeps = view.expiresAt === null ? '' : `; key #${view.id} expires at ${view.expiresAt}, as key #${replaced.id} was to`;
      io.err(`key #${view.id} replaces key #${replaced.id}, which stops working at ${replaced.expiresAt}${keeps}`);
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

  addWebhookCommands(program, io);
  addX12Commands(program, io);

  program
    .command('backup <file>')
    .description('SQLite: copy the database to a new, owner-only file while servers run; PostgreSQL: print the pg_dump command to use')
    .addOption(dbOption())
    .action(async (file: string, options) => {
      const config = await existingDatabaseConfig(options);
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
      // A demo runs on one machine: its endpoints may be local receivers (docs/webhooks.md).
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
          'To use them in a shell, as the README does:',
          `  export ${Object.entries(keys)
            .map(([role, k]) => `${role.toUpperCase()}_KEY=${k}`)
            .join(' ')}`,
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
          'Webhooks (local receivers allowed here): point an endpoint at an HTTP server of yours that answers 2xx,',
          'e.g. this one, which prints each delivery and answers 204 (run it in another terminal):',
          `  node -e 'require("http").createServer((q,s)=>{let b="";q.setEncoding("utf8").on("data",c=>b+=c).on("end",()=>{console.log(b);s.writeHead(204).end()})}).listen(9000,"127.0.0.1")'`,
          `then make the endpoint with the customer key (limited to ${DEMO.facility}, so the endpoint takes ${DEMO.facility}'s events and the item master's),`,
          'make a change (an import), and read what was sent and answered:',
          `  curl -s ${base}/shared/bam/v1/public/edi/webhook/endpoint/create \\`,
          `    -H 'Authorization: APIKey ${keys.customer}' -H 'Content-Type: application/json' \\`,
          `    -d '{"CompanyID":"${DEMO.company}","CustomerID":"${DEMO.customer}","Url":"http://127.0.0.1:9000/hooks"}'`,
          `  curl -s ${base}/shared/bam/v1/public/edi/webhook/delivery/search-by-paging \\`,
          `    -H 'Authorization: APIKey ${keys.customer}' -H 'Content-Type: application/json' \\`,
          `    -d '{"CompanyID":"${DEMO.company}","CustomerID":"${DEMO.customer}"}'`,
          '',
          `Operator console: ${base}/console/  (sign in with the operator key, or the admin key to manage keys, rate cards and webhooks)`,
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
