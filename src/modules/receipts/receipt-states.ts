import type { Actor } from '../../http/auth.js';
import { conflict } from '../../lib/refusal.js';

/**
 * A receipt's state machine (docs/receipts.md), the one place that says which statuses there are, which
 * moves lead from which status to which, and who may make them. Services and schemas ask it.
 */

export const RECEIPT_STATUSES = ['Imported', 'Open', 'In Progress', 'Partial Received', 'Closed', 'Force Closed', 'Cancelled'] as const;
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];

export interface ReceiptMoveRule {
  by: Actor;
  from: readonly ReceiptStatus[];
  to: readonly ReceiptStatus[];
  /** Why the move is refused from `status`: the 409's message. */
  refusal: (svcpoid: string, status: string) => string;
}

export const RECEIPT_MOVES = {
  /** The customer imports the receipt again (spec section 3). */
  update: {
    by: 'customer',
    from: ['Imported', 'Open'],
    to: ['Imported'],
    refusal: (svcpoid, status) => `Receipt ${svcpoid} is ${status}; it can no longer be updated`,
  },
  /** ActionCode Cancelled or the PUT cancel. */
  'customer-cancel': {
    by: 'customer',
    from: ['Imported'],
    to: ['Cancelled'],
    refusal: (svcpoid, status) => `Receipt ${svcpoid} is ${status}; only an Imported receipt can be cancelled by the customer`,
  },
  /** The operator's open, and the 3PL list with MarkOpen. */
  open: {
    by: 'operator',
    from: ['Imported'],
    to: ['Open'],
    refusal: (svcpoid, status) => `Receipt ${svcpoid} is ${status}; open needs Imported`,
  },
  /** The spec's "internal portal" cancel. */
  cancel: {
    by: 'operator',
    from: ['Imported', 'Open'],
    to: ['Cancelled'],
    refusal: (svcpoid, status) => `Receipt ${svcpoid} is ${status}; cancel needs Imported or Open`,
  },
  'force-close': {
    by: 'operator',
    from: ['Imported', 'Open', 'In Progress'],
    to: ['Force Closed'],
    refusal: (svcpoid, status) => `Receipt ${svcpoid} is ${status}; force-close needs Imported or Open or In Progress`,
  },
  /** A receiving confirmation: In Progress; with Close, Closed (all expected received) or Partial Received. */
  receive: {
    by: 'operator',
    from: ['Imported', 'Open', 'In Progress'],
    to: ['In Progress', 'Closed', 'Partial Received'],
    refusal: (svcpoid, status) => `Receipt ${svcpoid} is ${status}; only Imported, Open, In Progress receipts can be received`,
  },
} as const satisfies Record<string, ReceiptMoveRule>;

export type ReceiptMove = keyof typeof RECEIPT_MOVES;

/** The statuses in which receiving is over (a `receipt.closed` event); a cancelled receipt has its own. */
export const CLOSED_RECEIPT_STATUSES = ['Closed', 'Partial Received', 'Force Closed'] as const satisfies readonly ReceiptStatus[];

export function isClosed(status: ReceiptStatus): boolean {
  return (CLOSED_RECEIPT_STATUSES as readonly string[]).includes(status);
}

/** The operator's moves that are operations of their own (`…/3pl/inbound/receipt/<move>`). */
export const OPERATOR_RECEIPT_MOVES = ['open', 'cancel', 'force-close'] as const satisfies readonly ReceiptMove[];
export type OperatorReceiptMove = (typeof OPERATOR_RECEIPT_MOVES)[number];
/** Every move of the operator's: those and receiving (a confirmation). */
export const OPERATOR_RECEIPT_ACTIONS = [...OPERATOR_RECEIPT_MOVES, 'receive'] as const satisfies readonly ReceiptMove[];

export function mayMove(move: ReceiptMove, status: string): boolean {
  return (RECEIPT_MOVES[move].from as readonly string[]).includes(status);
}

/** Refuses (409, naming the current status) a move the receipt's status does not allow. */
export function requireMove(receipt: { svcpoid: string; status: string }, move: ReceiptMove): void {
  if (!mayMove(move, receipt.status)) throw conflict(RECEIPT_MOVES[move].refusal(receipt.svcpoid, receipt.status));
}

/** The operator's moves that the status allows now: what a screen offers (the customer's moves are the customer's). */
export function operatorMovesFrom(status: string): ReceiptMove[] {
  return (Object.keys(RECEIPT_MOVES) as ReceiptMove[]).filter((move) => RECEIPT_MOVES[move].by === 'operator' && mayMove(move, status));
}
