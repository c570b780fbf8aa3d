import { formatFacilityLocal } from '../../http/time.js';
import { formatDecimal } from '../../lib/decimal.js';
import type { LedgerRow } from './inventory.repository.js';
import type { BalanceKey } from './balance-keys.js';
import type { Balance } from './inventory.service.js';
import type { InventoryRow, InventoryStatus, PostingRow } from './inquiry.schemas.js';

/** Balances and postings → the wire rows of the inventory reads. Absent key values ('' in the database) are null. */

const orNull = (value: string) => (value === '' ? null : value);

/** A balance's key and quantities, as the inventory search and the inventory.changed event show them. */
export function presentBalance(key: BalanceKey, quantities: Pick<Balance, 'onHand' | 'allocated' | 'available'>): InventoryRow {
  return {
    ItemNumber: key.itemId,
    LotNo: orNull(key.lotNo),
    GoodsType: orNull(key.goodsType),
    TitleID: orNull(key.titleId),
    InventoryStatus: key.inventoryStatus as InventoryStatus,
    ExpirationDate: orNull(key.expirationDate),
    UOM: key.uom,
    OnHand: formatDecimal(quantities.onHand),
    Allocated: formatDecimal(quantities.allocated),
    Available: formatDecimal(quantities.available),
  };
}

export function presentPosting(row: LedgerRow, timeZone: string): PostingRow {
  return {
    ID: row.id,
    CreatedWhen: formatFacilityLocal(row.created_at, timeZone),
    CustomerID: row.customer_id,
    ItemNumber: row.item_id,
    LotNo: orNull(row.lot_no),
    GoodsType: orNull(row.goods_type),
    TitleID: orNull(row.title_id),
    InventoryStatus: row.inventory_status as InventoryStatus,
    ExpirationDate: orNull(row.expiration_date),
    UOM: row.uom,
    Qty: formatDecimal(row.quantity),
    OnHandAfter: formatDecimal(row.on_hand_after),
    SourceType: row.source_type as PostingRow['SourceType'],
    SourceID: row.source_id,
    SourceLine: orNull(row.source_line),
    KeyID: row.key_id,
  };
}
