import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWharfClient, WharfError } from 'wharf-client';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { connectDatabase } from '../src/db/connect.js';
import { seedDemo } from '../src/demo.js';
import type { Role } from '../src/http/auth.js';
import { dateTimeFormats } from '../src/http/formats.js';
import { useTestApp } from './helpers/app.js';
import { describeEachDialect } from './helpers/dialects.js';

/**
 * The published document's examples are true (docs/admin.md): each example fits its schema, and every
 * operation's request example, sent as it stands by wharf-client to a real listening Wharf seeded by
 * `npm run demo`, succeeds with an answer that fits the documented schema of its status. One call of
 * every operation through the client, on both databases.
 */

type Json = Record<string, unknown>;
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  example?: unknown;
  schema?: Json;
}
interface Media {
  schema?: Json;
  example?: unknown;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}

/** The document as the app publishes it (openapi.test.ts checks the committed openapi.json is the same). */
const document = (await publishedDocument()) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json> };
};
async function publishedDocument(): Promise<unknown> {
  const db = connectDatabase('sqlite::memory:');
  const app = await buildApp({ config: loadConfig({ databaseUrl: 'sqlite::memory:' }, {}), db, logger: false });
  await app.ready();
  const published = app.swagger();
  await app.close();
  await db.destroy();
  return published;
}

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);

const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: its function is the default export's default.
(formats as unknown as { default: (ajv: Ajv2020) => void }).default(ajv);
// The spec's own date-time texts, checked as Wharf checks them.
for (const [name, check] of Object.entries(dateTimeFormats)) ajv.addFormat(name, check);
ajv.addSchema({ $id: 'wharf', components: document.components });
/** Whether `value` fits the document's `schema`, with Ajv's errors when it does not. */
function fits(schema: Json, value: unknown): string[] {
  const validate = ajv.compile({ $ref: `wharf#/components/schemas/${String(schema.$ref).split('/').pop()}` });
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
const json = (media?: Record<string, Media>) => media?.['application/json'];
/** The X12 bridge's text bodies (docs/x12.md): an interchange in, its 997 or TA1 out. */
const X12 = 'application/edi-x12';
const x12 = (media?: Record<string, Media>) => media?.[X12];
/** A text body's example: OpenAPI 3.1 keeps it on the media, or on its schema's examples. */
const textExample = (media: Media) => media.example ?? (media.schema?.examples as unknown[] | undefined)?.[0];

/**
 * The demo key an integrator would authorize with for the operation: the customer's (limited to
 * LAX1, and so are the demo's webhook endpoints, which it made) for the customer's operations,
 * webhooks included.
 */
function roleOf(path: string): Role | undefined {
  if (path === '/healthz' || path === '/readyz') return undefined;
  if (path.startsWith('/api/RateEngine')) return 'rater';
  if (path.startsWith('/admin/')) return 'admin';
  if (path.includes('/edi/3pl/')) return 'operator';
  return 'customer';
}

describe('the examples of the published document', () => {
  it.each(operations.map((o) => [o.operation.operationId, o] as const))('%s: each example fits its schema', (_id, { operation }) => {
    const request = json(operation.requestBody?.content);
    if (request) {
      expect(request.example, 'a request example').toBeDefined();
      expect(fits(request.schema!, request.example)).toEqual([]);
    }
    // An X12 text is a string that is an interchange.
    for (const media of [x12(operation.requestBody?.content), ...Object.values(operation.responses).map((r) => x12(r.content))]) {
      if (media) expect(textExample(media)).toMatch(/^ISA\*[\s\S]*IEA\*\d+\*\d{9}~$/);
    }
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'path') expect(parameter.example, `an example of ${parameter.name}`).toBeDefined();
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      const media = json(response.content);
      if (!media) continue;
      expect(media.example, `an example of the ${status} answer`).toBeDefined();
      expect(fits(media.schema!, media.example), `the ${status} example`).toEqual([]);
    }
  });
});

describeEachDialect('the request examples against the demo', (dialect) => {
  const ctx = useTestApp(dialect);
  const workDir = mkdtempSync(join(tmpdir(), 'wharf-examples-'));
  let keys: Record<Role, string>;
  let baseUrl: string;
  beforeAll(async () => {
    keys = await seedDemo(ctx().database.db, ctx().clock, join(workDir, 'demo-keys.json'));
    baseUrl = await ctx().app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it.each(operations.map((o) => [o.operation.operationId, o] as const))(
    '%s: the example succeeds and its answer fits the documented schema',
    async (_id, { path, method, operation }) => {
      const role = roleOf(path);
      const client = createWharfClient({ baseUrl, apiKey: role ? keys[role] : '', maxRetryWaitMs: 0 });
      const params = { path: {} as Json, query: {} as Json };
      for (const parameter of operation.parameters ?? []) {
        if (parameter.example === undefined || parameter.in === 'header') continue;
        params[parameter.in][parameter.name] = parameter.example;
      }
      const call = client[method as 'POST'] as unknown as (path: string, init: Json) => Promise<{ data?: unknown; response: Response }>;
      const textBody = x12(operation.requestBody?.content);
      // A text body goes as it is, and its answer is read as text (openapi-fetch's own options).
      const body = textBody
        ? { body: textExample(textBody), bodySerializer: (text: string) => text, headers: { 'content-type': X12 }, parseAs: 'text' }
        : operation.requestBody
          ? { body: json(operation.requestBody.content)!.example }
          : {};
      let answer: { data?: unknown; response: Response };
      try {
        answer = await call(path, { params, ...body });
      } catch (error) {
        if (error instanceof WharfError) throw new Error(`${error.status}: ${JSON.stringify(error.problems)}`);
        throw error;
      }
      const status = String(answer.response.status);
      expect(status).toMatch(/^2/);
      if (textBody) {
        expect(x12(operation.responses[status]?.content), `status ${status} is documented as X12`).toBeDefined();
        // Every set of the example accepted: the 997's AK9 says A.
        expect(answer.data).toMatch(/~\s*AK9\*A\*/);
        return;
      }
      const documented = json(operation.responses[status]?.content);
      expect(documented, `status ${status} is documented`).toBeDefined();
      expect(fits(documented!.schema!, answer.data)).toEqual([]);
    },
  );
});
