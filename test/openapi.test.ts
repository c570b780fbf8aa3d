import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
type OpenAPIDocument = Awaited<ReturnType<typeof SwaggerParser.validate>>;
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { connectDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/database.js';
import type { App } from '../src/http/module.js';

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

  it('names every operation with a unique operationId, a verb in camelCase, and gives each a summary', () => {
    const operations = Object.entries(app.swagger().paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId?: string; summary?: string }>).map(([method, operation]) => ({
        route: `${method.toUpperCase()} ${path}`,
        operationId: operation.operationId,
        summary: operation.summary,
      })),
    );
    expect(operations.length).toBeGreaterThan(35);
    expect(operations.filter((operation) => !/^[a-z]+[A-Z][A-Za-z]*$/.test(operation.operationId ?? ''))).toEqual([]);
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
    expect(operations.filter((operation) => !operation.summary)).toEqual([]);
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
