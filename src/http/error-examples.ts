import { problem } from './errors.js';

/**
 * An example for every refusal the published document lists (docs/admin.md): the message Wharf really
 * answers for a common cause of that status, in the shape of the operation, so that a reader sees
 * what a refusal of that operation looks like before meeting one.
 */

const MESSAGES: Record<string, string> = {
  400: 'CompanyID is required',
  401: 'Missing Authorization header; send Authorization: APIKey <key>',
  403: "CustomerID GLOBEX is outside this API key's scope",
  408: 'Request timed out: its headers or its body did not arrive in time',
  413: 'Request body is larger than the limit',
  415: 'Content-Type must be application/json',
  422: 'Idempotency-Key was already used with a different request',
  429: 'Too many requests: this API key may make 600 a minute; retry in 31 s',
  500: 'Internal error (request id 0b6f2c3e-5a41-4d0e-9a57-2f1e8c7d9b10)',
};

/** What an operation's 404 and 409 say, by the thing its operationId names (the first pattern that matches). */
const BY_SUBJECT: [RegExp, { 404: string; 409: string }][] = [
  [/Acks$/, { 404: 'Not found receipt', 409: '' }],
  [
    /^cancelReceipt$/,
    {
      404: 'Not found receipt with PONo PO-DEMO-1999',
      409: 'Receipt RN-4 is Open; only an Imported receipt can be cancelled by the customer',
    },
  ],
  [/Receipt|Receiving/, { 404: 'Not found receipt RN-999', 409: 'Receipt RN-1 is Closed; open needs Imported' }],
  [
    /^cancelOrder$/,
    { 404: 'Not found order with PONo SO-DEMO-2999', 409: 'Order DN-4 is Open; only an Imported order can be cancelled by the customer' },
  ],
  [/Order|Shipment/, { 404: 'Not found order DN-999', 409: 'Order DN-1 is Shipped; open needs Imported' }],
  [/Inventory/, { 404: '', 409: 'AdjustmentNo ADJ-1001 was already applied with a different body' }],
  [
    /WebhookDeliveries/,
    {
      404: 'Not found delivery dlv_01J0000000000000000000000',
      409: 'Endpoint ep_demo_acme is disabled (Disabled by its owner): enable it, then replay its deliveries',
    },
  ],
  [/Webhook/, { 404: 'Not found endpoint ep_unknown', 409: '' }],
  [/Customer/, { 404: 'Customer GLOBEX not found in company DEMO', 409: 'Customer ACME already exists in company DEMO' }],
  [/Facilit/, { 404: 'Facility ORD1 not found in company DEMO', 409: 'Facility LAX1 already exists in company DEMO' }],
  [/Key/, { 404: 'API key 99 not found', 409: 'API key 6 is revoked; it cannot be rotated' }],
  [/RateCard/, { 404: 'Rate card version 9 of DEMO not found', 409: '' }],
];

function messageOf(status: string, operationId: string): string {
  if (status === '404' || status === '409') {
    const subject = BY_SUBJECT.find(([pattern]) => pattern.test(operationId))?.[1][status];
    if (subject) return subject;
  }
  return MESSAGES[status] ?? MESSAGES[400]!;
}

/** The rate engine's envelope of a refusal: its severity and source by status (docs/operations.md). */
const RATE_REFUSALS: Record<string, [number, string]> = {
  400: [2, 'RateEngine.Validation'],
  401: [4, 'RateEngine.Auth'],
  403: [4, 'RateEngine.Auth'],
  408: [2, 'RateEngine.Validation'],
  413: [2, 'RateEngine.Validation'],
  415: [2, 'RateEngine.Validation'],
  429: [4, 'RateEngine.RateLimit'],
  500: [5, 'RateEngine.Internal'],
};
const RATE_MESSAGES: Record<string, string> = {
  400: 'Data.OriginZip must be a 5-digit ZIP code or a ZIP+4, as text (e.g. "02134" or "02134-1234")',
  403: 'UserID 2002 is not one this API key may quote for',
};

/**
 * The example of an operation's refusal with `status`, in the shape its schema names: the spec's
 * array of problems, the `{error}` object of an unknown document, or the rate engine's envelope.
 */
export type RefusalShape = 'problems' | 'object' | 'rate-envelope';

export function errorExampleOf(status: string, operationId: string, shape: RefusalShape): unknown {
  if (shape === 'rate-envelope') {
    const [severity, source] = RATE_REFUSALS[status] ?? RATE_REFUSALS[500]!;
    const message = RATE_MESSAGES[status] ?? messageOf(status, operationId);
    return { Result: [], Page: null, ErrorMsg: message, ErrorSeverity: severity, ErrorSource: source, Status: false };
  }
  const message = messageOf(status, operationId);
  return shape === 'object' ? { error: message } : [problem(message)];
}
