/**
 * Baseline B1 on SQLite: the B1 route (bench/baseline-b1-server.js: Fastify, the route schema of a
 * ~2 KB import body) inserting one row into a better-sqlite3 file with Wharf's durability settings
 * (WAL, synchronous=FULL, BEGIN IMMEDIATE). It is the ceiling for a durable SQLite write on this
 * machine.
 *
 * Usage: node bench/baseline-b1.js <port> <database file>
 */
import Database from 'better-sqlite3';
import { serveB1 } from './baseline-b1-server.js';

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

await serveB1({
  port,
  store: async (itemId, body) => {
    insertRow.immediate(itemId, body);
  },
  close: () => db.close(),
});
