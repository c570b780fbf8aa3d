/**
 * Baseline B1 on PostgreSQL: the B1 route (bench/baseline-b1-server.js: Fastify, the route schema
 * of a ~2 KB import body) inserting one row in a BEGIN … COMMIT transaction through a `pg` pool of
 * Wharf's size (10), with PostgreSQL's default durability (the server's fsync and
 * synchronous_commit; bench/postgres.js reports them). It is the ceiling for a durable PostgreSQL
 * write on this machine.
 *
 * Usage: node bench/baseline-b1-postgres.js <port> <postgres:// URL of an empty database>
 */
import pg from 'pg';
import { serveB1 } from './baseline-b1-server.js';

const port = Number(process.argv[2]);
const url = process.argv[3];

const pool = new pg.Pool({ connectionString: url, max: 10 });
await pool.query(`create table if not exists rows (
  id bigserial primary key,
  item_id text not null,
  body text not null,
  created_at bigint not null
)`);

async function insertRow(itemId, body) {
  const client = await pool.connect();
  let failure;
  try {
    await client.query('begin');
    await client.query('insert into rows (item_id, body, created_at) values ($1, $2, $3)', [itemId, body, Date.now()]);
    await client.query('commit');
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    // A client whose transaction failed is discarded rather than returned to the pool mid-transaction.
    client.release(failure);
  }
}

await serveB1({ port, store: insertRow, close: () => pool.end() });
