import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EDI_PREFIX } from '../src/app.js';
import { connectDatabase } from '../src/db/connect.js';
import type { Db } from '../src/db/database.js';
import type { DialectName } from '../src/db/dialect.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from './helpers/dialects.js';
import { uniqueId } from './helpers/factories.js';
import { SHIP_TO } from './helpers/orders.js';
import {
  ADJUST_QTY,
  INVENTORY_SEARCH,
  LEDGER_SEARCH,
  ORDER_ACK_SEARCH,
  ORDER_IMPORT,
  RECEIPT_ACK_SEARCH,
  RECEIPT_CONFIRM,
  RECEIPT_IMPORT,
  RECEIPT_RC_SEARCH,
  THREEPL_ORDER,
  THREEPL_RECEIPT,
} from './helpers/paths.js';
import { freePorts, runWharf, startWharf, stopWharf, waitReady, type Wharf } from './helpers/processes.js';

/**
 * docs/operations.md, "proven in the suite" (3): the real `wharf serve` under a steady concurrent write load
 * — RN imports, receiving confirmations of receipts answered earlier, quantity adjustments, DN
 * imports, each with its own document number and Idempotency-Key — is killed with SIGKILL after a
 * number of answers, in the middle of the load, and started again on the same database: SQLite
 * in a file with synchronous=FULL (the default), and PostgreSQL. Then:
 * - every write whose 200 answer arrived is there, whole: the receipt or order by its SVCPOID with
 *   all its lines, the confirmation's stock, RC and received quantities, the adjustment's postings;
 * - every write that got no answer is there whole or not at all, part by part;
 * - the ACKs match the documents: one Success/Warning ACK per import that is there, none for one
 *   that is not, no failure ACKs;
 * - every balance equals the sum of its ledger, and its allocation the sum of the orders' allocations;
 * - the writes that got no answer, sent again with their Idempotency-Key, are replayed when they had
 *   committed and applied when they had not; the answered ones, sent again, replay their answers:
 *   afterwards every write is there exactly once.
 * State is read through the API wherever it can answer; the database is read directly only for
 * what no operation shows (see `readDatabase`).
 *
 * What a process crash proves, and what it does not: the operating system survives it, so SQLite's
 * commits written but not yet synced survive too: this test would pass with synchronous=NORMAL as
 * well, and only a power loss or an operating-system crash tells the two apart. It proves the
 * application's side: one transaction per request, committed before the answer, nothing kept in
 * memory that the answer depends on, and a restart that recovers the database as it was left.
 */

/** A bound that only ends a hang: process-level tests must pass on a machine busy with other work. */
const PROCESS_TEST_MS = 240_000;
/** Requests in flight at once, all the time until the kill. */
const CONCURRENCY = 16;
/** The kill comes with the answer of this number: a few seconds of load, in its middle. */
const KILL_AFTER_ANSWERS = 250;
const PAGE = { PageSize: 1000 };
/** The PostgreSQL application_name of the killed process's sessions. */
const CRASHED_SESSIONS = 'wharf-crash-restart-killed';

type Kind = 'receipt' | 'confirmation' | 'adjustment' | 'order';

/** One line of a write: what it names, as the API echoes it back. */
interface Line {
  item: string;
  uom: 'EA' | 'CS';
  qty: string;
  lot?: string;
}

interface Answer {
  status: number;
  body: string;
  replayed: boolean;
}

/** A write the load sent: the request, kept to send it again, and its answer if one arrived whole. */
interface Write {
  kind: Kind;
  path: string;
  apiKey: string;
  idempotencyKey: string;
  body: Record<string, unknown>;
  /** PONo, ConfirmationNo, AdjustmentNo or ReferenceNo. */
  number: string;
  lines: Line[];
  /** A confirmation's receipt: an RN import that was answered before the confirmation was sent. */
  receipt?: Write;
  answer?: Answer;
  /** Why no answer arrived (a connection error after the kill). */
  failure?: string;
}

const parsed = (write: Write) => JSON.parse(write.answer!.body);
const svcpoidOf = (write: Write): string => parsed(write)[write.kind === 'order' ? 'Order' : 'Receipt'].SVCPOID;

interface ReceiptDocument {
  SVCPOID: string;
  PONo: string;
  Status: string;
  Items: { ItemNumber: string; UOM: string; ExpectedQty: string; ReceivedQty: string }[];
}
interface OrderDocument {
  SVCPOID: string;
  ReferenceNo: string;
  Status: string;
  Items: { ItemID: string; UOM: string; OrderedQty: string }[];
}
interface Posting {
  ItemNumber: string;
  LotNo: string | null;
  UOM: string;
  Qty: string;
  SourceType: string;
  SourceID: string;
  SourceLine: string | null;
}
interface AckRecord {
  PONo: string | null;
  ReferenceNo: string | number | null;
  ACK: { SVCPOID?: string; Status?: string; code?: string };
}
interface RcRecord {
  RC: { SVCPOID: string; Items: { ItemNumber: string; UOM: string; LotNo: string | null; ReceivedQuantity: number }[] };
}

/** What the service holds after the crash, read through the API (and the database where only it knows). */
interface State {
  receipts: ReceiptDocument[];
  orders: OrderDocument[];
  postings: Posting[];
  receiptAcks: AckRecord[];
  orderAcks: AckRecord[];
  rcs: RcRecord[];
  database: DatabaseFacts;
}

/** What only the database shows. */
interface DatabaseFacts {
  /** inventory_adjustments: the stored answer of each applied AdjustmentNo. */
  adjustments: Map<string, string>;
  /** SVCPOIDs that have lines, per document table (a line without its header would show here). */
  receiptLineOwners: Set<string>;
  orderLineOwners: Set<string>;
  balances: { key: string; onHand: number; allocated: number }[];
  /** Per balance key: the ledger's quantities and on-hand-after values, in posting order. */
  ledger: Map<string, { quantity: number; onHandAfter: number }[]>;
  /** Per balance key: what the orders hold allocated of it. */
  allocations: Map<string, number>;
}

describeEachDialect('kill -9 under write load, then restart', (dialect: DialectName) => {
  const workDir = mkdtempSync(join(tmpdir(), 'wharf-crash-restart-'));
  // synchronous is left to its default (FULL) on SQLite: the durability the design promises.
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  delete env.SQLITE_SYNCHRONOUS;
  let database: TestDatabase | undefined;
  let databaseUrl: string;
  /** The test's own connection, for what only the database shows. */
  let db: Db;
  const wharfs: Wharf[] = [];
  let companyId: string;
  let customerId: string;
  let facilityId: string;
  let customerKey: string;
  let operatorKey: string;

  const cli = (...args: string[]): Promise<string> => runWharf([...args, '--db', databaseUrl], env);

  beforeAll(async () => {
    if (dialect === 'postgres') {
      database = await createTestDatabase('postgres');
      databaseUrl = database.url;
    } else {
      databaseUrl = `sqlite:${join(workDir, 'wharf.db')}`;
    }
    companyId = uniqueId('CO');
    customerId = uniqueId('CU');
    facilityId = uniqueId('FA');
    // The CLI creates (and migrates) the database; the load keys carry no rate limit.
    await cli('company', 'add', companyId);
    await Promise.all([cli('customer', 'add', companyId, customerId), cli('facility', 'add', companyId, facilityId)]);
    [customerKey, operatorKey] = await Promise.all([
      cli('key', 'create', '--role', 'customer', '--company', companyId, '--customer', customerId, '--rate-limit', '0'),
      cli('key', 'create', '--role', 'operator', '--company', companyId, '--rate-limit', '0'),
    ]);
    db = database?.db ?? connectDatabase(databaseUrl);
  }, PROCESS_TEST_MS);

  afterAll(async () => {
    try {
      for (const wharf of wharfs) if (!wharf.exited) wharf.child.kill('SIGKILL');
      await Promise.all(wharfs.map((wharf) => wharf.exit));
      if (database) await database.destroy();
      else await db?.destroy();
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  }, PROCESS_TEST_MS);

  /** The database URL with a PostgreSQL application_name for the sessions it opens; a SQLite URL as it is. */
  const withSessionName = (url: string, name: string): string => {
    if (dialect !== 'postgres') return url;
    const named = new URL(url);
    named.searchParams.set('application_name', name);
    return named.toString();
  };

  /** PostgreSQL sessions of that name: what no operation of the API shows, the server's own sessions. */
  const sessionsNamed = async (name: string): Promise<number> => {
    const { rows } = await sql<{ sessions: number }>`
      select count(*)::int as sessions from pg_stat_activity where application_name = ${name}`.execute(db);
    return rows[0]!.sessions;
  };

  /** Resolves once PostgreSQL has no session of that name left (at once on SQLite). */
  const sessionsEnded = async (name: string): Promise<void> => {
    if (dialect !== 'postgres') return;
    while ((await sessionsNamed(name)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  };

  /** Sends a request; a write carries its Idempotency-Key, a read none. */
  const send = async (wharf: Wharf, request: Pick<Write, 'path' | 'apiKey' | 'body'> & { idempotencyKey?: string }): Promise<Answer> => {
    const response = await fetch(`${wharf.base}${EDI_PREFIX}${request.path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `APIKey ${request.apiKey}`,
        ...(request.idempotencyKey === undefined ? {} : { 'idempotency-key': request.idempotencyKey }),
      },
      body: JSON.stringify(request.body),
    });
    // An answer counts once its body has arrived whole.
    const body = await response.text();
    return { status: response.status, body, replayed: response.headers.get('idempotent-replayed') === 'true' };
  };

  /** A read that must answer 200; its parsed body. */
  const read = async (wharf: Wharf, path: string, apiKey: string, body: Record<string, unknown>) => {
    const answer = await send(wharf, { path, apiKey, body });
    expect(answer.status, `${path}: ${answer.body}`).toBe(200);
    return JSON.parse(answer.body);
  };

  /** Every row of a `{results, paging}` search, page by page. */
  const allRows = async <T>(wharf: Wharf, path: string, apiKey: string, body: Record<string, unknown>): Promise<T[]> => {
    const rows: T[] = [];
    for (let pageNo = 1; ; pageNo++) {
      const page = await read(wharf, path, apiKey, { ...body, Paging: { ...PAGE, PageNo: pageNo } });
      rows.push(...page.results.data);
      if (pageNo >= page.paging.totalPage) return rows;
    }
  };

  /** Every record of an array search (ACK, RC), page by page; an ACK search that matches nothing is 404. */
  const allRecords = async <T>(wharf: Wharf, path: string, body: Record<string, unknown>): Promise<T[]> => {
    const records: T[] = [];
    for (let pageNo = 1; ; pageNo++) {
      const answer = await send(wharf, {
        path,
        apiKey: customerKey,
        body: { ...body, Paging: { ...PAGE, PageNo: pageNo } },
      });
      if (answer.status === 404 && pageNo === 1) return records;
      expect(answer.status, `${path}: ${answer.body}`).toBe(200);
      const page = JSON.parse(answer.body) as T[];
      records.push(...page);
      if (page.length < PAGE.PageSize) return records;
    }
  };

  /** Runs `work` over `items`, a few at a time. */
  const eachLimited = async <T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> => {
    const results: R[] = new Array(items.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < items.length) {
          const index = next++;
          results[index] = await work(items[index]!);
        }
      }),
    );
    return results;
  };

  const balanceKey = (row: {
    item_id: string;
    uom: string;
    lot_no: string;
    goods_type: string;
    title_id: string;
    inventory_status: string;
    expiration_date: string;
  }) => [row.item_id, row.uom, row.lot_no, row.goods_type, row.title_id, row.inventory_status, row.expiration_date].join('|');

  /**
   * Direct SQL, for what no operation shows: the stored adjustment rows (an AdjustmentNo claimed
   * without its postings would be invisible to the ledger search), lines whose header is missing
   * (the 3PL get reads lines through their header), balances with nothing on hand (the inventory
   * search leaves them out) and what orders hold allocated per balance.
   */
  const readDatabase = async (): Promise<DatabaseFacts> => {
    const [adjustments, receiptLines, orderLines, balances, ledger, allocations] = await Promise.all([
      db.selectFrom('inventory_adjustments').select(['adjustment_no', 'answer']).where('company_id', '=', companyId).execute(),
      db.selectFrom('receipt_lines').select('svcpoid').distinct().where('company_id', '=', companyId).execute(),
      db.selectFrom('order_lines').select('svcpoid').distinct().where('company_id', '=', companyId).execute(),
      db.selectFrom('inventory_balances').selectAll().where('company_id', '=', companyId).execute(),
      db.selectFrom('inventory_ledger').selectAll().where('company_id', '=', companyId).orderBy('id').execute(),
      db.selectFrom('order_allocations').selectAll().where('company_id', '=', companyId).execute(),
    ]);
    const ledgerByKey = new Map<string, { quantity: number; onHandAfter: number }[]>();
    for (const row of ledger) {
      const key = balanceKey(row);
      ledgerByKey.set(key, [...(ledgerByKey.get(key) ?? []), { quantity: Number(row.quantity), onHandAfter: Number(row.on_hand_after) }]);
    }
    const allocated = new Map<string, number>();
    for (const row of allocations) allocated.set(balanceKey(row), (allocated.get(balanceKey(row)) ?? 0) + Number(row.quantity));
    return {
      adjustments: new Map(adjustments.map((row) => [row.adjustment_no, row.answer])),
      receiptLineOwners: new Set(receiptLines.map((row) => row.svcpoid)),
      orderLineOwners: new Set(orderLines.map((row) => row.svcpoid)),
      balances: balances.map((row) => ({ key: balanceKey(row), onHand: Number(row.on_hand), allocated: Number(row.allocated) })),
      ledger: ledgerByKey,
      allocations: allocated,
    };
  };

  const readState = async (wharf: Wharf): Promise<State> => {
    const ids = { CompanyID: companyId, CustomerID: customerId, FacilityID: facilityId };
    const facility = { CompanyID: companyId, FacilityID: facilityId };
    const receiptHeaders = await allRows<{ SVCPOID: string }>(wharf, `${THREEPL_RECEIPT}/list`, operatorKey, ids);
    const orderHeaders = await allRows<{ SVCPOID: string }>(wharf, `${THREEPL_ORDER}/list`, operatorKey, ids);
    // Each document as the 3PL get shows it: the header with every line.
    const receipts = await eachLimited(
      receiptHeaders,
      async (header) => (await read(wharf, `${THREEPL_RECEIPT}/get`, operatorKey, { ...facility, SVCPOID: header.SVCPOID })).Receipt,
    );
    const orders = await eachLimited(
      orderHeaders,
      async (header) => (await read(wharf, `${THREEPL_ORDER}/get`, operatorKey, { ...facility, SVCPOID: header.SVCPOID })).Order,
    );
    return {
      receipts,
      orders,
      postings: await allRows(wharf, LEDGER_SEARCH, operatorKey, ids),
      receiptAcks: await allRecords(wharf, RECEIPT_ACK_SEARCH, ids),
      orderAcks: await allRecords(wharf, ORDER_ACK_SEARCH, ids),
      rcs: await allRecords(wharf, RECEIPT_RC_SEARCH, ids),
      database: await readDatabase(),
    };
  };

  const lineText = (line: Line) => [line.item, line.uom, line.qty];
  const ackOf = (record: AckRecord) => ({ SVCPOID: record.ACK.SVCPOID, Status: record.ACK.Status });
  const successOrWarning = expect.stringMatching(/^(Success|Warning)$/);

  /**
   * A write as the state shows it, and what it must look like: whole (every part of it) when any
   * part is there, nothing otherwise. Answers whether it is there.
   */
  const checkWrite = (write: Write, state: State): boolean => {
    const answered = write.answer?.status === 200;
    const where = `${write.kind} ${write.number}${answered ? '' : ' (no answer)'}`;
    let present: boolean;
    let observed: unknown;
    let whole: unknown;
    let absent: unknown;

    if (write.kind === 'receipt' || write.kind === 'order') {
      const documents =
        write.kind === 'receipt'
          ? state.receipts
              .filter((r) => r.PONo === write.number)
              .map((r) => ({ SVCPOID: r.SVCPOID, lines: r.Items.map((l) => [l.ItemNumber, l.UOM, l.ExpectedQty]) }))
          : state.orders
              .filter((o) => o.ReferenceNo === write.number)
              .map((o) => ({ SVCPOID: o.SVCPOID, lines: o.Items.map((l) => [l.ItemID, l.UOM, l.OrderedQty]) }));
      const acks = (write.kind === 'receipt' ? state.receiptAcks : state.orderAcks)
        .filter((record) => (write.kind === 'receipt' ? record.PONo : record.ReferenceNo) === write.number)
        .map(ackOf);
      const svcpoid = answered ? svcpoidOf(write) : documents[0]?.SVCPOID;
      const status = answered ? parsed(write)[write.kind === 'receipt' ? 'Receipt' : 'Order'].Status : successOrWarning;
      present = documents.length > 0;
      observed = { documents, acks };
      whole = { documents: [{ SVCPOID: svcpoid, lines: write.lines.map(lineText) }], acks: [{ SVCPOID: svcpoid, Status: status }] };
      absent = { documents: [], acks: [] };
    } else if (write.kind === 'confirmation') {
      const svcpoid = svcpoidOf(write.receipt!);
      const postings = state.postings
        .filter((p) => p.SourceType === 'receipt' && p.SourceID === svcpoid && p.SourceLine === write.number)
        .map((p) => [p.ItemNumber, p.UOM, p.Qty, p.LotNo]);
      const rcs = state.rcs
        .filter((rc) => rc.RC.SVCPOID === svcpoid)
        .map((rc) => rc.RC.Items.map((l) => [l.ItemNumber, l.UOM, String(l.ReceivedQuantity), l.LotNo]));
      const receipt = state.receipts.find((r) => r.SVCPOID === svcpoid);
      const received = receipt && { Status: receipt.Status, lines: receipt.Items.map((l) => l.ReceivedQty) };
      const confirmed = write.lines.map((l) => [l.item, l.uom, l.qty, l.lot]);
      present = postings.length > 0 || rcs.length > 0 || receipt?.Status !== 'Imported';
      observed = { postings, rcs, received };
      whole = { postings: confirmed, rcs: [confirmed], received: { Status: 'Closed', lines: write.lines.map((l) => l.qty) } };
      absent = { postings: [], rcs: [], received: { Status: 'Imported', lines: write.lines.map(() => '0') } };
    } else {
      const postings = state.postings
        .filter((p) => p.SourceType === 'adjustment' && p.SourceID === write.number)
        .map((p) => [p.ItemNumber, p.UOM, p.Qty, p.LotNo]);
      const stored = state.database.adjustments.get(write.number);
      present = postings.length > 0 || stored !== undefined;
      observed = { postings, stored: stored === undefined ? null : JSON.parse(stored || 'null') };
      whole = {
        postings: write.lines.map((l) => [l.item, l.uom, l.qty, l.lot]),
        stored: answered ? parsed(write) : expect.objectContaining({ Adjustment: expect.objectContaining({ AdjustmentNo: write.number }) }),
      };
      absent = { postings: [], stored: null };
    }

    if (answered) expect(present, `${where} was answered 200 and is missing`).toBe(true);
    expect(observed, `${where} is ${present ? 'there, so whole' : 'not there, so not at all'}`).toEqual(present ? whole : absent);
    return present;
  };

  /** Every write whole or absent (present when answered), and nothing the load did not send. */
  const checkState = (writes: Write[], state: State): Map<Write, boolean> => {
    const presence = new Map(writes.map((write) => [write, checkWrite(write, state)]));
    const numbers = (kind: Kind) => new Set(writes.filter((w) => w.kind === kind).map((w) => w.number));
    const present = (kind: Kind) => writes.filter((w) => w.kind === kind && presence.get(w));

    // Nothing the load did not send, and one of each: every document, posting, ACK and RC belongs to a present write.
    expect(state.receipts.filter((r) => !numbers('receipt').has(r.PONo))).toEqual([]);
    expect(state.orders.filter((o) => !numbers('order').has(o.ReferenceNo))).toEqual([]);
    expect(state.receipts).toHaveLength(present('receipt').length);
    expect(state.orders).toHaveLength(present('order').length);
    expect(state.receiptAcks).toHaveLength(present('receipt').length);
    expect(state.orderAcks).toHaveLength(present('order').length);
    expect([...state.receiptAcks, ...state.orderAcks].filter((record) => record.ACK.code !== undefined)).toEqual([]);
    expect(state.rcs).toHaveLength(present('confirmation').length);
    const sources = new Set([
      ...present('confirmation').map((w) => `receipt|${svcpoidOf(w.receipt!)}|${w.number}`),
      ...present('adjustment').map((w) => `adjustment|${w.number}`),
    ]);
    // A receipt's postings name the confirmation (SourceLine); an adjustment's, their line.
    const sourceOf = (p: Posting) =>
      p.SourceType === 'receipt' ? `receipt|${p.SourceID}|${p.SourceLine}` : `${p.SourceType}|${p.SourceID}`;
    expect(state.postings.filter((p) => !sources.has(sourceOf(p)))).toEqual([]);
    expect(state.postings).toHaveLength([...present('confirmation'), ...present('adjustment')].reduce((n, w) => n + w.lines.length, 0));
    expect([...state.database.adjustments.keys()].sort()).toEqual(
      present('adjustment')
        .map((w) => w.number)
        .sort(),
    );

    // No lines without their header.
    expect(state.database.receiptLineOwners).toEqual(new Set(state.receipts.map((r) => r.SVCPOID)));
    expect(state.database.orderLineOwners).toEqual(new Set(state.orders.map((o) => o.SVCPOID)));

    // Every balance is the sum of its ledger (each posting records the running sum), never
    // negative, and holds allocated what the orders hold of it.
    const { balances, ledger, allocations } = state.database;
    expect(new Set(balances.map((b) => b.key))).toEqual(new Set([...ledger.keys(), ...allocations.keys()]));
    for (const balance of balances) {
      let sum = 0;
      for (const posting of ledger.get(balance.key) ?? []) {
        sum += posting.quantity;
        expect(posting.onHandAfter, `a posting of ${balance.key} records the running sum`).toBe(sum);
      }
      expect(balance.onHand, `on hand of ${balance.key} is the sum of its ledger`).toBe(sum);
      expect(balance.allocated, `allocated of ${balance.key} is what the orders hold`).toBe(allocations.get(balance.key) ?? 0);
      expect(balance.allocated).toBeGreaterThanOrEqual(0);
      expect(balance.onHand).toBeGreaterThanOrEqual(balance.allocated);
    }
    return presence;
  };

  it(
    'every answered write survives, nothing unanswered is half there, and a retry applies it exactly once',
    async () => {
      const ids = { CompanyID: companyId, CustomerID: customerId, FacilityID: facilityId };
      const [firstPort, secondPort] = await freePorts(2);
      // On PostgreSQL the first process's sessions carry a name of their own, so that the test can
      // tell when the server has ended them all after the kill.
      const first = startWharf(`wharf on ${dialect}`, withSessionName(databaseUrl, CRASHED_SESSIONS), firstPort!, [], env);
      wharfs.push(first);
      await waitReady(first);
      if (dialect === 'postgres') expect(await sessionsNamed(CRASHED_SESSIONS)).toBeGreaterThan(0);

      // ---- the load: CONCURRENCY writers, each sending its next write when the last is answered.
      const writes: Write[] = [];
      /** Answered receipts not confirmed yet, oldest first. */
      const confirmable: Write[] = [];
      const schedule: Kind[] = ['receipt', 'adjustment', 'receipt', 'confirmation', 'order', 'confirmation', 'adjustment', 'order'];
      let sent = 0;
      let answers = 0;
      let killed = false;
      let killSent = false;

      const nextWrite = (): Write => {
        const n = sent++;
        let kind = schedule[n % schedule.length]!;
        if (kind === 'confirmation' && confirmable.length === 0) kind = 'receipt';
        const number = `${kind.slice(0, 3).toUpperCase()}-${n}-${uniqueId('')}`;
        const idempotencyKey = `crash-${number}`;
        const count = (n % 3) + 1;
        if (kind === 'receipt') {
          const lines: Line[] = ['CR-A', 'CR-B', 'CR-C'].slice(0, count).map((item, i) => ({
            item,
            uom: i === 1 ? 'CS' : 'EA',
            qty: i === 1 ? `${(n % 4) + 1}.5` : String((n % 5) + 1),
          }));
          const body = {
            ...ids,
            ASNContent: {
              PONo: number,
              CarrierName: 'UPS',
              Status: 'Imported',
              Items: lines.map((l) => ({ ItemNumber: l.item, ExpectedQty: l.qty, UOM: l.uom })),
            },
          };
          return { kind, path: RECEIPT_IMPORT, apiKey: customerKey, idempotencyKey, body, number, lines };
        }
        if (kind === 'confirmation') {
          const receipt = confirmable.shift()!;
          // Everything the receipt expects, received into one of two lots, and closed.
          const lines = receipt.lines.map((l) => ({ ...l, lot: `LOT-${n % 2}` }));
          const body = {
            CompanyID: companyId,
            FacilityID: facilityId,
            SVCPOID: svcpoidOf(receipt),
            ConfirmationNo: number,
            Close: true,
            Items: lines.map((l) => ({ ItemNumber: l.item, ReceivedQuantity: l.qty, UOM: l.uom, LotNo: l.lot })),
          };
          return { kind, path: RECEIPT_CONFIRM, apiKey: operatorKey, idempotencyKey, body, number, lines, receipt };
        }
        if (kind === 'adjustment') {
          const lines: Line[] = ['L1', 'L2', 'L3'].slice(0, count).map((lot, i) => ({
            item: 'CR-ADJ',
            uom: 'EA',
            lot,
            qty: String(((n + i) % 4) + 1),
          }));
          const body = {
            ...ids,
            AdjustmentNo: number,
            ReasonCode: 'CYCLE',
            Items: lines.map((l) => ({ ItemNumber: l.item, LotNo: l.lot, UOM: l.uom, Qty: l.qty })),
          };
          return { kind, path: ADJUST_QTY, apiKey: operatorKey, idempotencyKey, body, number, lines };
        }
        // An order of the adjusted item and a received one: allocated, short (Warning), or filled later.
        const lines = (
          [
            { item: 'CR-ADJ', uom: 'EA', qty: String((n % 3) + 1) },
            { item: 'CR-A', uom: 'EA', qty: '2' },
          ] satisfies Line[]
        ).slice(0, (n % 2) + 1);
        const body = {
          ...ids,
          POContent: {
            ReferenceNo: number,
            Address: SHIP_TO,
            Items: lines.map((l) => ({ ItemID: l.item, OrderedQty: l.qty, UOM: l.uom })),
          },
        };
        return { kind: 'order', path: ORDER_IMPORT, apiKey: customerKey, idempotencyKey, body, number, lines };
      };

      const writer = async () => {
        while (!killed) {
          const write = nextWrite();
          writes.push(write);
          try {
            write.answer = await send(first, write);
          } catch (error) {
            write.failure = String((error as { cause?: { code?: string } }).cause?.code ?? error);
            continue;
          }
          answers++;
          // Not after a time, after a number of answers: whatever the machine's speed, the kill
          // comes with writes still in flight. Not in this turn, though: with commits shared, this
          // answer may be the first of a group whose other answers have arrived too, and the server
          // would then die with nothing in flight. After this turn the writers those answers reached
          // have sent their next writes.
          if (answers === KILL_AFTER_ANSWERS) {
            setImmediate(() => {
              killed = true;
              killSent = first.child.kill('SIGKILL');
            });
          }
          if (write.kind === 'receipt' && write.answer.status === 200) confirmable.push(write);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, writer));
      expect(killSent).toBe(true);
      // The process died of the signal, not of anything else.
      expect(await first.exit).toEqual({ code: null, signal: 'SIGKILL' });

      const answered = writes.filter((w) => w.answer);
      const unanswered = writes.filter((w) => !w.answer);
      for (const write of answered) expect(write.answer!.status, `${write.kind} ${write.number}: ${write.answer!.body}`).toBe(200);
      expect(answered.length).toBeGreaterThanOrEqual(KILL_AFTER_ANSWERS);
      // The kill came in the middle of the load: writes were in flight, every kind was answered.
      expect(unanswered.length, 'writes in flight when the process died (none: the test lagged behind the server)').toBeGreaterThan(0);
      expect(new Set(answered.map((w) => w.kind))).toEqual(new Set(['receipt', 'confirmation', 'adjustment', 'order']));

      // A PostgreSQL session of the dead process ends (rolled back, or committed if its COMMIT had
      // arrived) once the server sees the connection gone; the state is read after that.
      await sessionsEnded(CRASHED_SESSIONS);

      // ---- the restart, on the same database.
      const second = startWharf(`wharf on ${dialect}, restarted`, databaseUrl, secondPort!, [], env);
      wharfs.push(second);
      await waitReady(second);

      const afterCrash = await readState(second);
      const presence = checkState(writes, afterCrash);

      // ---- the writes that got no answer, sent again: replayed if they had committed, applied if not.
      const retried = await Promise.all(unanswered.map((write) => send(second, write)));
      for (const [i, write] of unanswered.entries()) {
        const answer = retried[i]!;
        expect(answer.status, `${write.kind} ${write.number} sent again: ${answer.body}`).toBe(200);
        expect(answer.replayed, `${write.kind} ${write.number} sent again: replayed exactly when it had committed`).toBe(
          presence.get(write),
        );
        write.answer = answer;
        if (!presence.get(write)) continue;
        // A replay is the answer of what is there.
        if (write.kind === 'receipt') expect(svcpoidOf(write)).toBe(afterCrash.receipts.find((r) => r.PONo === write.number)!.SVCPOID);
        if (write.kind === 'order') expect(svcpoidOf(write)).toBe(afterCrash.orders.find((o) => o.ReferenceNo === write.number)!.SVCPOID);
        if (write.kind === 'adjustment') expect(parsed(write)).toEqual(JSON.parse(afterCrash.database.adjustments.get(write.number)!));
        if (write.kind === 'confirmation') expect(parsed(write).Receipt).toMatchObject({ ConfirmationNo: write.number, Status: 'Closed' });
      }

      // The answers themselves survived: every write answered before the kill, sent again (as a
      // client that missed the answer would), replays its answer and writes nothing.
      const repeated = await eachLimited(answered, (write) => send(second, write));
      for (const [i, write] of answered.entries()) {
        expect(repeated[i], `${write.kind} ${write.number} sent again after the restart`).toEqual({ ...write.answer, replayed: true });
      }

      // Now every write was answered, and each is there exactly once.
      const afterRetry = await readState(second);
      const final = checkState(writes, afterRetry);
      expect([...final.values()].every(Boolean)).toBe(true);
      // The inventory search agrees with the ledger for every balance with stock on hand.
      const inventory = await allRows<{ ItemNumber: string; LotNo: string | null; UOM: string; OnHand: string }>(
        second,
        INVENTORY_SEARCH,
        customerKey,
        ids,
      );
      expect(inventory.length).toBeGreaterThan(0);
      for (const row of inventory) {
        const postings = afterRetry.postings.filter((p) => p.ItemNumber === row.ItemNumber && p.LotNo === row.LotNo && p.UOM === row.UOM);
        expect(postings.reduce((sum, p) => sum + Number(p.Qty), 0)).toBeCloseTo(Number(row.OnHand), 4);
      }

      // Graceful shutdown still works after the crash.
      expect(await stopWharf(second), second.output.join('')).toEqual({ code: 0, signal: null });
      console.info(
        `[${dialect}] ${writes.length} writes: ${answered.length} answered, ${unanswered.length} without an answer ` +
          `(${unanswered.filter((w) => presence.get(w)).length} of them had committed)`,
      );
    },
    PROCESS_TEST_MS,
  );
});
