import { ROLES_OF } from '../../http/auth.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema } from '../../http/request-identity.js';
import { errorResponses } from '../../http/schemas.js';
import { replayDeliveries, searchDeliveries } from './deliveries.service.js';
import { createEndpoint, deleteEndpoint, listEndpoints, rotateSecret, updateEndpoint } from './endpoints.service.js';
import {
  DeliveryReplayRequestSchema,
  DeliveryReplayResultSchema,
  DeliverySearchRequestSchema,
  DeliverySearchResultSchema,
  EndpointCreateRequestSchema,
  EndpointCreateResultSchema,
  EndpointDeleteRequestSchema,
  EndpointDeleteResultSchema,
  EndpointListRequestSchema,
  EndpointListResultSchema,
  EndpointResultSchema,
  EndpointRotateRequestSchema,
  EndpointRotateResultSchema,
  EndpointUpdateRequestSchema,
} from './webhooks.schemas.js';

export interface WebhookRouteOptions {
  /** WEBHOOK_ALLOW_PRIVATE: endpoints may be http:// and private addresses. */
  allowPrivate: boolean;
}

const ENDPOINT = '/edi/webhook/endpoint';
const DELIVERY = '/edi/webhook/delivery';
const tags = ['Webhooks'];

/** The webhook operations of a customer's system, and of an admin for its whole company (docs/webhooks.md). */
export function webhookRoutes(app: App, { db, authorize, cx }: RouteDeps, { allowPrivate }: WebhookRouteOptions): void {
  const change = { security: apiKeySecurity, headers: IdempotencyHeadersSchema, tags };
  const read = { security: apiKeySecurity, tags };
  const preHandler = authorize(ROLES_OF.customer);
  // Create and update may limit an endpoint to facilities: each is checked as a body's FacilityID.
  const listingFacilities = authorize(ROLES_OF.customer, { facilityList: true });

  app.post(
    `${ENDPOINT}/create`,
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        ...change,
        summary: 'Create an endpoint: events are POSTed to it, signed with the secret this answer shows once',
        description:
          'Called by the customer’s system for its CustomerID, or with an admin key, which may leave CustomerID out for an endpoint that takes the events of every customer of the company. EventTypes absent or null takes every event type. FacilityIDs limits the endpoint to those facilities’ events (and the events of no facility, the item master’s); absent, it takes every facility’s, or, for a key limited to facilities, those facilities’. A FacilityID the company does not have is 400 (Not found facility), one outside the key’s facilities 403. A Url that is not https:// to a public address is 400 (unless the server allows private addresses). A customer may have 20 endpoints and a company 100: one more is 409.',
        body: EndpointCreateRequestSchema,
        response: { 200: EndpointCreateResultSchema, ...errorResponses(409) },
      },
      preHandler: listingFacilities,
    },
    (request) => createEndpoint(cx(request), request.body, allowPrivate),
  );
  app.post(
    `${ENDPOINT}/list`,
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        ...read,
        summary: 'The endpoints (never their secrets)',
        description:
          'Called by the customer’s system for its CustomerID, or with an admin key, which may leave CustomerID out for every endpoint of the company. A key limited to facilities sees only the endpoints limited to some of its facilities. Each shows the facilities it is limited to (FacilityIDs), whether it is Enabled and, when it is not, why (DisabledReason: its owner, a 410 answer, or five days of failures). The whole list comes in one answer, without paging.',
        body: EndpointListRequestSchema,
        response: { 200: EndpointListResultSchema, ...errorResponses() },
      },
      preHandler,
    },
    (request) => listEndpoints(db, request.principal, request.body),
  );
  app.post(
    `${ENDPOINT}/update`,
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        ...change,
        summary: "Change an endpoint's URL, facilities, event types or description; disable or enable it",
        description:
          'Only what the body sends changes; a new Url or FacilityIDs is checked as at creation (400, 403), and a key limited to facilities may not make FacilityIDs null (every facility: 403). Enabled true enables a disabled endpoint again and clears its DisabledReason; events made while it was disabled are not queued for it (read them with the events search). Another customer’s endpoint, one outside the key’s facilities, or an unknown one, is 404.',
        body: EndpointUpdateRequestSchema,
        response: { 200: EndpointResultSchema, ...errorResponses(404) },
      },
      preHandler: listingFacilities,
    },
    (request) => updateEndpoint(cx(request), request.body, allowPrivate),
  );
  app.post(
    `${ENDPOINT}/delete`,
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        ...change,
        summary: 'Delete an endpoint with its deliveries and their log',
        description:
          'Another customer’s endpoint, one outside the key’s facilities, or an unknown one, is 404. To stop deliveries for a while and keep the log, disable the endpoint with the update instead.',
        body: EndpointDeleteRequestSchema,
        response: { 200: EndpointDeleteResultSchema, ...errorResponses(404) },
      },
      preHandler,
    },
    (request) => deleteEndpoint(cx(request), request.body),
  );
  app.post(
    `${ENDPOINT}/rotate-secret`,
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        ...change,
        summary: 'A new secret, shown once; the old one keeps signing beside it for 24 hours',
        description:
          'For those 24 hours every delivery carries two signatures in webhook-signature, space-separated, so the receiver can switch to the new secret without missing one. Another customer’s endpoint, one outside the key’s facilities, or an unknown one, is 404.',
        body: EndpointRotateRequestSchema,
        response: { 200: EndpointRotateResultSchema, ...errorResponses(404) },
      },
      preHandler,
    },
    (request) => rotateSecret(cx(request), request.body),
  );
  app.post(
    `${DELIVERY}/search-by-paging`,
    {
      schema: {
        operationId: 'searchWebhookDeliveries',
        ...read,
        summary: 'Deliveries, oldest first, each with every attempt (status, duration, the first 1 KB of the answer)',
        description:
          'Filters: EndpointID (another customer’s, or one outside the key’s facilities, matches nothing), EventID and Status (Pending, Succeeded, Failed). A delivery is Failed after its eighth failed attempt, about 28 hours after the first; replay it when the receiver is ready. The paging is in the answer’s paging object.',
        body: DeliverySearchRequestSchema,
        response: { 200: DeliverySearchResultSchema, ...errorResponses() },
      },
      preHandler,
    },
    (request) => searchDeliveries(db, request.principal, request.body),
  );
  app.post(
    `${DELIVERY}/replay`,
    {
      schema: {
        operationId: 'replayWebhookDeliveries',
        ...change,
        summary: "Queue again one delivery, or every delivery to an endpoint since a time, at the retry schedule's start",
        description:
          'Send DeliveryID, or EndpointID with Since (a date-time with its UTC offset): anything else is 400. An unknown delivery or endpoint, another customer’s, or one outside the key’s facilities, is 404; a replay that would queue deliveries of a disabled endpoint is 409 (enable it first: no dispatcher attempts its deliveries). The deliveries become Pending and due at once, and Replayed says how many.',
        body: DeliveryReplayRequestSchema,
        response: { 200: DeliveryReplayResultSchema, ...errorResponses(404, 409) },
      },
      preHandler,
    },
    (request) => replayDeliveries(cx(request), request.body),
  );
}
