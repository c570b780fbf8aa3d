/**
 * The HTTP half of baseline B1, shared by its SQLite and PostgreSQL variants: a bare Fastify 5 app
 * whose POST /b1 route validates a ~2 KB import body with a route schema (Wharf's Ajv options),
 * hands the first item to `store` (one durable insert) and answers a small JSON body.
 */
import Fastify from 'fastify';
import { importBodySchema } from './payload.js';

const Result = {
  type: 'object',
  properties: {
    Items: {
      type: 'array',
      items: { type: 'object', properties: { itemID: { type: 'string' }, Status: { type: 'string' } } },
    },
  },
};

/**
 * Listens on `port`; `store(itemId, json)` inserts one row and resolves once it is durable.
 * SIGTERM or SIGINT closes the app, then `close()` (the store), then exits.
 */
export async function serveB1({ port, store, close }) {
  const app = Fastify({
    logger: false,
    bodyLimit: 5 * 1024 * 1024,
    ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false } },
  });

  app.post('/b1', { schema: { body: importBodySchema(), response: { 200: Result } } }, async (request) => {
    const item = request.body.Items[0];
    await store(item.itemID, JSON.stringify(item));
    return { Items: [{ itemID: item.itemID, Status: 'Created' }] };
  });

  await app.listen({ port, host: '127.0.0.1' });
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () =>
      app
        .close()
        .then(close)
        .then(() => process.exit(0)),
    );
  }
}
