import type { Db, Trx } from '../../db/database.js';
import { asScaled, type Scaled } from '../../lib/decimal.js';
import {
  balanceColumnsOf,
  balanceKeyOf,
  compareBalanceKeys,
  DEFAULT_INVENTORY_STATUS,
  describeBalanceKey,
  normalizeBalanceKey,
  type BalanceKey,
  type BalanceKeyInput,
  type StockScope,
} from './balance-keys.js';
import { applyStatement, statementsOf, stepsOf, type BalanceStep, type PostingLine } from './balance-statements.js';
import * as repo from './inventory.repository.js';
import { noteLedgerRowsPosted } from './ledger-items.js';
import {
  announceStockMadeAvailable,
  lockItems,
  noteBalanceChanged,
  noteMadeAvailable,
  type StockMadeAvailable,
} from './transaction-stock.js';

// Other modules name balances through this service, as they call it.
export * from './balance-keys.js';

/**
 * Inventory (docs/orders.md): stock posted to balances with a ledger row per line, allocated and
 * released for orders, and read back. Balances are named in balance-keys.ts; every change is a
 * conditional statement on the balance rows (balance-statements.ts), applied in key order under
 * the items' locks (transaction-stock.ts); the caller's transaction makes a posting all or nothing.
 */

/** What a posting comes from; the ledger search filters on it. */
export type StockSourceType = 'receipt' | 'shipment' | 'adjustment' | 'property-move';

/** One line of a posting; absent or null keys mean '' (inventory status: Available). */
export interface StockPostingLine extends BalanceKeyInput {
  /** Signed change of on-hand, scaled by 10⁴. */
  quantity: Scaled;
  /** Overrides the posting's sourceLine for this line's ledger row (e.g. a line number). */
  sourceLine?: string | null;
  /**
   * The part of a decrease (0 ≤ it ≤ −quantity) that takes stock the caller held allocated: the
   * allocation falls by it together with on-hand, and only the rest must be Available. Absent is 0.
   */
  fromAllocated?: Scaled;
}

export interface StockPosting extends StockScope {
  /** The API key that made the posting (null for the CLI or the system). */
  keyId: number | null;
  sourceType: StockSourceType;
  /** The source document, e.g. an SVCPOID or an AdjustmentNo. */
  sourceId: string;
  /** e.g. the ConfirmationNo. */
  sourceLine?: string | null;
  /** When the posting happened (epoch ms): the ledger's created_at and the balance's updated_at. */
  at: number;
  lines: StockPostingLine[];
}

/** A posted line and what its balance holds right after it. */
export interface PostedLine extends BalanceKey {
  quantity: Scaled;
  onHand: Scaled;
  allocated: Scaled;
}

export interface Balance extends BalanceKey {
  companyId: string;
  customerId: string;
  facilityId: string;
  onHand: Scaled;
  allocated: Scaled;
  /** OnHand − Allocated for an Available balance; 0 for Hold, Damaged and any other status. */
  available: Scaled;
  firstReceivedAt: number | null;
  updatedAt: number;
}

export interface LedgerEntry extends BalanceKey {
  id: number;
  companyId: string;
  customerId: string;
  facilityId: string;
  quantity: Scaled;
  onHandAfter: Scaled;
  sourceType: string;
  sourceId: string;
  sourceLine: string;
  keyId: number | null;
  createdAt: number;
}

export type BalanceFilter = repo.BalanceFilter;
export type LedgerSourceFilter = repo.LedgerSourceFilter;

/** The part of a page request these reads use (http/paging's PageRequest fits). */
export interface PageWindow {
  offset: number;
  pageSize: number;
}

/** The items and UOMs whose Available stock a posting's lines increase. */
function stockMadeAvailableBy(posting: StockPosting, lines: PostingLine<StockPostingLine>[]): StockMadeAvailable[] {
  const stock = new Map<string, StockMadeAvailable>();
  for (const { key, quantity } of lines) {
    if (quantity <= 0 || key.inventoryStatus !== DEFAULT_INVENTORY_STATUS) continue;
    const item = {
      companyId: posting.companyId,
      customerId: posting.customerId,
      facilityId: posting.facilityId,
      itemId: key.itemId,
      uom: key.uom,
    };
    stock.set(JSON.stringify([key.itemId, key.uom]), item);
  }
  return [...stock.values()];
}

/** A posted line's result, its keys written out (see "Per-line objects" in docs/decisions.md). */
function postedLineOf(key: BalanceKey, quantity: Scaled, balance: repo.BalanceQuantities): PostedLine {
  return {
    itemId: key.itemId,
    uom: key.uom,
    lotNo: key.lotNo,
    goodsType: key.goodsType,
    titleId: key.titleId,
    inventoryStatus: key.inventoryStatus,
    expirationDate: key.expirationDate,
    quantity,
    onHand: asScaled(balance.on_hand),
    allocated: asScaled(balance.allocated),
  };
}

/**
 * Applies every line of a posting to its balance and writes one ledger row per line; answers each
 * line's resulting balance, in the order of `lines`. Run it inside the caller's transaction: a
 * line that would take on-hand below the balance's allocation (or below zero), or past 11 integer
 * digits, throws 409 and the caller's rollback undoes the lines before it. A decrease with
 * `fromAllocated` takes that much out of the allocation in the same statement; the rest must be
 * Available. A caller that wants one ledger row per balance passes one line per balance. A line of
 * quantity 0 changes nothing and writes no ledger row; it answers the balance as it stands.
 *
 * Lines are applied in key order (see compareBalanceKeys), as one conditional multi-row statement
 * per run of increases or of decreases, with the lines of one balance summed into one row of it:
 * a receipt or a shipment of any size is one statement, and a posting that alternates between
 * increases and decreases in key order takes one statement per run. Each line's own result is the
 * balance before its statement plus the lines of that balance up to it.
 */
export async function postStock(trx: Trx, posting: StockPosting): Promise<PostedLine[]> {
  const lines: PostingLine<StockPostingLine>[] = posting.lines.map((line, index) => {
    if (!Number.isSafeInteger(line.quantity)) throw new Error(`a stock posting quantity must be a scaled integer, not ${line.quantity}`);
    const fromAllocated = line.fromAllocated ?? 0;
    if (!Number.isSafeInteger(fromAllocated) || fromAllocated < 0 || fromAllocated > Math.max(0, -line.quantity)) {
      throw new Error(`a stock posting's fromAllocated must be a scaled integer from 0 to the decrease, not ${fromAllocated}`);
    }
    return { index, line, key: normalizeBalanceKey(line), quantity: asScaled(line.quantity), fromAllocated };
  });
  const ordered = [...lines].sort((a, b) => compareBalanceKeys(a.key, b.key) || a.index - b.index);
  await lockItems(
    trx,
    posting,
    ordered.map(({ key }) => key),
  );
  const madeAvailable = stockMadeAvailableBy(posting, lines);
  await announceStockMadeAvailable(trx, madeAvailable);

  const steps = stepsOf(posting, ordered);
  const after = new Map<BalanceStep, repo.BalanceQuantities>();
  for (const statement of statementsOf(steps)) {
    for (const [step, balance] of await applyStatement(trx, statement, posting.at)) after.set(step, balance);
  }

  // Each balance's lines in key order, from what the balance held before its first step.
  const stepOfLine = new Map(steps.flatMap((step) => step.lines.map((posted) => [posted, step] as const)));
  const results: PostedLine[] = new Array(lines.length);
  for (let start = 0, end = 0; start < ordered.length; start = end) {
    while (end < ordered.length && compareBalanceKeys(ordered[start]!.key, ordered[end]!.key) === 0) end++;
    const sameBalance = ordered.slice(start, end);
    const first = sameBalance.map((posted) => stepOfLine.get(posted)).find((step) => step !== undefined);
    let balance: repo.BalanceQuantities;
    if (first) {
      const changed = after.get(first)!;
      balance = { on_hand: changed.on_hand - first.quantity, allocated: changed.allocated + first.fromAllocated };
    } else {
      const found = await repo.findBalance(trx, balanceColumnsOf(posting, sameBalance[0]!.key));
      balance = { on_hand: found?.on_hand ?? 0, allocated: found?.allocated ?? 0 };
    }
    for (const posted of sameBalance) {
      balance = { on_hand: balance.on_hand + posted.quantity, allocated: balance.allocated - posted.fromAllocated };
      const step = stepOfLine.get(posted);
      if (step && step.lines.at(-1) === posted) {
        const changed = after.get(step)!;
        if (changed.on_hand !== balance.on_hand || changed.allocated !== balance.allocated) {
          throw new Error(`the balance of ${describeBalanceKey(step.key)} changed during a posting`);
        }
      }
      results[posted.index] = postedLineOf(posted.key, posted.quantity, balance);
    }
  }

  for (const stock of madeAvailable) noteMadeAvailable(trx, posting, stock);
  // In the order of the document's lines, so the ledger reads like it.
  const ledgerRows = lines
    .filter(({ quantity }) => quantity !== 0)
    .map(({ index, line, key, quantity }) =>
      // Object.assign onto a fresh object, not a spread: see "Per-line objects" in docs/decisions.md.
      Object.assign(balanceColumnsOf(posting, key), {
        quantity,
        on_hand_after: results[index]!.onHand,
        source_type: posting.sourceType,
        source_id: posting.sourceId,
        source_line: line.sourceLine ?? posting.sourceLine ?? '',
        key_id: posting.keyId,
        created_at: posting.at,
      }),
    );
  await repo.insertLedgerRows(trx, ledgerRows);
  await noteLedgerRowsPosted(trx, ledgerRows.length);
  return results;
}

/** What an order line asks to allocate: an item and UOM, and the lot, goods type and title when it names them. */
export interface AllocationRequest extends StockScope {
  itemId: string;
  uom: string;
  lotNo?: string;
  goodsType?: string;
  titleId?: string;
  quantity: Scaled;
  at: number;
}

/** Stock held for an order in one balance. */
export interface Allocation {
  key: BalanceKey;
  quantity: Scaled;
}

/** Re-reads after losing a balance to another writer; each lost race means someone else allocated. */
const ALLOCATION_ROUNDS = 20;

/**
 * Allocates up to `request.quantity` of Available stock, the earliest expiration first, then the
 * earliest received (FEFO, then FIFO); answers what it allocated per balance, which may be less
 * than asked (nothing is an error: a shortfall is the caller's to report). Each balance is taken by
 * a conditional statement that allocates only what is still free, so two orders never allocate the
 * same unit; a lost race re-reads the balances.
 */
export async function allocateStock(trx: Trx, request: AllocationRequest): Promise<Allocation[]> {
  await lockItems(trx, request, [request]);
  const taken = new Map<string, Allocation>();
  let need: number = request.quantity;
  for (let round = 0; need > 0 && round < ALLOCATION_ROUNDS; round++) {
    const candidates = await repo.findAllocatableBalances(trx, { ...request, inventoryStatus: DEFAULT_INVENTORY_STATUS });
    let lostRace = false;
    for (const row of candidates) {
      const take = Math.min(need, row.on_hand - row.allocated);
      const allocated = await repo.allocateFromBalance(trx, row, take, request.at);
      if (!allocated) {
        lostRace = true;
        break;
      }
      noteBalanceChanged(trx, Object.assign(balanceColumnsOf(request, balanceKeyOf(row)), allocated));
      const key = balanceKeyOf(row);
      const id = JSON.stringify(key);
      taken.set(id, { key, quantity: asScaled((taken.get(id)?.quantity ?? 0) + take) });
      need -= take;
      if (need === 0) break;
    }
    if (!lostRace) break;
  }
  return [...taken.values()];
}

/** Whether a balance row is one the request may allocate from: its item and UOM, and any lot, goods type or title it names. */
function allocatableFor(request: AllocationRequest, row: repo.BalanceRow): boolean {
  return (
    row.item_id === request.itemId &&
    row.uom === request.uom &&
    (request.lotNo === undefined || row.lot_no === request.lotNo) &&
    (request.goodsType === undefined || row.goods_type === request.goodsType) &&
    (request.titleId === undefined || row.title_id === request.titleId)
  );
}

/**
 * Allocates each request in turn, as allocateStock would one after another, from one read of the
 * balances of all their items: what an earlier request takes is no longer free for a later one.
 * The takes are then made in one statement, in key order, that nothing waits for. The items' locks
 * (and on SQLite, writers taking turns) keep every other writer of these balances out between the
 * read and the update, so each take is free; one that were not would fail the balances' CHECK and
 * the transaction with it, rather than allocate what the read did not find. The requests share
 * one company, customer and facility. Answers each request's allocations, in the order of the
 * requests.
 */
export async function allocateEach(trx: Trx, requests: readonly AllocationRequest[]): Promise<Allocation[][]> {
  if (requests.length === 0) return [];
  const scope = requests[0]!;
  const at = scope.at;
  await lockItems(trx, scope, requests);
  const rows = await repo.findAllocatableBalancesOfItems(trx, {
    ...scope,
    inventoryStatus: DEFAULT_INVENTORY_STATUS,
    itemIds: [...new Set(requests.map((request) => request.itemId))],
    uoms: [...new Set(requests.map((request) => request.uom))],
  });
  const free = new Map(rows.map((row) => [row, row.on_hand - row.allocated]));
  const planned = requests.map((request) => {
    const takes: { row: repo.BalanceRow; quantity: number }[] = [];
    let need: number = request.quantity;
    for (const row of rows) {
      if (need === 0) break;
      const quantity = Math.min(need, free.get(row)!);
      if (quantity <= 0 || !allocatableFor(request, row)) continue;
      free.set(row, free.get(row)! - quantity);
      takes.push({ row, quantity });
      need -= quantity;
    }
    return takes;
  });

  const totals = new Map<repo.BalanceRow, number>();
  for (const { row, quantity } of planned.flat()) totals.set(row, (totals.get(row) ?? 0) + quantity);
  const inKeyOrder = [...totals].sort(([a], [b]) => compareBalanceKeys(balanceKeyOf(a), balanceKeyOf(b)));
  for (let i = 0; i < inKeyOrder.length; i += repo.BALANCE_CHANGE_CHUNK) {
    const chunk = inKeyOrder.slice(i, i + repo.BALANCE_CHANGE_CHUNK);
    const takes = chunk.map(([row, quantity]) => ({ key: balanceColumnsOf(scope, balanceKeyOf(row)), quantity }));
    await repo.allocateFromBalances(trx, takes, at);
    // What the read found, changed by the take: no other writer came between them (see above).
    // Object.assign onto a fresh object, not a spread: see "Per-line objects" in docs/decisions.md.
    chunk.forEach(([row, quantity]) =>
      noteBalanceChanged(
        trx,
        Object.assign(balanceColumnsOf(scope, balanceKeyOf(row)), { on_hand: row.on_hand, allocated: row.allocated + quantity }),
      ),
    );
  }
  // A request visits each balance once, so its takes are its allocations.
  return planned.map((takes) => takes.map(({ row, quantity }) => ({ key: balanceKeyOf(row), quantity: asScaled(quantity) })));
}

/** Gives allocated stock back to Available, in key order (see compareBalanceKeys). */
export async function releaseAllocations(trx: Trx, scope: StockScope, allocations: Allocation[], at: number): Promise<void> {
  await lockItems(
    trx,
    scope,
    allocations.map(({ key }) => key),
  );
  for (const { key, quantity } of [...allocations].sort((a, b) => compareBalanceKeys(a.key, b.key))) {
    const columns = balanceColumnsOf(scope, key);
    const released = await repo.releaseFromBalance(trx, columns, quantity, at);
    if (!released) throw new Error(`a release gave back more allocated stock of ${describeBalanceKey(key)} than there is`);
    noteBalanceChanged(trx, Object.assign(columns, released));
    noteMadeAvailable(trx, scope, key);
  }
}

/** The Available stock an order line may still allocate or ship, per balance, in allocation order. */
export async function findAllocatable(trx: Trx, request: Omit<AllocationRequest, 'quantity' | 'at'>): Promise<Allocation[]> {
  const rows = await repo.findAllocatableBalances(trx, { ...request, inventoryStatus: DEFAULT_INVENTORY_STATUS });
  return rows.map((row) => ({ key: balanceKeyOf(row), quantity: asScaled(row.on_hand - row.allocated) }));
}

function balanceOf(row: repo.BalanceRow): Balance {
  const onHand = asScaled(row.on_hand);
  const allocated = asScaled(row.allocated);
  return {
    companyId: row.company_id,
    customerId: row.customer_id,
    facilityId: row.facility_id,
    ...balanceKeyOf(row),
    onHand,
    allocated,
    available: row.inventory_status === DEFAULT_INVENTORY_STATUS ? asScaled(onHand - allocated) : asScaled(0),
    firstReceivedAt: row.first_received_at,
    updatedAt: row.updated_at,
  };
}

function ledgerEntryOf(row: repo.LedgerRow): LedgerEntry {
  return {
    id: row.id,
    companyId: row.company_id,
    customerId: row.customer_id,
    facilityId: row.facility_id,
    ...balanceKeyOf(row),
    quantity: asScaled(row.quantity),
    onHandAfter: asScaled(row.on_hand_after),
    sourceType: row.source_type,
    sourceId: row.source_id,
    sourceLine: row.source_line,
    keyId: row.key_id,
    createdAt: row.created_at,
  };
}

/** Balances of a customer, in key order (facility, item, UOM, lot, …); empty ones only on request. */
export async function findBalances(db: Db, filter: BalanceFilter, page: PageWindow): Promise<Balance[]> {
  return (await repo.pageBalances(db, filter, page.offset, page.pageSize)).map(balanceOf);
}

export async function countBalances(db: Db, filter: BalanceFilter): Promise<number> {
  return repo.countBalances(db, filter);
}

/** The postings of one source document (e.g. the receipt RN-12), oldest first. */
export async function findLedger(db: Db, filter: LedgerSourceFilter): Promise<LedgerEntry[]> {
  return (await repo.findLedgerBySource(db, filter)).map(ledgerEntryOf);
}
