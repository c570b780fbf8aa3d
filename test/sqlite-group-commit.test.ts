import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, sql, type Generated } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import { inTransaction } from '../src/db/transaction.js';
import { WharfSqliteDialect, type RowsWriter } from '../src/db/sqlite-driver.js';
import { writeRowsLater } from '../src/db/trailing-writes.js';

/**
 * Transactions on a SQLite file share commits (src/db/sqlite-driver.ts). What must hold: nothing is
 * answered before its commit, nothing uncommitted is seen outside its group, a failing member takes
 * only itself back, and a commit that fails fails every member it carried. Rows the members leave
 * for the commit go in with it, once for the group, and only those of the members that ended well.
 */

interface Tables {
  notes: { id: Generated<number>; text: string; parent: number | null };
  parents: { id: number };
}

let directory: string;
let path: string;
let db: Kysely<Tables>;
/** Every COMMIT the writer connection ran. */
let commits: number;
/** Every insert into notes the writer connection ran. */
let noteInserts: number;
/** A connection of its own, like another process: it sees committed data only. */
let outsider: SqliteDatabase.Database;

function openWriter(): SqliteDatabase.Database {
  const writer = new SqliteDatabase(path);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = FULL');
  writer.pragma('foreign_keys = ON');
  const prepare = writer.prepare.bind(writer);
  writer.prepare = ((source: string) => {
    const statement = prepare(source);
    const isCommit = source === 'commit';
    if (!isCommit && !source.startsWith('insert into "notes"')) return statement;
    const run = statement.run.bind(statement);
    statement.run = ((...parameters: unknown[]) => {
      if (isCommit) commits += 1;
      else noteInserts += 1;
      return run(...parameters);
    }) as typeof statement.run;
    return statement;
  }) as typeof writer.prepare;
  return writer;
}

const committedNotes = () => (outsider.prepare('select text from notes order by id').all() as { text: string }[]).map((n) => n.text);

/** The statement that writes the notes left for a commit. */
const noteRows: RowsWriter<string | null> = (trx, texts) => [
  trx
    .insertInto('notes')
    .values(texts.map((text) => ({ text })))
    .compile(),
];

/** `inTransaction` on this test's own tables. */
const inNotes = <T>(work: (trx: Kysely<Tables>) => Promise<T>) =>
  inTransaction(db as unknown as Db, (trx) => work(trx as unknown as Kysely<Tables>));

const addNote = (text: string, parent: number | null = null) =>
  inNotes(async (trx) => {
    await trx.insertInto('notes').values({ text, parent }).execute();
    return text;
  });

beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), 'wharf-group-commit-'));
  path = join(directory, 'wharf.db');
  commits = 0;
  noteInserts = 0;
  db = new Kysely<Tables>({
    dialect: new WharfSqliteDialect({ openWriter, openReader: () => new SqliteDatabase(path, { readonly: true }) }),
  });
  await sql`create table parents (id integer primary key)`.execute(db);
  await sql`create table notes (id integer primary key, text text not null,
    parent integer references parents (id) deferrable initially deferred)`.execute(db);
  outsider = new SqliteDatabase(path, { readonly: true });
  commits = 0;
});

afterEach(async () => {
  outsider.close();
  await db.destroy();
  rmSync(directory, { recursive: true, force: true });
});

describe('SQLite group commit', () => {
  it('commits transactions that run together once, and answers each only after that commit', async () => {
    const answered: string[] = [];
    const seenWhenAnswered: string[][] = [];
    const writes = Array.from({ length: 10 }, (_, i) =>
      addNote(`note ${i}`).then((text) => {
        answered.push(text);
        seenWhenAnswered.push(committedNotes());
      }),
    );
    await Promise.all(writes);

    expect(answered).toHaveLength(10);
    expect(commits).toBe(1);
    for (const seen of seenWhenAnswered) expect(seen).toHaveLength(10);
  });

  it('commits a group when it reaches 32 members, and the transactions after them in a group of their own', async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => addNote(`note ${i}`)));

    expect(commits).toBe(2);
    expect(committedNotes()).toHaveLength(40);
  });

  it('keeps a group open while each turn of the event loop brings it a member', async () => {
    const writes = [addNote('turn 0')];
    for (let turn = 1; turn <= 3; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      writes.push(addNote(`turn ${turn}`));
    }
    await Promise.all(writes);

    expect(commits).toBe(1);
    expect(committedNotes()).toEqual(['turn 0', 'turn 1', 'turn 2', 'turn 3']);
  });

  it('hides a group from reads outside transactions until it commits', async () => {
    const write = addNote('pending');
    // Queued behind the write: it runs after the write's work, before the group's commit.
    const readMeanwhile = db.selectFrom('notes').select('text').execute();
    expect(await readMeanwhile).toEqual([]);
    await write;
    expect(await db.selectFrom('notes').select('text').execute()).toEqual([{ text: 'pending' }]);
  });

  it('rolls a failing transaction back alone; the others of its group commit', async () => {
    const outcomes = await Promise.allSettled([
      addNote('first'),
      inNotes(async (trx) => {
        await trx.insertInto('notes').values({ text: 'refused', parent: null }).execute();
        throw new Error('refused by the service');
      }),
      addNote('last'),
    ]);

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(committedNotes()).toEqual(['first', 'last']);
    expect(commits).toBe(1);
  });

  it('answers a refusal that rests on another member’s write only once that write is committed', async () => {
    const first = addNote('unique');
    const refused = inNotes(async (trx) => {
      const existing = await trx.selectFrom('notes').select('text').where('text', '=', 'unique').executeTakeFirst();
      if (existing) throw new Error('already there');
    }).catch((error: unknown) => ({ error, committedWhenRefused: committedNotes() }));

    expect(await refused).toEqual({ error: new Error('already there'), committedWhenRefused: ['unique'] });
    await first;
    expect(commits).toBe(1);
  });

  it('fails every member of a group whose commit fails, and leaves nothing of it', async () => {
    // A deferred foreign key is checked at COMMIT: the group's, since the member only released its savepoint.
    const outcomes = await Promise.allSettled([addNote('innocent'), addNote('orphan', 42), addNote('bystander')]);

    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    }
    expect(committedNotes()).toEqual([]);

    await addNote('after');
    expect(committedNotes()).toEqual(['after']);
  });

  it('commits the open group before a write outside transactions, and before a transaction that commits itself', async () => {
    const grouped = addNote('grouped');
    const plainWrite = sql`insert into notes (text) values ('plain')`.execute(db);
    await plainWrite;
    expect(committedNotes()).toEqual(['grouped', 'plain']);
    await grouped;

    const again = addNote('grouped again');
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values({ text: 'own commit', parent: null }).execute();
    });
    expect(committedNotes()).toEqual(['grouped', 'plain', 'grouped again', 'own commit']);
    await again;
  });

  /** Notes left for the commit (writeRowsLater), each with the text given; null breaks the insert. */
  const leaveNotes = (texts: (string | null)[], fail = false) =>
    inNotes(async (trx) => {
      await writeRowsLater(trx, noteRows, texts);
      if (fail) throw new Error('refused after leaving its rows');
    });

  it('writes the rows its members left for the commit in one statement, none of a member that rolled back', async () => {
    const outcomes = await Promise.allSettled([leaveNotes(['a', 'b']), leaveNotes(['refused'], true), leaveNotes(['c']), addNote('d')]);

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    // The member that wrote its note at once comes first; the rows left for the commit follow, in order.
    expect(committedNotes()).toEqual(['d', 'a', 'b', 'c']);
    expect({ commits, noteInserts }).toEqual({ commits: 1, noteInserts: 2 });
  });

  it('fails every member of a group whose rows left for the commit cannot be written, and leaves nothing of it', async () => {
    const outcomes = await Promise.allSettled([addNote('innocent'), leaveNotes(['fine']), leaveNotes([null])]);

    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_NOTNULL' });
    }
    expect(committedNotes()).toEqual([]);
    await leaveNotes(['after']);
    expect(committedNotes()).toEqual(['after']);

    // A transaction that commits its group itself hears the same error.
    const own = db.transaction().execute((trx) => writeRowsLater(trx, noteRows, [null]));
    await expect(own).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_NOTNULL' });
    expect(committedNotes()).toEqual(['after']);
  });

  it('writes the rows of a transaction that commits alone at its commit, and fails it with their error', async () => {
    await db.destroy();
    // Without a second connection for reads the driver does not group: each transaction commits alone.
    db = new Kysely<Tables>({ dialect: new WharfSqliteDialect({ openWriter }) });
    await leaveNotes(['alone']);
    expect(committedNotes()).toEqual(['alone']);
    await expect(leaveNotes(['before the failure', null])).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_NOTNULL' });
    await expect(leaveNotes(['refused'], true)).rejects.toThrow('refused after leaving its rows');
    expect(committedNotes()).toEqual(['alone']);
    expect({ commits, noteInserts }).toEqual({ commits: 1, noteInserts: 2 });
  });

  it('commits what is open when the database is closed', async () => {
    const write = addNote('last words');
    await db.destroy();
    await write;
    expect(committedNotes()).toEqual(['last words']);
    db = new Kysely<Tables>({ dialect: new WharfSqliteDialect({ openWriter }) });
  });
});
