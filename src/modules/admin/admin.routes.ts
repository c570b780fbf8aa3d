import type { FastifyRequest } from 'fastify';
import { forbidden } from '../../lib/refusal.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { errorResponses } from '../../http/schemas.js';
import { EndpointListResultSchema } from '../webhooks/webhooks.schemas.js';
import { NewX12PartnerRequestSchema, X12PartnerListSchema, X12PartnerResultSchema } from '../x12/x12.schemas.js';
import * as admin from './admin.service.js';
import {
  AdminChangeListSchema,
  AdminChangeQuerySchema,
  CustomerChangeSchema,
  CustomerListSchema,
  CustomerPathSchema,
  CustomerResultSchema,
  FacilityChangeSchema,
  FacilityListSchema,
  FacilityPathSchema,
  FacilityResultSchema,
  KeyListSchema,
  KeyResultSchema,
  KeyRotationRequestSchema,
  KeyRotationResultSchema,
  KeyWithSecretResultSchema,
  NewCustomerRequestSchema,
  NewCustomerResultSchema,
  NewFacilityRequestSchema,
  NewFacilityResultSchema,
  NewKeyRequestSchema,
  RateCardDetailSchema,
  RateCardListSchema,
  RateCardLoadRequestSchema,
  RateCardLoadResultSchema,
  RateCardPathSchema,
  RateCardQuerySchema,
  RevokeKeyPathSchema,
  RotateKeyPathSchema,
} from './admin.schemas.js';

/** Where the admin API is served. */
export const ADMIN_PREFIX = '/admin/v1';

/** Only an admin key of the company may administer it (docs/access.md, docs/admin.md). */
async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (request.principal.role !== 'admin') throw forbidden(`An API key with role ${request.principal.role} may not call this operation`);
}

/** What the admin API tells its process when a key stops working or is replaced. */
export interface KeyChanges {
  /** Drops what the process remembers of keys, so that a key it revoked is refused from its next request on. */
  forgetKeys(): void;
}

/** The routes of the admin API, in a scope that has authenticated the key (docs/admin.md). */
export function adminRoutes(app: App, { db, clock, cx }: Pick<RouteDeps, 'db' | 'clock' | 'cx'>, { forgetKeys }: KeyChanges): void {
  app.addHook('preHandler', requireAdmin);
  const common = { security: apiKeySecurity };
  const created = (schema: object) => ({ 201: { ...schema, description: 'Created.' } });

  app.get(
    '/customers',
    {
      exposeHeadRoute: false,
      schema: {
        ...common,
        operationId: 'listCustomers',
        tags: ['Admin: customers'],
        summary: "The company's customers, by CustomerID",
        description:
          'Only an admin key may call it (another role’s key is 403), and it sees only its own company. The whole list comes in one answer, without paging.',
        response: { 200: CustomerListSchema, ...errorResponses() },
      },
    },
    (request) => admin.listCustomers(db, request.principal),
  );
  app.post(
    '/customers',
    {
      schema: {
        ...common,
        operationId: 'createCustomer',
        tags: ['Admin: customers'],
        summary: 'Add a customer to the company',
        description: 'A CustomerID the company already has is 409.',
        body: NewCustomerRequestSchema,
        response: { ...created(NewCustomerResultSchema), ...errorResponses(409) },
      },
    },
    async (request, reply) => reply.status(201).send(await admin.createCustomer(cx(request), request.body)),
  );
  app.patch(
    '/customers/:CustomerID',
    {
      schema: {
        ...common,
        operationId: 'updateCustomer',
        tags: ['Admin: customers'],
        summary: 'Rename a customer',
        description: 'The body is {Name}. A CustomerID the company does not have (another company’s included) is 404.',
        params: CustomerPathSchema,
        body: CustomerChangeSchema,
        response: { 200: CustomerResultSchema, ...errorResponses(404) },
      },
    },
    (request) => admin.updateCustomer(cx(request), request.params.CustomerID, request.body),
  );

  app.get(
    '/facilities',
    {
      exposeHeadRoute: false,
      schema: {
        ...common,
        operationId: 'listFacilities',
        tags: ['Admin: facilities'],
        summary: "The company's facilities, by FacilityID",
        description:
          'Each facility shows its IANA TimeZone, the zone its documents’ facility-local times are shown in. The whole list comes in one answer, without paging.',
        response: { 200: FacilityListSchema, ...errorResponses() },
      },
    },
    (request) => admin.listFacilities(db, request.principal),
  );
  app.post(
    '/facilities',
    {
      schema: {
        ...common,
        operationId: 'createFacility',
        tags: ['Admin: facilities'],
        summary: 'Add a facility (a warehouse) to the company',
        description: 'A FacilityID the company already has is 409; a TimeZone that is not an IANA zone is 400.',
        body: NewFacilityRequestSchema,
        response: { ...created(NewFacilityResultSchema), ...errorResponses(409) },
      },
    },
    async (request, reply) => reply.status(201).send(await admin.createFacility(cx(request), request.body)),
  );
  app.patch(
    '/facilities/:FacilityID',
    {
      schema: {
        ...common,
        operationId: 'updateFacility',
        tags: ['Admin: facilities'],
        summary: 'Rename a facility or move it to another time zone',
        description:
          'Documents keep their instants: after a time zone change their facility-local times are shown in the new zone. Running servers see the change within about a second.',
        params: FacilityPathSchema,
        body: FacilityChangeSchema,
        response: { 200: FacilityResultSchema, ...errorResponses(404) },
      },
    },
    (request) => admin.updateFacility(cx(request), request.params.FacilityID, request.body),
  );

  app.get(
    '/keys',
    {
      exposeHeadRoute: false,
      schema: {
        ...common,
        operationId: 'listKeys',
        tags: ['Admin: API keys'],
        summary: "The company's API keys, oldest first (never the keys themselves)",
        description:
          'Each key shows its role, scope, label, LastUsedWhen, RevokedWhen, ExpiresAt and RateLimit; the key itself is shown only when it is made or rotated. The whole list comes in one answer, without paging.',
        response: { 200: KeyListSchema, ...errorResponses() },
      },
    },
    (request) => admin.listKeys(db, request.principal),
  );
  app.post(
    '/keys',
    {
      schema: {
        ...common,
        operationId: 'createKey',
        tags: ['Admin: API keys'],
        summary: 'Make an API key: the answer shows the key itself, this once',
        description:
          'A customer key needs Customers; a rater key needs UserIDs; an admin key takes no scope lists. Every Customer and Facility must be the company’s.',
        body: NewKeyRequestSchema,
        response: { ...created(KeyWithSecretResultSchema), ...errorResponses() },
      },
    },
    async (request, reply) => reply.status(201).send(await admin.createKey(cx(request), request.body)),
  );
  app.post(
    '/keys/:KeyID/rotate',
    {
      schema: {
        ...common,
        operationId: 'rotateKey',
        tags: ['Admin: API keys'],
        summary: 'Replace a key: a new key of the same role and scope, shown this once; the old one works for the grace period',
        description:
          'The new key keeps the old one’s role, scope, label, rate limit and expiry; the old one names it in ReplacedBy and works until the grace period ends (or its own expiry, when sooner). A revoked or expired key is 409: its callers are already cut off; so is a key already replaced, in its grace period: rotate its replacement instead.',
        params: RotateKeyPathSchema,
        body: KeyRotationRequestSchema,
        response: { 200: KeyRotationResultSchema, ...errorResponses(404, 409) },
      },
      // A rotation with the default grace needs no body at all.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const rotated = await admin.rotateKey(cx(request), Number(request.params.KeyID), request.body);
      // The old key may stop at once (GraceHours 0), before the second this process trusts a key ends.
      forgetKeys();
      return rotated;
    },
  );
  app.delete(
    '/keys/:KeyID',
    {
      schema: {
        ...common,
        operationId: 'revokeKey',
        tags: ['Admin: API keys'],
        summary: 'Revoke a key at once, on every running server',
        description: 'Revoking a revoked key keeps its first revocation time.',
        params: RevokeKeyPathSchema,
        response: { 200: KeyResultSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const revoked = await admin.revokeKey(cx(request), Number(request.params.KeyID));
      forgetKeys();
      return revoked;
    },
  );

  app.get(
    '/rate-cards',
    {
      exposeHeadRoute: false,
      schema: {
        ...common,
        operationId: 'listRateCards',
        tags: ['Admin: rate cards'],
        summary: "The company's rate cards: every version of each binding, newest first, and which is in force today",
        description:
          'A binding is the company default or one UserID; InForce marks the version it prices with today. The cards themselves are not listed: GET /admin/v1/rate-cards/{Version} answers one.',
        response: { 200: RateCardListSchema, ...errorResponses() },
      },
    },
    (request) => admin.listRateCards(db, clock, request.principal),
  );
  app.post(
    '/rate-cards',
    {
      schema: {
        ...common,
        operationId: 'loadRateCard',
        tags: ['Admin: rate cards'],
        summary: "Check a rate card and store it as its binding's next version; in force on every server within a second",
        description:
          "The checks of `wharf ratecard load`: a card with a mistake is 400 with every problem (each `Card: <path> …`), and the card in force stays. The same card as the binding's latest version changes nothing (Changed false).",
        body: RateCardLoadRequestSchema,
        response: { 200: RateCardLoadResultSchema, ...errorResponses() },
      },
    },
    (request) => admin.loadRateCard(cx(request), request.body),
  );
  app.get(
    '/rate-cards/:Version',
    {
      exposeHeadRoute: false,
      schema: {
        ...common,
        operationId: 'getRateCard',
        tags: ['Admin: rate cards'],
        summary: "One version of the company default's card, or of a UserID's, with the card itself",
        description:
          'Without UserID the version is the company default’s; with it, that UserID’s. A version the binding does not have is 404.',
        params: RateCardPathSchema,
        querystring: RateCardQuerySchema,
        response: { 200: RateCardDetailSchema, ...errorResponses(404) },
      },
    },
    (request) =>
      admin.getRateCard(
        db,
        clock,
        request.principal,
        Number(request.params.Version),
        request.query.UserID === undefined ? undefined : Number(request.query.UserID),
      ),
  );

  app.get(
    '/webhook-endpoints',
    {
      exposeHeadRoute: false,
      schema: {
        ...common,
        operationId: 'listCompanyWebhookEndpoints',
        tags: ['Admin: webhooks'],
        summary: "Every webhook endpoint of the company: each customer's and the company-wide ones (never a secret)",
        description:
          'An admin key manages them with the webhook operations under the EDI base (leaving CustomerID out for the company-wide ones).',
        response: { 200: EndpointListResultSchema, ...errorResponses() },
      },
    },
    (request) => admin.listWebhookEndpoints(db, request.principal),
  );

  app.get(
    '/x12-partners',
    {
      exposeHeadRoute: false,
      schema: {
        ...common,
        operationId: 'listTradingPartners',
        tags: ['Admin: X12 partners'],
        summary: "The company's X12 trading partners, by qualifier and id",
        description: 'As `wharf x12 partner list --company` shows them (docs/x12.md).',
        response: { 200: X12PartnerListSchema, ...errorResponses() },
      },
    },
    (request) => admin.listX12Partners(db, request.principal),
  );
  app.post(
    '/x12-partners',
    {
      schema: {
        ...common,
        operationId: 'createTradingPartner',
        tags: ['Admin: X12 partners'],
        summary: "Add a customer's X12 trading partner",
        description:
          'The partner sends interchanges with this ISA qualifier and id (POST /edi/x12), with a customer key of the customer, and receives its advices. A qualifier and id the company has already is 409; a CustomerID it does not have is 404.',
        body: NewX12PartnerRequestSchema,
        response: { ...created(X12PartnerResultSchema), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await admin.createX12Partner(cx(request), request.body)),
  );

  app.get(
    '/changes',
    {
      exposeHeadRoute: false,
      schema: {
        ...common,
        operationId: 'listAdminChanges',
        tags: ['Admin: changes'],
        summary: 'What the admin API changed in the company, and with which key, newest first',
        description:
          'Every change made through the admin API (customers, facilities, keys, rate cards) is recorded in its own transaction with the admin key that made it, never with a key itself. A page holds 100; send the last ChangeID of a page as Before for the next.',
        querystring: AdminChangeQuerySchema,
        response: { 200: AdminChangeListSchema, ...errorResponses() },
      },
    },
    (request) => admin.listChanges(db, request.principal, request.query.Before === undefined ? undefined : Number(request.query.Before)),
  );
}
