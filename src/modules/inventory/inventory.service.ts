import type { Db, Trx } from '../../db/database.js';
import { lockNames } from '../../db/dialect.js';
import { conflict } from '../../lib/refusal.js';
import { MAX_SCALED, asScaled, formatDecimal, isWithinDecimalRange, type Scaled } from '../../lib/decimal.js';
import * as repo from './inventory.repository.js';
import type { BalanceKeyColumns } from './inventory.tables.js';

/**
 * Inventory: balances per (company, customer, facility, item, UOM, lot, goods type, title,
 * inventory status, expiration date) and the ledger of the postings that changed them (DESIGN §5).
 * Every change is a conditional single statement on the balance row, applied in key order, with one
 * ledger row per line; the caller's transaction makes a posting all or nothing.
 */

export const DEFAULT_INVENTORY_STATUS = 'Available';

/** What a posting comes from; the ledger search filters on it. */
export type StockSourceType = 'receipt' | 'shipment' | 'adjustment' | 'property-move';

/** A balance's key below (company, customer, facility), absent values normalised to ''. */
export interface BalanceKey {
  itemId: string;
  uom: string;
  lotNo: string;
  goodsType: string;
  titleId: string;
  inventoryStatus: string;
  /** ISO yyyy-MM-dd, or ''. */
  expirationDate: string;
}

/** One line of a posting; absent or null keys mean '' (inventory status: Available). */
export interface StockPostingLine {
  itemId: string;
  uom: string;
  lotNo?: string | null;
  goodsType?: string | null;
  titleId?: string | null;
  inventoryStatus?: string | null;
  expirationDate?: string | null;
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

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The key a line names, absent values as ''. A malformed line is a bug of the calling module. */
export function normalizeBalanceKey(line: Omit<StockPostingLine, 'quantity'>): BalanceKey {
  const key: BalanceKey = {
    itemId: line.itemId,
    uom: line.uom,
    lotNo: line.lotNo ?? '',
    goodsType: line.goodsType ?? '',
    titleId: line.titleId ?? '',
    inventoryStatus: line.inventoryStatus || DEFAULT_INVENTORY_STATUS,
    expirationDate: line.expirationDate ?? '',
  };
  if (!key.itemId || !key.uom) throw new Error('a stock posting line needs an itemId and a uom');
  if (key.expirationDate !== '' && !ISO_DATE.test(key.expirationDate)) {
    throw new Error(`a stock posting's expirationDate must be yyyy-MM-dd, not ${JSON.stringify(key.expirationDate)}`);
  }
  return key;
}

const KEY_ORDER: (keyof BalanceKey)[] = ['itemId', 'uom', 'lotNo', 'goodsType', 'titleId', 'inventoryStatus', 'expirationDate'];

/**
 * The one order in which every writer changes balances (by UTF-16 code units, as the key's columns
 * are compared nowhere else): two postings that touch the same rows lock them in the same order,
 * so they queue instead of deadlocking. Writers of other modules (shipments, allocation) use it too.
 */
export function compareBalanceKeys(a: BalanceKey, b: BalanceKey): number {
  for (const field of KEY_ORDER) {
    if (a[field] !== b[field]) return a[field] < b[field] ? -1 : 1;
  }
  return 0;
}

/** "item A-1, lot L7, UOM EA" and whichever other key values are set; for messages. */
export function describeBalanceKey(key: BalanceKey): string {
  const parts = [`item ${key.itemId}`, key.lotNo ? `lot ${key.lotNo}` : 'no lot', `UOM ${key.uom}`];
  if (key.inventoryStatus !== DEFAULT_INVENTORY_STATUS) parts.push(`status ${key.inventoryStatus}`);
  if (key.goodsType) parts.push(`goods type ${key.goodsType}`);
  if (key.titleId) parts.push(`title ${key.titleId}`);
  if (key.expirationDate) parts.push(`expiring ${key.expirationDate}`);
  return parts.join(', ');
}

/** Whose stock, where: the part of a balance's key above the BalanceKey. */
export interface StockScope {
  companyId: string;
  customerId: string;
  facilityId: string;
}

/** A balance's key columns: its scope and its key. */
export function balanceColumnsOf(scope: StockScope, key: BalanceKey): BalanceKeyColumns {
  return {
    company_id: scope.companyId,
    customer_id: scope.customerId,
    facility_id: scope.facilityId,
    item_id: key.itemId,
    uom: key.uom,
    lot_no: key.lotNo,
    goods_type: key.goodsType,
    title_id: key.titleId,
    inventory_status: key.inventoryStatus,
    expiration_date: key.expirationDate,
  };
}

function beyondLimit(key: BalanceKey, onHand: number, quantity: number) {
  return conflict(
    `Stock of ${describeBalanceKey(key)} would exceed ${formatDecimal(MAX_SCALED)}: ${formatDecimal(onHand)} on hand, ${formatDecimal(quantity)} to add`,
  );
}

/** A decrease its balance refuses: short of Available stock (409), or a caller's bug when its allocation is not there. */
function refusedDecrease(key: BalanceKey, balance: repo.BalanceQuantities | undefined, quantity: number, fromAllocated: number) {
  if (fromAllocated > 0 && (balance?.allocated ?? 0) < fromAllocated) {
    return new Error(`a posting took more allocated stock of ${describeBalanceKey(key)} than there is`);
  }
  return shortOfStock(key, balance, quantity + fromAllocated);
}

function shortOfStock(key: BalanceKey, balance: repo.BalanceQuantities | undefined, quantity: number) {
  const available = balance ? balance.on_hand - balance.allocated : 0;
  const allocated =
    balance && balance.allocated > 0 ? ` (${formatDecimal(balance.on_hand)} on hand, ${formatDecimal(balance.allocated)} allocated)` : '';
  return conflict(
    `Not enough stock of ${describeBalanceKey(key)}: ${formatDecimal(available)} available${allocated}, ${formatDecimal(-quantity)} to take`,
  );
}

/** A line of a posting, checked, with its normalised key and its place in the document. */
interface PostingLine {
  index: number;
  line: StockPostingLine;
  key: BalanceKey;
  quantity: Scaled;
  fromAllocated: number;
}

/**
 * Consecutive lines (in key order) that change one balance in one direction: one row of a
 * multi-row statement. Their conditions hold line after line exactly when they hold for their sum:
 * increases only grow on-hand, so if any of them passes the cap the last one does; and what a
 * decrease needs beyond the lines before it (−quantity − fromAllocated Available, fromAllocated
 * allocated) is never negative, so the sum needs the most.
 */
interface BalanceStep {
  key: BalanceKey;
  columns: BalanceKeyColumns;
  increase: boolean;
  lines: PostingLine[];
  /** The sum of the lines' quantities, and of their fromAllocated. */
  quantity: number;
  fromAllocated: number;
  /** A line or a sum beyond 11 integer digits: any balance refuses it, so it is not sent. */
  beyondLimits: boolean;
}

function balanceIdOf(columns: BalanceKeyColumns): string {
  return [
    columns.company_id,
    columns.customer_id,
    columns.facility_id,
    columns.item_id,
    columns.uom,
    columns.lot_no,
    columns.goods_type,
    columns.title_id,
    columns.inventory_status,
    columns.expiration_date,
  ].join('\u0000');
}

/** The lines in key order, grouped into steps; lines of quantity 0 belong to none. */
function stepsOf(scope: StockScope, ordered: PostingLine[]): BalanceStep[] {
  const steps: BalanceStep[] = [];
  for (const posted of ordered) {
    if (posted.quantity === 0) continue;
    const increase = posted.quantity > 0;
    let step = steps.at(-1);
    if (!step || step.increase !== increase || compareBalanceKeys(step.key, posted.key) !== 0) {
      step = {
        key: posted.key,
        columns: balanceColumnsOf(scope, posted.key),
        increase,
        lines: [],
        quantity: 0,
        fromAllocated: 0,
        beyondLimits: false,
      };
      steps.push(step);
    }
    step.lines.push(posted);
    // Stop summing past the cap: the sum of many large lines would leave the exact integers.
    if (step.beyondLimits) continue;
    step.quantity += posted.quantity;
    step.fromAllocated += posted.fromAllocated;
    step.beyondLimits = Math.abs(posted.quantity) > MAX_SCALED || Math.abs(step.quantity) > MAX_SCALED;
  }
  return steps;
}

/** Steps in key order, cut where the direction changes or a chunk is full: one statement each. */
function statementsOf(steps: BalanceStep[]): BalanceStep[][] {
  const statements: BalanceStep[][] = [];
  for (const step of steps) {
    const current = statements.at(-1);
    if (current && current[0]!.increase === step.increase && current.length < repo.BALANCE_CHANGE_CHUNK) current.push(step);
    else statements.push([step]);
  }
  return statements;
}

/**
 * Why the balance refused a step: the line of it that the balance, as it stands, cannot take,
 * judged line by line as a posting of one statement per line would have been.
 */
async function refusalOf(trx: Trx, step: BalanceStep): Promise<Error> {
  const found = await repo.findBalance(trx, step.columns);
  let balance: repo.BalanceQuantities | undefined = found && { on_hand: found.on_hand, allocated: found.allocated };
  for (const { quantity, fromAllocated } of step.lines) {
    if (step.increase) {
      const onHand = balance?.on_hand ?? 0;
      if (!isWithinDecimalRange(quantity) || onHand + quantity > MAX_SCALED) return beyondLimit(step.key, onHand, quantity);
      balance = { on_hand: onHand + quantity, allocated: balance?.allocated ?? 0 };
    } else {
      if (!balance || balance.allocated < fromAllocated || balance.on_hand + quantity < balance.allocated - fromAllocated) {
        return refusedDecrease(step.key, balance, quantity, fromAllocated);
      }
      balance = { on_hand: balance.on_hand + quantity, allocated: balance.allocated - fromAllocated };
    }
  }
  // Only another writer's commit since the refusal gets here: report the first line against what is there now.
  const first = step.lines[0]!;
  return step.increase
    ? beyondLimit(step.key, found?.on_hand ?? 0, first.quantity)
    : refusedDecrease(step.key, found, first.quantity, first.fromAllocated);
}

/** Sends one statement's steps; answers each balance as the statement left it, or throws the first refusal in key order. */
async function applyStatement(trx: Trx, steps: BalanceStep[], at: number): Promise<Map<BalanceStep, repo.BalanceQuantities>> {
  const sent = steps.filter((step) => !step.beyondLimits);
  const changes = sent.map(({ columns, quantity, fromAllocated }) => ({ key: columns, quantity, fromAllocated }));
  const rows =
    changes.length === 0
      ? []
      : steps[0]!.increase
        ? await repo.increaseBalances(trx, changes, MAX_SCALED, at)
        : await repo.decreaseBalances(trx, changes, at);
  const byBalance = new Map(rows.map((row) => [balanceIdOf(row), row]));
  const after = new Map<BalanceStep, repo.BalanceQuantities>();
  for (const step of steps) {
    const row = step.beyondLimits ? undefined : byBalance.get(balanceIdOf(step.columns));
    if (!row) throw await refusalOf(trx, step);
    after.set(step, { on_hand: row.on_hand, allocated: row.allocated });
  }
  return after;
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
/** One item in one UOM, the unit that allocation, backorders and their lock work with. */
export interface ItemUom {
  itemId: string;
  uom: string;
}

/** Item, then UOM, by UTF-16 code units, as compareBalanceKeys orders them. */
export const compareItems = (a: ItemUom, b: ItemUom) =>
  a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : a.uom < b.uom ? -1 : a.uom > b.uom ? 1 : 0;

/** The item locks each open transaction holds already (see lockItems). */
const heldItemLocks = new WeakMap<Trx, Set<string>>();

/**
 * Takes the lock of each item (of the scope's customer in its facility) until the transaction ends,
 * those it does not hold yet, in item order. Every writer of an item's balances takes it before it
 * reads or changes them — postings, releases, allocation, the backorder fill — so that an order
 * import and a change that makes stock Available never miss each other (the import would miss the
 * uncommitted stock, the change's fill the uncommitted order), and so that writers of one item
 * queue on it instead of deadlocking between it and the balance rows. One statement on PostgreSQL
 * (advisory locks), nothing on SQLite, whose writers already take turns.
 */
export async function lockItems(trx: Trx, scope: StockScope, items: readonly ItemUom[]): Promise<void> {
  const held = heldItemLocks.get(trx) ?? new Set<string>();
  heldItemLocks.set(trx, held);
  // A Set keeps the first of equal names, and the items are sorted first: the names stay in item order.
  const names = new Set(
    [...items]
      .sort(compareItems)
      .map((item) => JSON.stringify([scope.companyId, scope.customerId, scope.facilityId, item.itemId, item.uom]))
      .filter((name) => !held.has(name)),
  );
  await lockNames(trx, [...names]);
  for (const name of names) held.add(name);
}

/** Stock that a transaction made Available to allocate: one item and UOM of a customer in a facility. */
export interface StockMadeAvailable extends StockScope {
  itemId: string;
  uom: string;
}

/** Per open transaction, what it made Available so far (see takeStockMadeAvailable). */
const madeAvailable = new WeakMap<Trx, Map<string, StockMadeAvailable>>();

function noteMadeAvailable(trx: Trx, scope: StockScope, key: BalanceKey): void {
  const made = madeAvailable.get(trx) ?? new Map<string, StockMadeAvailable>();
  madeAvailable.set(trx, made);
  const stock = {
    companyId: scope.companyId,
    customerId: scope.customerId,
    facilityId: scope.facilityId,
    itemId: key.itemId,
    uom: key.uom,
  };
  made.set(JSON.stringify(stock), stock);
}

/**
 * The items a transaction has made Available so far (received, adjusted up, moved to Available,
 * released from an allocation), each once, in the order they were first freed; a second call
 * answers only what came after the first. Waiting orders allocate from them (backorders).
 */
export function takeStockMadeAvailable(trx: Trx): StockMadeAvailable[] {
  const made = madeAvailable.get(trx);
  madeAvailable.delete(trx);
  return made ? [...made.values()] : [];
}

export async function postStock(trx: Trx, posting: StockPosting): Promise<PostedLine[]> {
  const lines: PostingLine[] = posting.lines.map((line, index) => {
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
      results[posted.index] = {
        ...posted.key,
        quantity: posted.quantity,
        onHand: asScaled(balance.on_hand),
        allocated: asScaled(balance.allocated),
      };
    }
  }

  for (const { key, quantity } of lines) {
    if (quantity > 0 && key.inventoryStatus === DEFAULT_INVENTORY_STATUS) noteMadeAvailable(trx, posting, key);
  }
  // In the order of the document's lines, so the ledger reads like it.
  await repo.insertLedgerRows(
    trx,
    lines
      .filter(({ quantity }) => quantity !== 0)
      .map(({ index, line, key, quantity }) => ({
        ...balanceColumnsOf(posting, key),
        quantity,
        on_hand_after: results[index]!.onHand,
        source_type: posting.sourceType,
        source_id: posting.sourceId,
        source_line: line.sourceLine ?? posting.sourceLine ?? '',
        key_id: posting.keyId,
        created_at: posting.at,
      })),
  );
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
      if (!(await repo.allocateFromBalance(trx, row, take, request.at))) {
        lostRace = true;
        break;
      }
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

/** Gives allocated stock back to Available, in key order (see compareBalanceKeys). */
export async function releaseAllocations(trx: Trx, scope: StockScope, allocations: Allocation[], at: number): Promise<void> {
  await lockItems(
    trx,
    scope,
    allocations.map(({ key }) => key),
  );
  for (const { key, quantity } of [...allocations].sort((a, b) => compareBalanceKeys(a.key, b.key))) {
    if (!(await repo.releaseFromBalance(trx, balanceColumnsOf(scope, key), quantity, at))) {
      throw new Error(`a release gave back more allocated stock of ${describeBalanceKey(key)} than there is`);
    }
    noteMadeAvailable(trx, scope, key);
  }
}

/** The Available stock an order line may still allocate or ship, per balance, in allocation order. */
export async function findAllocatable(trx: Trx, request: Omit<AllocationRequest, 'quantity' | 'at'>): Promise<Allocation[]> {
  const rows = await repo.findAllocatableBalances(trx, { ...request, inventoryStatus: DEFAULT_INVENTORY_STATUS });
  return rows.map((row) => ({ key: balanceKeyOf(row), quantity: asScaled(row.on_hand - row.allocated) }));
}

/** The balance key a row's key columns hold (a balance's, a ledger row's, an allocation's). */
export function balanceKeyOf(row: BalanceKeyColumns): BalanceKey {
  return {
    itemId: row.item_id,
    uom: row.uom,
    lotNo: row.lot_no,
    goodsType: row.goods_type,
    titleId: row.title_id,
    inventoryStatus: row.inventory_status,
    expirationDate: row.expiration_date,
  };
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
