/**
 * Baseline B1: a bare Fastify 5 app whose POST route validates a ~2 KB JSON body with a route schema
 * and inserts one row into a better-sqlite3 file with Wharf's durability settings (WAL,
 * synchronous=FULL, BEGIN IMMEDIATE), then answers a small JSON body. It is the ceiling for a
 * durable write on this machine.
 *
 * Usage: node bench/baseline-b1.js <port> <database file>
 */
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { importBodySchema } from './payload.js';

const port = Number(process.argv[2]);
const file = process.argv[3];

const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 2000');
db.exec(`create table if not exists rows (
  id integer primary key,
  item_id text not null,
  body text not null,
  created_at integer not null
)`);
const insert = db.prepare('insert into rows (item_id, body, created_at) values (?, ?, ?)');
// better-sqlite3's .immediate() wraps the function in BEGIN IMMEDIATE ... COMMIT.
const insertRow = db.transaction((itemId, body) => insert.run(itemId, body, Date.now()));

const app = Fastify({
  logger: false,
  bodyLimit: 5 * 1024 * 1024,
  ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false } },
});

const Result = {
  type: 'object',
  properties: {
    Items: {
      type: 'array',
      items: { type: 'object', properties: { itemID: { type: 'string' }, Status: { type: 'string' } } },
    },
  },
};

app.post('/b1', { schema: { body: importBodySchema(), response: { 200: Result } } }, async (request) => {
  const item = request.body.Items[0];
  insertRow.immediate(item.itemID, JSON.stringify(item));
  return { Items: [{ itemID: item.itemID, Status: 'Created' }] };
});

await app.listen({ port, host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () =>
    app.close().then(() => {
      db.close();
      process.exit(0);
    }),
  );
}
