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

  it('is a valid OpenAPI 3.1 document', async () => {
    const document = structuredClone(app.swagger()) as unknown as OpenAPIDocument;
    await expect(SwaggerParser.validate(document)).resolves.toMatchObject({ openapi: '3.1.0' });
  });
});
