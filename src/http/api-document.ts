/**
 * What the published OpenAPI document says about the API as a whole (docs/admin.md): its introduction
 * for an integrator, where it is served, and the shape it is published in, without the keywords
 * that only Wharf's own validation reads.
 */

export const API_TITLE = 'Wharf — Warehouse Integration API';

export const API_DESCRIPTION = `Inbound receipts (RN/ASN), outbound orders (DN), their acknowledgements and confirmations, inventory, the item master, events and webhooks, and last-mile rates.

**Keys.** Every operation but \`/healthz\`, \`/readyz\`, \`/metrics\` and this document needs an API key in the \`Authorization\` header: \`Authorization: APIKey <key>\`. In **Authorize** above, paste the whole value: the word \`APIKey\`, a space, then the key (for example \`APIKey wk_…\`). A key has a role: \`customer\` (the EDI operations of its customers), \`operator\` (the warehouse's 3PL operations in its facilities), \`admin\` (everything in its company) or \`rater\` (the rate engine, for its UserIDs). \`npm run demo\` prints one of each.

**Errors.** The EDI operations answer a refusal as an array of \`{"code": "EDI-ERROR-<message>", "error": "<message>"}\`, one entry per problem, all problems at once; an unknown document (404) and an unknown facility (400 \`Not found facility\`) as one \`{"error": "…"}\`. 400 is a body that breaks the spec's rules, 401 a missing or unknown key, 403 an identifier outside the key's scope or a role the operation does not admit, 404 an unknown document, 405 a method the path does not take (\`Allow\` lists those it does), 409 a move the document's state forbids or a confirmation number reused with another body, 413 a body over the limit, 415 a body that is not JSON, 422 an \`Idempotency-Key\` reused with another body, 429 too many requests. The rate engine always answers its own envelope (\`Status\`, \`ErrorSeverity\`, \`ErrorSource\`, \`ErrorMsg\`). Every answer carries \`X-Request-Id\`; a 500 names it and nothing else.

**Paging.** Searches take \`Paging: {PageNo, PageSize}\` (PageNo from 1, PageSize 1–1000, 100 by default) and answer a \`paging\` object (\`totalCount\`, \`pageNo\`, \`totalPage\`, \`startIndex\`, \`endIndex\`, \`limit\`); searches that answer an array send \`X-Total-Count\`, \`X-Page-No\` and \`X-Page-Size\` instead. The document searches (headers, 3PL lists, ACK, RC and DC), the ledger search and the item master search also hand out a cursor, \`paging.next\` (or the \`X-Page-Next\` header): sent back as \`Paging.After\`, it answers the next page at the cost of a first page however deep, where a large \`PageNo\` costs a skip over every row before it (a Wharf extension).

**Idempotency.** Every POST and PUT that changes something takes an optional \`Idempotency-Key\` header (at most 255 characters, per API key): the same key with the same body answers what the first request answered and changes nothing; with another body it is 422. Answers are kept 48 hours unless the operator chose otherwise (never less than 24). Confirmation and adjustment numbers are idempotent the same way.

**Rate limits.** Each key may make a number of requests a minute (600 on the EDI operations and 6,000 on the rate engine by default; a key may have its own). Every limited answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; past the limit the answer is 429 with \`Retry-After\` in seconds.

**Examples.** Every request example works as it stands against a fresh \`npm run demo\` (company DEMO, customer ACME, facility LAX1), with the demo key of the operation's role: the demo made a receipt, an order, a webhook endpoint or a key in the right state for each example that changes one (RN-2 to cancel, RN-3 to open, DN-5 to ship, KeyID 6 to revoke, …), so that **Try it out** succeeds in any order, once.

**Webhooks.** Changes are told as events: POSTed to the endpoints a customer registers (signed by the Standard Webhooks rules, retried for days, replayable) and readable in order by \`Sequence\` from the events search, the pull fallback. The operations under \`/edi/webhook\` manage endpoints and their deliveries.`;

/** Served relative to this document, so that "Try it out" calls the server that serves it, wherever it runs. */
export const API_SERVERS = [{ url: '/', description: 'The Wharf that serves this document' }];

/** Keywords of Wharf's schemas that its validation reads (messages, decimal rules), not a client. */
const INTERNAL_KEYWORDS = new Set(['x-message', 'x-decimal']);

/** The document without Wharf's internal schema keywords, at any depth. */
export function withoutInternalKeywords<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutInternalKeywords) as T;
  if (value === null || typeof value !== 'object') return value;
  const kept: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (!INTERNAL_KEYWORDS.has(key)) kept[key] = withoutInternalKeywords(inner);
  return kept as T;
}
