import { Type } from '@sinclair/typebox';
import stableStringify from 'safe-stable-stringify';
import { errorExampleOf, type RefusalShape } from './error-examples.js';
import { ErrorObjectSchema, ProblemsSchema } from './schemas.js';

/**
 * Gives the published OpenAPI document what generated clients need (docs/admin.md): every request
 * and response body as a named schema under `components.schemas` (so `openapi-typescript` makes
 * named types, not `never`), and on every answer the headers Wharf sends with it. Route schemas
 * stay inline where Fastify validates them; only the document is reshaped.
 */

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, { schema?: Json }> };
  responses?: Record<string, Response>;
}
interface Response {
  description?: string;
  headers?: Record<string, Json>;
  content?: Record<string, { schema?: Json; example?: unknown }>;
}

const pascal = (operationId: string) => operationId[0]!.toUpperCase() + operationId.slice(1);

/**
 * A schema without its own description, its keys in a stable order: two answers that differ only in
 * why they are given share one shape.
 */
const shapeOf = ({ description: _description, ...rest }: Json) => stableStringify(rest)!;
const plain = (schema: object) => JSON.parse(JSON.stringify(schema)) as Json;

/** The error shapes every operation of the spec's API shares, by the names clients see. */
const SHARED_SHAPES = new Map<string, string>([
  [shapeOf(plain(ProblemsSchema)), 'Problems'],
  [shapeOf(plain(ErrorObjectSchema)), 'ErrorObject'],
  // A 400: the array, or Not found facility's object.
  [shapeOf(plain(Type.Union([ProblemsSchema, ErrorObjectSchema]))), 'ProblemsOrErrorObject'],
]);

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });
const integer = { type: 'integer' };

const REQUEST_ID = header('The request id: in every answer, and the only thing a 500 names.');
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': header("The key's limit of requests a minute on this API.", integer),
  'RateLimit-Remaining': header('Requests left in the current minute.', integer),
  'RateLimit-Reset': header('Seconds until the current minute ends.', integer),
};
const RETRY_AFTER = header('Seconds to wait before trying again.', integer);
const PAGING_HEADERS = {
  'X-Total-Count': header('How many records match, on every page.', integer),
  'X-Page-No': header('The page answered, from 1.', integer),
  'X-Page-Size': header('The page size used.', integer),
  'X-Page-Next': header(
    'The cursor of the next page: send it as Paging.After to read that page at the cost of a first page (a Wharf extension); absent on the last page.',
  ),
};

const UNPROCESSABLE: Response = {
  description: 'The Idempotency-Key was used before with another body; nothing was done.',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Problems' } } },
};

/**
 * Names the bodies of every operation (`<OperationId>Request`, `<OperationId>Response`, the shared
 * `Problems` and `ErrorObject`, `<OperationId>Error` for the rest), documents 422 where an
 * Idempotency-Key is taken, and the headers of each answer.
 */
export function withNamedComponents<T extends Json>(document: T): T {
  const schemas: Record<string, Json> = { ...((document.components as Json | undefined)?.schemas as Record<string, Json>) };
  const byShape = new Map(SHARED_SHAPES);
  const named = (schema: Json, name: string): Json => {
    const shape = shapeOf(schema);
    let found = byShape.get(shape);
    if (!found) {
      found = name;
      byShape.set(shape, found);
    }
    if (!schemas[found]) {
      const { description: _description, ...rest } = schema;
      schemas[found] = SHARED_SHAPES.has(shape) ? rest : schema;
    }
    return { $ref: `#/components/schemas/${found}` };
  };

  const paths: Record<string, Record<string, Operation>> = {};
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    paths[path] = {};
    for (const [method, source] of Object.entries(item)) {
      const operation: Operation = structuredClone(source);
      paths[path][method] = operation;
      const id = operation.operationId;
      if (!id) continue;
      const requestSchema = operation.requestBody?.content?.['application/json']?.schema;
      if (requestSchema) operation.requestBody!.content!['application/json']!.schema = named(requestSchema, `${pascal(id)}Request`);
      const limited = Object.keys(operation.responses ?? {}).includes('429');
      const takesIdempotencyKey = operation.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      if (takesIdempotencyKey && operation.responses && !operation.responses['422'])
        operation.responses['422'] = structuredClone(UNPROCESSABLE);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const success = status.startsWith('2');
        const content = response.content?.['application/json'];
        if (content?.schema && !('$ref' in content.schema)) {
          content.schema = named(content.schema, success ? `${pascal(id)}Response` : `${pascal(id)}Error`);
        }
        const refusal = success ? undefined : refusalShapeOf(refName(content?.schema), schemas);
        if (refusal) content!.example = errorExampleOf(status, id, refusal);
        if (success && response.description === 'Default Response') response.description = status === '201' ? 'Created.' : 'Success.';
        // The searches that answer an array send their paging in headers (docs/compatibility.md).
        const pages = success && schemas[refName(content?.schema)]?.type === 'array';
        response.headers = {
          'X-Request-Id': REQUEST_ID,
          ...(limited ? RATE_LIMIT_HEADERS : {}),
          ...(status === '429' ? { 'Retry-After': RETRY_AFTER } : {}),
          ...(pages ? PAGING_HEADERS : {}),
          ...response.headers,
        };
      }
    }
  }
  return { ...document, paths, components: { ...(document.components as Json), schemas } };
}

/** Which of Wharf's refusal shapes the named schema is, if it is one. */
function refusalShapeOf(name: string, schemas: Record<string, Json>): RefusalShape | undefined {
  if (name === 'Problems' || name === 'ProblemsOrErrorObject') return 'problems';
  if (name === 'ErrorObject') return 'object';
  return (schemas[name]?.properties as Json | undefined)?.ErrorMsg ? 'rate-envelope' : undefined;
}

function refName(schema: Json | undefined): string {
  const ref = schema?.$ref;
  return typeof ref === 'string' ? ref.slice(ref.lastIndexOf('/') + 1) : '';
}
