import { InvalidArgumentError, Option, type Command } from 'commander';
import { adminContext, checkRequest, companyAdmin, requireTenant } from './cli-company-admin.js';
import { dbOption, printList, withDatabase, withExistingDatabase, type CliIo } from './cli-support.js';
import { parseWithOffset } from './http/time.js';
import { invalid } from './lib/refusal.js';
import { EVENT_TYPES, type EventType } from './modules/events/events.schemas.js';
import { urlProblem } from './modules/webhooks/address-policy.js';
import { replayDeliveries } from './modules/webhooks/deliveries.service.js';
import * as endpoints from './modules/webhooks/endpoints.service.js';
import {
  EndpointCreateRequestSchema,
  EndpointListRequestSchema,
  EndpointLookupSchema,
  type Endpoint,
} from './modules/webhooks/webhooks.schemas.js';

/** `wharf webhook …`: a company's webhook endpoints, managed by the operator as the company's administrator. */

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

/** `--facilities a,b`: FacilityIDs, each once. */
const parseFacilities = (value: string): string[] => [...new Set(value.split(',').map((facility) => facility.trim()))];

/** The facilities an endpoint is limited to, when it is: `in facilities LAX1,ORD1`. */
const limitedTo = (endpoint: Endpoint) => (endpoint.FacilityIDs === null ? '' : `in facilities ${endpoint.FacilityIDs.join(',')}`);

/** Whose events an endpoint takes, where, and which. */
const endpointScope = (companyId: string, endpoint: Endpoint) =>
  `${endpoint.CustomerID === null ? `every customer of ${companyId}` : `customer ${endpoint.CustomerID} of ${companyId}`}${
    endpoint.FacilityIDs === null ? '' : ` ${limitedTo(endpoint)}`
  }, ${endpoint.EventTypes === null ? 'all events' : endpoint.EventTypes.join(',')}`;

const deliveries = (count: number) => `${count} ${count === 1 ? 'delivery' : 'deliveries'}`;

/** Adds `wharf webhook add|list|rotate|disable|enable|replay` to `program`; `io` receives everything they print. */
export function addWebhookCommands(program: Command, io: CliIo): void {
  const webhook = program.command('webhook').description("manage a company's webhook endpoints as its administrator (docs/webhooks.md)");
  webhook
    .command('add <CompanyID> <Url>')
    .description('add an endpoint and print its id and its signing secret (the secret is shown this once)')
    .option('--customer <CustomerID>', "only this customer's events (default: every customer of the company)")
    .option(
      '--facilities <a,b,…>',
      'only the events of these facilities, comma-separated, and those of no facility (default: every facility)',
      parseFacilities,
    )
    .option('--types <a,b,…>', 'only these event types, comma-separated (default: all)', parseEventTypes)
    .option('--description <text>', 'what the endpoint is for')
    .option('--json', 'print the endpoint, its secret included, as a JSON object')
    .addOption(dbOption())
    .action(async (companyId: string, url: string, options) => {
      const facilities = options.facilities as string[] | undefined;
      const request = {
        CompanyID: companyId,
        CustomerID: options.customer as string | undefined,
        FacilityIDs: facilities,
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
        for (const FacilityID of facilities ?? []) await requireTenant(db, { CompanyID: companyId, FacilityID });
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
        limitedTo(e),
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
}
