import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifySchema, type FastifyServerOptions, type HTTPMethods } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { authenticate, createAuthorizer } from './http/auth.js';
import { commandContexts, markReplays, type Settle } from './http/command-context.js';
import { clientErrors } from './http/client-errors.js';
import { limitConnections } from './http/connection-limit.js';
import { trackAllowedMethods } from './http/allowed-methods.js';
import { API_DESCRIPTION, API_SERVERS, API_TITLE, withoutInternalKeywords } from './http/api-document.js';
import { withNamedComponents } from './http/document-components.js';
import { createErrorHandler, logInternalError, problem, replyRouteNotFound, type RejectedBodyHandler } from './http/errors.js';
import { dateTimeFormats } from './http/formats.js';
import { CONSOLE_DIR, registerConsole } from './http/console.js';
import { registerDocsPage } from './http/docs-page.js';
import { registerHealthChecks } from './http/health.js';
import { registerMetrics } from './http/metrics.js';
import { limitRequests, type LimitOf } from './http/rate-limit.js';
import { readJsonBodies } from './http/request-body.js';
import { readUrlText } from './http/url-text.js';
import { echoRequestId, requestIdOf } from './http/request-id.js';
import { RequestLog } from './http/request-log.js';
import type { App, RouteDeps } from './http/module.js';
import { systemClock, type Clock } from './lib/clock.js';
import { andThen } from './lib/maybe-promise.js';
import { rememberFound } from './lib/remember.js';
import { ajvOptions } from './lib/validate.js';
import { ackRoutes } from './modules/acks/acks.routes.js';
import { eventRoutes } from './modules/events/events.routes.js';
import { adjustmentRoutes } from './modules/inventory/adjustments.routes.js';
import { inventoryInquiryRoutes } from './modules/inventory/inquiry.routes.js';
import { recordStockChanges } from './modules/inventory/stock-events.js';
import { readAheadForStockMadeAvailable, takeStockMadeAvailable } from './modules/inventory/transaction-stock.js';
import { itemRoutes } from './modules/items/items.routes.js';
import { requestCounter } from './modules/limits/request-counters.js';
import { fillBackorders, readWaitingLinesAhead } from './modules/orders/allocation.service.js';
import { orderSearchRoutes } from './modules/orders/order-searches.routes.js';
import { orderRoutes } from './modules/orders/orders.routes.js';
import { RATE_PREFIX, rateRoutes } from './modules/rating/rating.routes.js';
import { ADMIN_PREFIX, adminRoutes } from './modules/admin/admin.routes.js';
import { failureEnvelope } from './modules/rating/rating.present.js';
import { createRater } from './modules/rating/rating.service.js';
import { shippingRoutes } from './modules/orders/shipping.routes.js';
import { receiptSearchRoutes } from './modules/receipts/receipt-searches.routes.js';
import { receiptRoutes } from './modules/receipts/receipts.routes.js';
import { receivingRoutes } from './modules/receipts/receiving.routes.js';
import { acknowledgeRejectedBody } from './modules/commands/commands.service.js';
import { WebhookTally } from './modules/webhooks/webhook-metrics.js';
import { apiKeyRoutes } from './modules/tenants/api-key.routes.js';
import { webhookRoutes } from './modules/webhooks/webhooks.routes.js';
import { partnersInTransaction, queueChangeAdvices, rememberedPartners, type PartnersOf } from './modules/x12/advice-queue.js';
import { x12Routes } from './modules/x12/x12.routes.js';
import * as tenants from './modules/tenants/tenants.service.js';

export const EDI_PREFIX = '/shared/bam/v1/public';
/** How long a process may trust a key or a tenant fact it looked up (docs/access.md: about a second). */
const TRUST_MS = 1000;

/** The EDI modules, in the order their routes register. */
const ediModules: ((app: App, deps: RouteDeps) => void)[] = [
  itemRoutes,
  receiptRoutes,
  ackRoutes,
  receivingRoutes,
  receiptSearchRoutes,
  inventoryInquiryRoutes,
  adjustmentRoutes,
  orderRoutes,
  shippingRoutes,
  orderSearchRoutes,
  eventRoutes,
  apiKeyRoutes,
];

/**
 * What every change entails before it commits (CommandContext.settle): stock it made Available
 * goes to waiting orders, every balance it changed is told in inventory.changed events, and the
 * confirmations and adjustments it made are queued as advices for X12 partners. Inventory sits
 * below orders, and the X12 bridge above both, so they meet here.
 */
export function settleWith(partnersOf: PartnersOf): Settle {
  // The fill's read of waiting lines goes out with the posting that frees the stock.
  readAheadForStockMadeAvailable(readWaitingLinesAhead);
  return async (trx, change) => {
    await fillBackorders(trx, takeStockMadeAvailable(trx), change);
    recordStockChanges(trx, change);
    await queueChangeAdvices(trx, change, partnersOf);
  };
}

/** The settle of one-off processes (the CLI, the demo's seeding): every partner looked up in the change's transaction. */
export const settleChange: Settle = settleWith(partnersInTransaction);

export interface AppOptions {
  config: Config;
  db: Db;
  clock?: Clock;
  /** pino options or an instance; defaults to JSON lines at the configured level. */
  logger?: FastifyServerOptions['logger'];
  /** What this process's webhook dispatcher counts, for /metrics (a new, empty one when absent). */
  webhookTally?: WebhookTally;
  /** Sees every route as it registers, with its full URL and schema: how a caller lists the routes the app serves. */
  onRoute?: (route: { method: HTTPMethods | HTTPMethods[]; url: string; schema?: FastifySchema }) => void;
  /** The operator console's build to serve at /console/ (default: console/dist beside src/). */
  consoleDir?: string;
}

/** Builds the whole HTTP application on an open database; the caller listens and closes. */
export async function buildApp({
  config,
  db,
  clock = systemClock,
  logger,
  onRoute,
  webhookTally = new WebhookTally(),
  consoleDir = CONSOLE_DIR,
}: AppOptions): Promise<App> {
  // A request too slow or too broken to reach a route is answered in its operation's error shape.
  const slowClients = clientErrors((url, _statusCode, message) =>
    url?.startsWith(RATE_PREFIX) ? failureEnvelope('badInput', message) : [problem(message)],
  );
  const app = Fastify({
    logger: logger ?? { level: config.logLevel },
    logController: new RequestLog(),
    bodyLimit: config.bodyLimit,
    // docs/operations.md: slow clients get 408 and lose their connection, and so does a connection that
    // sends nothing for HEADERS_TIMEOUT_MS; maxRequestsPerSocket stays unset.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: config.connectionsCheckingIntervalMs },
    clientErrorHandler: slowClients.handle,
    genReqId: requestIdOf,
    ajv: {
      customOptions: { ...ajvOptions, formats: dateTimeFormats },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  limitConnections(app, config.maxConnections);
  if (onRoute) app.addHook('onRoute', onRoute);
  const allowedMethods = trackAllowedMethods(app);

  slowClients.track(app);
  // Only JSON bodies are accepted: without the text parser a text/plain body is 415.
  app.removeContentTypeParser('text/plain');
  // Bodies Wharf cannot keep as sent are 400 (too deep, inexact numbers, NUL, lone surrogates).
  readJsonBodies(app);
  // And so are path parameters and queries that hold a NUL (a `%00`).
  readUrlText(app);
  // Outside the EDI scope (which acknowledges rejected imports) a rejected body is just refused.
  app.setErrorHandler(createErrorHandler(async (_request, refusal) => refusal));
  app.setNotFoundHandler(replyRouteNotFound(allowedMethods));
  echoRequestId(app);
  markReplays(app);
  registerMetrics(app, db, () => webhookTally.asMetricsJson(db));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: API_TITLE, version: '1.3.1', description: API_DESCRIPTION },
      servers: API_SERVERS,
      components: {
        securitySchemes: {
          APIKey: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'The whole header value: `APIKey <key>` (the word APIKey, a space, then the key).',
          },
        },
      },
    },
    transformObject: (document) =>
      withNamedComponents(withoutInternalKeywords('openapiObject' in document ? document.openapiObject : document.swaggerObject)),
  });
  await registerDocsPage(app, 'Wharf API');
  // The root of the server is its documentation.
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/docs', 302));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // The console talks to the EDI and admin operations, so it is served where they are.
  if (config.only !== 'rate') await registerConsole(app, consoleDir);

  registerHealthChecks(app, db);

  // Every request looks up its key and most a facility: what was found is trusted for a second
  // (a key never past the instant it expires). A key this process revokes or rotates is refused
  // by it at once: the change starts a new memory of keys, so that not even a lookup that began
  // before the change can leave the old answer behind (other processes: within the second).
  const rememberKeys = () =>
    rememberFound(
      (key: string) => tenants.authenticateApiKey(db, clock, key),
      clock,
      TRUST_MS,
      (found) => found.expiresAt,
    );
  let keysFound = rememberKeys();
  const lookupKey = (key: string) => keysFound(key);
  const forgetKeys = () => {
    keysFound = rememberKeys();
  };
  const findFacility = rememberFound(
    (companyId: string, facilityId: string) => tenants.findFacilityRef(db, companyId, facilityId),
    clock,
    TRUST_MS,
  );
  const findCustomer = rememberFound(
    async (companyId: string, customerId: string) =>
      (await tenants.customerExists(db, companyId, customerId)) ? { customerId } : undefined,
    clock,
    TRUST_MS,
  );
  // Every confirmation and adjustment asks whether its customer has X12 partners: trusted for a
  // second like the other tenant facts, on the real clock (a partner added is heard of within it).
  const partnersOf = rememberedPartners(systemClock, TRUST_MS);
  if (config.only !== 'rate') {
    const deps: RouteDeps = {
      db,
      clock,
      authorize: createAuthorizer({
        findFacility,
        customerExists: (companyId, customerId) => andThen(findCustomer(companyId, customerId), (found) => found !== undefined),
      }),
      cx: commandContexts(db, clock, settleWith(partnersOf)),
    };
    const onRejectedBody: RejectedBodyHandler = async (request, refusal) => {
      if (!request.principal) return refusal;
      try {
        return await acknowledgeRejectedBody(
          deps.cx(request),
          deps.authorize,
          request.routeOptions.config.rejectedBody,
          request.body,
          refusal,
        );
      } catch (error) {
        // The caller still gets the 400; the failed ACK write is logged without its database message.
        logInternalError(error as Error, request);
        return refusal;
      }
    };
    // One counter for the EDI and admin scopes: a key's admin calls count against its EDI limit, in
    // one count per key (in memory on SQLite, where two counters would each allow the limit).
    const countEdi = requestCounter(db, clock, 'edi');
    const ediLimitOf: LimitOf = (principal) => principal.rateLimit ?? config.rateLimitEdi;
    await app.register(
      async (edi) => {
        edi.setErrorHandler(createErrorHandler(onRejectedBody));
        edi.decorateRequest('principal');
        edi.addHook('onRequest', authenticate(lookupKey));
        if (config.rateLimitEdi > 0) {
          limitRequests(edi, countEdi, ediLimitOf);
        }
        for (const registerRoutes of ediModules) registerRoutes(edi, deps);
        webhookRoutes(edi, deps, { allowPrivate: config.webhookAllowPrivate });
        x12Routes(edi, deps, { bodyLimit: config.x12BodyLimit });
      },
      { prefix: EDI_PREFIX },
    );
    await app.register(
      async (adminScope) => {
        adminScope.setErrorHandler(createErrorHandler(async (_request, refusal) => refusal));
        adminScope.decorateRequest('principal');
        adminScope.addHook('onRequest', authenticate(lookupKey));
        // Admin calls count against the key's limit of the EDI operations.
        if (config.rateLimitEdi > 0) {
          limitRequests(adminScope, countEdi, ediLimitOf);
        }
        adminRoutes(adminScope, deps, { forgetKeys });
      },
      { prefix: ADMIN_PREFIX },
    );
  }
  if (config.only !== 'edi') {
    const rater = createRater(db, clock);
    await app.register(
      async (rate) => {
        if (config.rateLimitRate > 0) {
          limitRequests(rate, requestCounter(db, clock, 'rate'), (principal) => principal.rateLimit ?? config.rateLimitRate);
        }
        rateRoutes(rate, { rater, lookupKey, allowedMethods });
      },
      {
        prefix: RATE_PREFIX,
      },
    );
  }
  return app;
}
