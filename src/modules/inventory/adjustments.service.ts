import type { Db, Trx } from '../../db/database.js';
import type { CommandContext } from '../../http/command-context.js';
import { asScaled, formatDecimal, parseDecimal } from '../../lib/decimal.js';
import { invalid } from '../../lib/refusal.js';
import { replayApplied, runCommand } from '../commands/commands.service.js';
import * as events from '../events/events.service.js';
import * as items from '../items/items.service.js';
import * as repo from './adjustments.repository.js';
import type {
  AdjustedBalance,
  AdjustmentResult,
  PropertyAdjustmentRequest,
  PropertyMoveLine,
  QuantityAdjustmentRequest,
} from './adjustments.schemas.js';
import * as inventory from './inventory.service.js';

/**
 * The operator's adjustments (docs/compatibility.md, docs/orders.md): quantity changes and property moves, each applied
 * once per AdjustmentNo of a customer in a facility, all lines or none, through postStock.
 */

/** What both operations share: the header and the item of each line. */
interface AdjustmentRequest {
  CompanyID: string;
  FacilityID: string;
  CustomerID: string;
  AdjustmentNo: string;
  ReasonCode?: string | null;
  Note?: string | null;
  Items: { ItemNumber: string }[];
}

/** What an adjustment posts, worked out from its request before anything is written. */
interface Postings {
  kind: 'qty' | 'property';
  sourceType: inventory.StockSourceType;
  lines: inventory.StockPostingLine[];
}

function numberOf(request: AdjustmentRequest): repo.AdjustmentNumber {
  return {
    companyId: request.CompanyID,
    facilityId: request.FacilityID,
    customerId: request.CustomerID,
    adjustmentNo: request.AdjustmentNo,
  };
}

/** Absent key values ('' in the database) are null, as in the inventory reads. */
const orNull = (value: string) => (value === '' ? null : value);

function presentBalance(line: inventory.PostedLine): AdjustedBalance {
  return {
    ItemNumber: line.itemId,
    LotNo: orNull(line.lotNo),
    GoodsType: orNull(line.goodsType),
    TitleID: orNull(line.titleId),
    InventoryStatus: line.inventoryStatus as AdjustedBalance['InventoryStatus'],
    ExpirationDate: orNull(line.expirationDate),
    UOM: line.uom as AdjustedBalance['UOM'],
    Qty: formatDecimal(line.quantity),
    OnHand: formatDecimal(line.onHand),
  };
}

/** An item missing from the customer's item master is adjusted anyway, with a warning. */
async function unknownItemWarnings(db: Db, request: AdjustmentRequest): Promise<string[]> {
  const itemIds = request.Items.map((line) => line.ItemNumber);
  const unknown = await items.findUnknownItemIds(db, request.CompanyID, request.CustomerID, itemIds);
  return unknown.length > 0 ? [`Items not in the item master: ${unknown.join(', ')}`] : [];
}

/** The adjustment's row as its number claims it, its answer still to come. */
function numberRow(
  request: AdjustmentRequest,
  kind: Postings['kind'],
  requestHash: string,
  keyId: number,
  at: number,
): repo.NewAdjustmentRow {
  return {
    company_id: request.CompanyID,
    facility_id: request.FacilityID,
    customer_id: request.CustomerID,
    adjustment_no: request.AdjustmentNo,
    kind,
    reason_code: request.ReasonCode ?? null,
    note: request.Note ?? null,
    request_hash: requestHash,
    answer: '',
    key_id: keyId,
    created_at: at,
  };
}

function post(trx: Trx, request: AdjustmentRequest, postings: Postings, keyId: number, at: number) {
  return inventory.postStock(trx, {
    companyId: request.CompanyID,
    customerId: request.CustomerID,
    facilityId: request.FacilityID,
    keyId,
    sourceType: postings.sourceType,
    sourceId: request.AdjustmentNo,
    at,
    lines: postings.lines,
  });
}

function answerOf(request: AdjustmentRequest, warnings: string[], posted: inventory.PostedLine[]): AdjustmentResult {
  return {
    Adjustment: {
      AdjustmentNo: request.AdjustmentNo,
      Status: warnings.length > 0 ? 'Warning' : 'Success',
      Warnings: warnings,
      Items: posted.map(presentBalance),
    },
  };
}

/** How an inventory.adjusted event names each kind (the balances it changed follow in inventory.changed). */
const ADJUSTMENT_TYPES: Record<Postings['kind'], string> = { qty: 'Quantity', property: 'Property' };

/**
 * Applies an adjustment once per AdjustmentNo, in the request's one transaction; its event tells
 * which. The number's row is written before the stock is posted: a concurrent request with the same
 * AdjustmentNo waits on the row's unique key instead of posting, so it never sees the stock this
 * one took and answers 409 for an applied adjustment.
 *
 * A new number is the rule, so the first attempt inserts the row without waiting for its answer
 * (one round trip fewer on PostgreSQL). A number applied before then fails the attempt with a
 * unique violation before anything is posted, and the transaction runs again (inTransaction). Every
 * later attempt claims the number and waits for the answer: it finds the number applied and
 * replays the earlier answer or refuses another body.
 */
async function applyOnce(cx: CommandContext, request: AdjustmentRequest, postings: Postings): Promise<AdjustmentResult> {
  const { identity, principal } = cx;
  // Read before the transaction, from committed items, which the item master remembers once found.
  const warnings = await unknownItemWarnings(cx.db, request);
  let attempts = 0;
  return runCommand(cx, {
    run: async (trx) => {
      const at = cx.clock.now();
      const row = numberRow(request, postings.kind, identity.requestHash, principal.keyId, at);
      attempts += 1;
      if (attempts === 1) await repo.insertNumber(trx, row);
      else if (!(await repo.claimNumber(trx, row))) {
        const earlier = (await repo.findAdjustment(trx, numberOf(request)))!;
        return replayApplied<AdjustmentResult>(
          cx,
          earlier,
          `AdjustmentNo ${request.AdjustmentNo} was already applied with a different body`,
        );
      }
      const answer = answerOf(request, warnings, await post(trx, request, postings, principal.keyId, at));
      await repo.setAnswer(trx, numberOf(request), JSON.stringify(answer));
      events.recordEvent(trx, {
        type: 'inventory.adjusted',
        keyId: principal.keyId,
        at,
        data: {
          CompanyID: request.CompanyID,
          CustomerID: request.CustomerID,
          FacilityID: request.FacilityID,
          AdjustmentNo: request.AdjustmentNo,
          AdjustmentType: ADJUSTMENT_TYPES[postings.kind],
          ReasonCode: request.ReasonCode ?? null,
          Status: answer.Adjustment.Status,
          Lines: request.Items.length,
        },
      });
      return answer;
    },
  });
}

/**
 * inventory-adjust-qty-incremental: adds each line's signed Qty to its balance. A line that would
 * take a balance below its allocation (or below zero) refuses the whole adjustment (409).
 */
export function adjustQuantities(cx: CommandContext, request: QuantityAdjustmentRequest): Promise<AdjustmentResult> {
  const lines = request.Items.map((line, index) => ({
    itemId: line.ItemNumber,
    uom: line.UOM,
    lotNo: line.LotNo,
    goodsType: line.GoodsType,
    titleId: line.TitleID,
    inventoryStatus: line.InventoryStatus,
    expirationDate: line.ExpirationDate,
    quantity: parseDecimal(line.Qty),
    sourceLine: String(index + 1),
  }));
  return applyOnce(cx, request, { kind: 'qty', sourceType: 'adjustment', lines });
}

/** The balances a move leaves and enters: From's absent keys are empty, To's keep From's value. */
function moveKeys(line: PropertyMoveLine): { from: inventory.BalanceKey; to: inventory.BalanceKey } {
  const from = inventory.normalizeBalanceKey({
    itemId: line.ItemNumber,
    uom: line.UOM,
    lotNo: line.From.LotNo,
    goodsType: line.From.GoodsType,
    titleId: line.From.TitleID,
    inventoryStatus: line.From.InventoryStatus,
    expirationDate: line.From.ExpirationDate,
  });
  const to = inventory.normalizeBalanceKey({
    itemId: line.ItemNumber,
    uom: line.UOM,
    lotNo: line.To.LotNo ?? from.lotNo,
    goodsType: line.To.GoodsType ?? from.goodsType,
    titleId: line.To.TitleID ?? from.titleId,
    inventoryStatus: line.To.InventoryStatus ?? from.inventoryStatus,
    expirationDate: line.To.ExpirationDate ?? from.expirationDate,
  });
  return { from, to };
}

/**
 * inventory-adjust-property: moves each line's Qty from one balance of an item to another (−Qty on
 * From, +Qty on To, in one posting). A From that holds less than Qty beyond its allocation refuses
 * the whole adjustment (409): allocated stock cannot move. A line whose To names its From is 400.
 */
export async function moveProperties(cx: CommandContext, request: PropertyAdjustmentRequest): Promise<AdjustmentResult> {
  const moves = request.Items.map((line) => ({ ...moveKeys(line), quantity: parseDecimal(line.Qty) }));
  const unchanged = moves.flatMap(({ from, to }, index) =>
    inventory.compareBalanceKeys(from, to) === 0
      ? [`Items[${index}].To must change at least one of LotNo, GoodsType, TitleID, InventoryStatus, ExpirationDate`]
      : [],
  );
  if (unchanged.length > 0) throw invalid(...unchanged);
  const lines = moves.flatMap(({ from, to, quantity }, index) => [
    { ...from, quantity: asScaled(-quantity), sourceLine: String(index + 1) },
    { ...to, quantity, sourceLine: String(index + 1) },
  ]);
  return applyOnce(cx, request, { kind: 'property', sourceType: 'property-move', lines });
}
