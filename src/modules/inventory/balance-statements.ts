import type { Trx } from '../../db/database.js';
import { MAX_SCALED, formatDecimal, isWithinDecimalRange, type Scaled } from '../../lib/decimal.js';
import { conflict } from '../../lib/refusal.js';
import { balanceColumnsOf, balanceIdOf, compareBalanceKeys, describeBalanceKey, type BalanceKey, type StockScope } from './balance-keys.js';
import * as repo from './inventory.repository.js';
import type { BalanceKeyColumns } from './inventory.tables.js';
import { noteBalanceChanged } from './transaction-stock.js';

/**
 * How a posting's lines become balance statements: lines of one balance and direction summed into
 * one row, runs of one direction into one conditional multi-row statement, and, when a balance
 * refuses its row, which line it refused and why (the 409 a caller reads).
 */

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
export interface PostingLine<Line = unknown> {
  index: number;
  /** The line as the caller posted it. */
  line: Line;
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
export interface BalanceStep {
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

/** The lines in key order, grouped into steps; lines of quantity 0 belong to none. */
export function stepsOf(scope: StockScope, ordered: PostingLine[]): BalanceStep[] {
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
export function statementsOf(steps: BalanceStep[]): BalanceStep[][] {
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
export async function applyStatement(trx: Trx, steps: BalanceStep[], at: number): Promise<Map<BalanceStep, repo.BalanceQuantities>> {
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
    noteBalanceChanged(trx, row);
    after.set(step, { on_hand: row.on_hand, allocated: row.allocated });
  }
  return after;
}
