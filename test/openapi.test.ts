import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
type OpenAPIDocument = Awaited<ReturnType<typeof SwaggerParser.validate>>;
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { connectDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/database.js';
import type { App } from '../src/http/module.js';

interface Operation {
  parameters?: { name: string }[];
  requestBody?: { content: Record<string, { schema?: { $ref?: string } }> };
  responses: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: Record<string, { schema?: { $ref?: string } }> }
  >;
}

/** The X12 bridge's media type (docs/x12.md). */
const X12 = 'application/edi-x12';

describe('OpenAPI document', () => {
  let db: Db;
  let app: App;
  beforeAll(async () => {
    db = connectDatabase('sqlite::memory:');
    app = await buildApp({ config: loadConfig({ databaseUrl: 'sqlite::memory:' }, {}), db, logger: false });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await db.destroy();
  });

  it('is committed as generated (run `npm run openapi` after changing a route schema)', () => {
    const committed = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
    expect(app.swagger()).toEqual(committed);
  });

  it('names every operation with a unique operationId, a verb in camelCase, and gives each a summary and a description', () => {
    const operations = Object.entries(app.swagger().paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId?: string; summary?: string; description?: string }>).map(
        ([method, operation]) => ({
          route: `${method.toUpperCase()} ${path}`,
          operationId: operation.operationId,
          summary: operation.summary,
          description: operation.description,
        }),
      ),
    );
    expect(operations.length).toBeGreaterThan(35);
    expect(operations.filter((operation) => !/^[a-z]+[A-Z][A-Za-z]*$/.test(operation.operationId ?? ''))).toEqual([]);
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
    expect(operations.filter((operation) => !operation.summary)).toEqual([]);
    expect(operations.filter((operation) => !operation.description?.trim())).toEqual([]);
    expect(
      operations.find((operation) => operation.route === 'POST /shared/bam/v1/public/edi/inbound/receipt/rc/search-by-paging')?.operationId,
    ).toBe('searchReceivingConfirmations');
  });

  it('publishes no keyword of Wharf’s own validation, a server to try it against, and an introduction', () => {
    const document = app.swagger();
    const text = JSON.stringify(document);
    expect(text).not.toContain('x-message');
    expect(text).not.toContain('x-decimal');
    expect((document as { servers?: unknown }).servers).toEqual([{ url: '/', description: 'The Wharf that serves this document' }]);
    for (const topic of ['**Keys.**', '**Errors.**', '**Paging.**', '**Idempotency.**', '**Rate limits.**', '**Webhooks.**'])
      expect(document.info.description).toContain(topic);
  });

  it('names every body as a component schema, with the shared error shapes, for generated clients', () => {
    const document = app.swagger() as unknown as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, unknown> };
    };
    const refs: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        // The X12 bridge's bodies are text (checked below); every other body is JSON.
        const isText = (content?: Record<string, { schema?: unknown }>) => content?.[X12] !== undefined && !content['application/json'];
        const bodies = [
          ...(operation.requestBody && !isText(operation.requestBody.content)
            ? [['request', operation.requestBody.content['application/json']!.schema]]
            : []),
          ...Object.entries(operation.responses)
            .filter(([, response]) => !isText(response.content))
            .map(([status, response]) => [status, response.content?.['application/json']?.schema]),
        ] as [string, { $ref?: string } | undefined][];
        for (const [what, schema] of bodies) {
          expect(schema?.$ref, `${method.toUpperCase()} ${path} ${what}`).toMatch(/^#\/components\/schemas\/[A-Z][A-Za-z]+$/);
          refs.push(schema!.$ref!.split('/').at(-1)!);
        }
      }
    }
    expect(refs.filter((name) => !(name in document.components.schemas))).toEqual([]);
    const receipt = document.paths['/shared/bam/v1/public/edi/inbound/receipt']!.post!;
    expect(receipt.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ImportReceiptRequest' });
    expect(receipt.responses['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ImportReceiptResponse' });
    expect(receipt.responses['400']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ProblemsOrErrorObject' });
    expect(receipt.responses['401']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Problems' });
    expect(receipt.responses['404']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ErrorObject' });
    const interchange = document.paths['/shared/bam/v1/public/edi/x12']!.post!;
    const text = { type: 'string' };
    expect(interchange.requestBody!.content[X12]!.schema).toMatchObject(text);
    expect(interchange.responses['200']!.content![X12]!.schema).toMatchObject(text);
    expect(Object.keys(interchange.responses['400']!.content!)).toEqual([X12, 'application/json']);
    expect(document.components.schemas.Problems).toEqual({
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'error'],
        properties: { code: { type: 'string', description: '`EDI-ERROR-<message>`' }, error: { type: 'string' } },
      },
    });
  });

  it('documents every status with the headers it carries: request id, rate limits, paging, Retry-After, and 422', () => {
    const paths = app.swagger().paths as Record<string, Record<string, Operation>>;
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const route = `${method.toUpperCase()} ${path} ${status}`;
          expect(response.description, route).not.toBe('Default Response');
          expect(Object.keys(response.headers ?? {}), route).toContain('X-Request-Id');
          if ('429' in operation.responses)
            expect(Object.keys(response.headers!), route).toEqual(
              expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
            );
          if (status === '429') expect(Object.keys(response.headers!), route).toContain('Retry-After');
        }
        const takesKey = operation.parameters?.some((parameter) => parameter.name === 'idempotency-key') ?? false;
        expect('422' in operation.responses, `${method.toUpperCase()} ${path}`).toBe(takesKey);
      }
    }
    const acks = paths['/shared/bam/v1/public/edi/inbound/receipt/ack/search-by-paging']!.post!.responses['200']!;
    expect(Object.keys(acks.headers!)).toEqual(expect.arrayContaining(['X-Total-Count', 'X-Page-No', 'X-Page-Size']));
    expect(Object.keys(paths['/shared/bam/v1/public/edi/inbound/receipt']!.post!.responses)).toContain('422');
  });

  it('sends the root to the documentation, titled Wharf API', async () => {
    const root = await app.inject({ method: 'GET', url: '/' });
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/docs');
    const docs = await app.inject({ method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('<title>Wharf API</title>');
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const document = structuredClone(app.swagger()) as unknown as OpenAPIDocument;
    await expect(SwaggerParser.validate(document)).resolves.toMatchObject({ openapi: '3.1.0' });
  });
});
