import type { BalanceKeyColumns } from './inventory.tables.js';

/**
 * What names a balance (docs/orders.md): its scope (company, customer, facility) and its key (item, UOM,
 * lot, goods type, title, inventory status, expiration date), the one order of keys every writer
 * follows, and the columns, rows and messages that carry a key.
 */

export const DEFAULT_INVENTORY_STATUS = 'Available';

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

/** A key as a line names it; absent or null values mean '' (inventory status: Available). */
export interface BalanceKeyInput {
  itemId: string;
  uom: string;
  lotNo?: string | null;
  goodsType?: string | null;
  titleId?: string | null;
  inventoryStatus?: string | null;
  expirationDate?: string | null;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The key a line names, absent values as ''. A malformed line is a bug of the calling module. */
export function normalizeBalanceKey(line: BalanceKeyInput): BalanceKey {
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

/** The columns of a balance's key below its scope, in compareBalanceKeys' order. */
export const BALANCE_KEY_COLUMNS = ['item_id', 'uom', 'lot_no', 'goods_type', 'title_id', 'inventory_status', 'expiration_date'] as const;

/** A balance's key columns, in the order of the balances' primary key: its scope, then its key. */
export const KEY_COLUMNS = ['company_id', 'customer_id', 'facility_id', ...BALANCE_KEY_COLUMNS] as const;

/** Rows by their scope and then in compareBalanceKeys' order, read off their columns: each scope's rows together. */
export function compareBalanceColumns(a: BalanceKeyColumns, b: BalanceKeyColumns): number {
  for (const column of KEY_COLUMNS) {
    if (a[column] !== b[column]) return a[column] < b[column] ? -1 : 1;
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

/** One text per balance: what tells two rows of one balance apart from rows of others. */
export function balanceIdOf(columns: BalanceKeyColumns): string {
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
