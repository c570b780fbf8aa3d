import type { Actor } from '../../http/auth.js';
import { conflict } from '../../lib/refusal.js';

/**
 * An order's state machine (docs/orders.md), the one place that says which statuses there are, which
 * moves lead from which status to which, and who may make them. Services and schemas ask it.
 */

export const ORDER_STATUSES = ['Imported', 'Open', 'Partial Shipped', 'Shipped', 'Short Shipped', 'Cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface OrderMoveRule {
  by: Actor;
  from: readonly OrderStatus[];
  to: readonly OrderStatus[];
  /** Why the move is refused from `status`: the 409's message. */
  refusal: (svcpoid: string, status: string) => string;
}

export const ORDER_MOVES = {
  /** The customer imports the order again; its allocation is redone. */
  update: {
    by: 'customer',
    from: ['Imported', 'Open'],
    to: ['Imported'],
    refusal: (svcpoid, status) => `Order ${svcpoid} is ${status}; it can no longer be updated`,
  },
  /** ActionCode Cancelled or the PUT cancel; the allocation is released. */
  'customer-cancel': {
    by: 'customer',
    from: ['Imported'],
    to: ['Cancelled'],
    refusal: (svcpoid, status) => `Order ${svcpoid} is ${status}; only an Imported order can be cancelled by the customer`,
  },
  /** The operator's open, and the 3PL list with MarkOpen. */
  open: {
    by: 'operator',
    from: ['Imported'],
    to: ['Open'],
    refusal: (svcpoid, status) => `Order ${svcpoid} is ${status}; open needs Imported`,
  },
  /** The operator's cancel; the allocation is released. */
  cancel: {
    by: 'operator',
    from: ['Imported', 'Open'],
    to: ['Cancelled'],
    refusal: (svcpoid, status) => `Order ${svcpoid} is ${status}; cancel needs Imported or Open`,
  },
  /** A shipment confirmation: Partial Shipped; with Close, Shipped (all ordered shipped) or Short Shipped. */
  ship: {
    by: 'operator',
    from: ['Imported', 'Open', 'Partial Shipped'],
    to: ['Partial Shipped', 'Shipped', 'Short Shipped'],
    refusal: (svcpoid, status) => `Order ${svcpoid} is ${status}; only Imported, Open, Partial Shipped orders can be shipped`,
  },
} as const satisfies Record<string, OrderMoveRule>;

export type OrderMove = keyof typeof ORDER_MOVES;

/** The statuses in which shipping is over (an `order.closed` event); a cancelled order has its own. */
export const CLOSED_ORDER_STATUSES = ['Shipped', 'Short Shipped'] as const satisfies readonly OrderStatus[];

export function isClosed(status: OrderStatus): boolean {
  return (CLOSED_ORDER_STATUSES as readonly string[]).includes(status);
}

/** The operator's moves that are operations of their own (`…/3pl/outbound/order/<move>`). */
export const OPERATOR_ORDER_MOVES = ['open', 'cancel'] as const satisfies readonly OrderMove[];
export type OperatorOrderMove = (typeof OPERATOR_ORDER_MOVES)[number];
/** Every move of the operator's: those and shipping (a confirmation). */
export const OPERATOR_ORDER_ACTIONS = [...OPERATOR_ORDER_MOVES, 'ship'] as const satisfies readonly OrderMove[];

/** Orders whose lines still wait for stock: a backorder is filled only in these. */
export const ALLOCATING_STATUSES = ORDER_MOVES.update.from;

export function isAllocating(status: string): boolean {
  return (ALLOCATING_STATUSES as readonly string[]).includes(status);
}

export function mayMove(move: OrderMove, status: string): boolean {
  return (ORDER_MOVES[move].from as readonly string[]).includes(status);
}

/** Refuses (409, naming the current status) a move the order's status does not allow. */
export function requireMove(order: { svcpoid: string; status: string }, move: OrderMove): void {
  if (!mayMove(move, order.status)) throw conflict(ORDER_MOVES[move].refusal(order.svcpoid, order.status));
}

/** The operator's moves that the status allows now: what a screen offers (the customer's moves are the customer's). */
export function operatorMovesFrom(status: string): OrderMove[] {
  return (Object.keys(ORDER_MOVES) as OrderMove[]).filter((move) => ORDER_MOVES[move].by === 'operator' && mayMove(move, status));
}
