import { Type } from '@sinclair/typebox';
import { ROLES_OF } from '../../http/auth.js';
import type { App, RouteDeps } from '../../http/module.js';
import { apiKeySecurity } from '../../http/module.js';
import { IdempotencyHeadersSchema } from '../../http/request-identity.js';
import { errorResponses, ProblemsSchema } from '../../http/schemas.js';
import { textProblem } from '../../lib/json-values.js';
import { invalid } from '../../lib/refusal.js';
import { receiveInterchange } from './interchanges.service.js';
import { acknowledgeAdvices, listOutbox, requestInventoryAdvice } from './outbox.service.js';
import {
  InventoryAdviceRequestSchema,
  InventoryAdviceResultSchema,
  OutboxAckRequestSchema,
  OutboxAckResultSchema,
  OutboxListRequestSchema,
  OutboxListResultSchema,
} from './x12.schemas.js';

export interface X12RouteOptions {
  /** X12_BODY_LIMIT: the largest interchange taken. */
  bodyLimit: number;
}

export const X12_MEDIA_TYPE = 'application/edi-x12';

/** The demo's 940 (examples/940-demo.x12 is the same, for the README's curl). */
export const EXAMPLE_940 = [
  'ISA*00*          *00*          *ZZ*ACMEEDI        *ZZ*DEMO           *261127*1200*U*00401*000000101*0*P*>~',
  'GS*OW*ACMEEDI*DEMO*20261127*1200*101*X*004010~',
  'ST*940*0001~',
  'W05*N*SO-X12-1*PO-X12-1~',
  'N1*WH*Los Angeles DC*91*LAX1~',
  'N1*ST*Jane Doe~',
  'N3*1 Market St~',
  'N4*San Francisco*CA*94105*US~',
  'LX*1~',
  'W01*2*EA**VN*MUG-BLUE-12~',
  'SE*9*0001~',
  'GE*1*101~',
  'IEA*1*000000101~',
].join('\n');

const EXAMPLE_997 = [
  'ISA*00*          *00*          *ZZ*DEMO           *ZZ*ACMEEDI        *261127*1200*U*00401*000000001*0*P*>~',
  'GS*FA*DEMO*ACMEEDI*20261127*1200*1*X*004010~',
  'ST*997*0001~',
  'AK1*OW*101~',
  'AK2*940*0001~',
  'AK5*A~',
  'AK9*A*1*1*1~',
  'SE*6*0001~',
  'GE*1*1~',
  'IEA*1*000000001~',
].join('\n');

const EXAMPLE_TA1 = [
  'ISA*00*          *00*          *ZZ*DEMO           *ZZ*ACMEEDI        *261127*1200*U*00401*000000002*0*P*>~',
  'TA1*000000101*261127*1200*R*001~',
  'IEA*0*000000002~',
].join('\n');

const tags = ['X12'];

/** The X12 bridge's operations (docs/x12.md): a trading partner's interchange in, its acknowledgment out, and the advices' outbox. */
export function x12Routes(app: App, { db, authorize, cx }: RouteDeps, { bodyLimit }: X12RouteOptions): void {
  const preHandler = authorize(ROLES_OF.customer);
  app.post(
    '/edi/x12/outbox/list',
    {
      schema: {
        operationId: 'listOutboxAdvices',
        tags,
        summary: 'The X12 advices (944, 945, 947, 846) waiting for the customer’s partners',
        description:
          'Called by the customer’s system or its X12 translator. Oldest first: a 944 per receiving confirmation, a 945 per shipment confirmation, a 947 per inventory adjustment, and the 846s asked for, each a whole interchange for one partner, queued in the transaction of the change it tells. Status Waiting (the default) lists those not taken yet; an advice whose data X12 cannot carry has its Problem instead of an Interchange. The `x12.ready` event tells a webhook endpoint when one is queued.',
        security: apiKeySecurity,
        body: OutboxListRequestSchema,
        response: { 200: OutboxListResultSchema, ...errorResponses() },
      },
      preHandler,
    },
    (request) => listOutbox(db, request.principal, request.body),
  );
  app.post(
    '/edi/x12/outbox/ack',
    {
      schema: {
        operationId: 'acknowledgeOutboxAdvices',
        tags,
        summary: 'Mark X12 advices taken',
        description:
          'After the translator has stored them. An OutboxID that is not one of the customer’s advices is 404 and marks nothing; an advice taken before is answered in AlreadyTaken, so the same ack sent again changes nothing.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: OutboxAckRequestSchema,
        response: { 200: OutboxAckResultSchema, ...errorResponses(404) },
      },
      preHandler,
    },
    (request) => acknowledgeAdvices(cx(request), request.body),
  );
  app.post(
    '/edi/x12/846',
    {
      schema: {
        operationId: 'requestInventoryAdvice',
        tags,
        summary: 'Queue an 846 of the customer’s stock in a facility',
        description:
          'One 846 Inventory Inquiry/Advice per partner of the customer, in the outbox: a LIN per balance with something on hand, with its available (QTY 33), on-hand (17) and allocated (27) quantities. 404 when the customer has no X12 trading partner.',
        security: apiKeySecurity,
        headers: IdempotencyHeadersSchema,
        body: InventoryAdviceRequestSchema,
        response: { 200: InventoryAdviceResultSchema, ...errorResponses(404) },
      },
      preHandler,
    },
    (request) => requestInventoryAdvice(cx(request), request.body),
  );

  app.register(async (x12) => {
    // Here a body is X12 text and nothing else: JSON and every other type are 415, unread.
    x12.removeAllContentTypeParsers();
    // X12's character sets have no NUL, and PostgreSQL refuses one in text: 400 before anything is read or kept.
    x12.addContentTypeParser(X12_MEDIA_TYPE, { parseAs: 'string', bodyLimit }, (_request, text, done) => {
      const problem = textProblem(text as string);
      done(problem ? invalid(`The body must not contain ${problem}`) : null, text);
    });
    x12.addContentTypeParser('*', (_request, _payload, done) =>
      done(Object.assign(new Error(`Content-Type must be ${X12_MEDIA_TYPE}`), { statusCode: 415 })),
    );
    x12.post(
      '/edi/x12',
      {
        bodyLimit,
        schema: {
          operationId: 'receiveInterchange',
          tags,
          summary: 'Post one X12 interchange (940, 943) and read its 997',
          description:
            'Called by a trading partner’s system with a customer key of the partner’s customer (`wharf x12 partner add`). The body is one 004010 interchange, in any delimiters its ISA declares; each 940 (W05-01 N or R: DN import, F: DN cancel) and 943 (RN import) runs as its own command, with its ACK, exactly as the JSON operation does. 200 answers the 997 (one per functional group: AK5 A accepted, E accepted with a warning, R rejected with AK3/AK4 naming each segment and element at fault). 400 answers a TA1 when the envelope cannot be taken (bad ISA, counts or control numbers, another receiver than Wharf, an ISA13 already used with another body), or the spec’s error array when the body is no interchange at all. The same interchange sent again answers its first 997 with `Idempotent-Replayed: true`. A sender that is not a partner of the key’s customers is 403. docs/x12.md maps every element.',
          security: apiKeySecurity,
          body: { content: { [X12_MEDIA_TYPE]: { schema: Type.String({ examples: [EXAMPLE_940] }) } } },
          response: {
            200: {
              description: 'The 997 of the interchange.',
              content: { [X12_MEDIA_TYPE]: { schema: Type.String({ examples: [EXAMPLE_997] }) } },
            },
            ...errorResponses(),
            400: {
              description:
                'A TA1 (application/edi-x12) when the envelope cannot be taken; the error array when the body is no interchange at all.',
              content: {
                [X12_MEDIA_TYPE]: { schema: Type.String({ examples: [EXAMPLE_TA1] }) },
                'application/json': { schema: ProblemsSchema },
              },
            },
            415: { ...ProblemsSchema, description: 'The body is not application/edi-x12.' },
          },
        },
      },
      async (request, reply) => {
        const answer = await receiveInterchange(cx(request), authorize, request.body as string);
        if (answer.replayed) request.replayed = true;
        return reply.code(answer.statusCode).type(X12_MEDIA_TYPE).send(answer.body);
      },
    );
  });
}
