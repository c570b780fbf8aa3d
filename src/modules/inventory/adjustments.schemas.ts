import { Type, type Static } from '@sinclair/typebox';
import {
  CompanyID,
  CustomerID,
  FacilityID,
  Nullable,
  OptionalDateTime,
  OptionalText,
  Quantity,
  StringEnum,
  Uom,
} from '../../http/schemas.js';
import { INVENTORY_STATUSES, balanceKeyProperties } from './inquiry.schemas.js';

/** The 3PL adjustments (docs/compatibility.md): quantity changes and property moves of a customer's stock. */

/** As on receipts and orders; inventory sits below them and does not import their schemas. */
const ADJUSTMENT_STATUSES = ['Success', 'Warning'] as const;

/** Every way of writing zero that the decimal shape lets through: "0", "-0.00", 0, … */
const ZERO_TEXT = '^-?0+(\\.0+)?$';

/**
 * A signed quantity that is not zero. The `not` sits in its own subschema, so a zero gets its own
 * message (`Items[0].Qty must not be 0`) instead of the decimal shape's.
 */
const NonZeroQuantity = (description: string) => {
  const signed = Quantity({ signed: true, description });
  return Type.Unsafe<string | number>({
    ...signed,
    allOf: [
      {
        not: {
          anyOf: [
            { type: 'string', pattern: ZERO_TEXT },
            { type: 'number', const: 0 },
          ],
        },
        'x-message': 'must not be 0',
      },
    ],
  });
};

const AdjustmentNo = Type.String({
  minLength: 1,
  maxLength: 50,
  description: 'Applied once per customer in a facility: the same body again replays the first answer, another body is 409.',
});
const ItemNumber = Type.String({ minLength: 1, maxLength: 30 });
const StockUom = Uom('EA (each) or CS (case): the UOM the stock is kept in.');

/** The key fields of a balance below item and UOM; absent or null means the empty value. */
const balanceProperties = {
  LotNo: OptionalText(50),
  GoodsType: OptionalText(10),
  TitleID: OptionalText(50),
  InventoryStatus: Type.Optional(Nullable(StringEnum(INVENTORY_STATUSES, { description: 'Default Available.' }))),
  ExpirationDate: OptionalDateTime('calendar-date', 10, '2026-12-31', 'The lot’s expiration date, yyyy-MM-dd.'),
};

const header = {
  CompanyID,
  FacilityID,
  CustomerID,
  AdjustmentNo,
  ReasonCode: OptionalText(50),
  Note: OptionalText(1000),
};

export const QuantityAdjustmentLineSchema = Type.Object({
  ItemNumber,
  ...balanceProperties,
  UOM: StockUom,
  Qty: NonZeroQuantity('Signed change of on-hand (decimal, not 0): positive adds, negative takes.'),
});
export type QuantityAdjustmentLine = Static<typeof QuantityAdjustmentLineSchema>;

export const QuantityAdjustmentRequestSchema = Type.Object(
  { ...header, Items: Type.Array(QuantityAdjustmentLineSchema, { minItems: 1, maxItems: 1000 }) },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        FacilityID: 'LAX1',
        CustomerID: 'ACME',
        AdjustmentNo: 'ADJ-DEMO-0001',
        ReasonCode: 'CYCLE-COUNT',
        Note: 'Cycle count of aisle 12',
        Items: [
          { ItemNumber: 'TEE-BLK-M', UOM: 'EA', Qty: '-2' },
          { ItemNumber: 'MUG-BLUE-12', LotNo: 'L2409', ExpirationDate: '2027-09-30', UOM: 'EA', Qty: '3' },
        ],
      },
    ],
  },
);
export type QuantityAdjustmentRequest = Static<typeof QuantityAdjustmentRequestSchema>;

const PropertySideSchema = (description: string) => Type.Object(balanceProperties, { description });

export const PropertyMoveLineSchema = Type.Object({
  ItemNumber,
  UOM: StockUom,
  Qty: Quantity({ description: 'How much moves (positive decimal).' }),
  From: PropertySideSchema('The balance the stock leaves: a key that is absent or null is the empty value (InventoryStatus: Available).'),
  To: PropertySideSchema(
    'The balance the stock enters: a key that is absent or null keeps its From value; "" sets the empty value. Must differ from From.',
  ),
});
export type PropertyMoveLine = Static<typeof PropertyMoveLineSchema>;
export type PropertySide = PropertyMoveLine['From'];

export const PropertyAdjustmentRequestSchema = Type.Object(
  { ...header, Items: Type.Array(PropertyMoveLineSchema, { minItems: 1, maxItems: 1000 }) },
  {
    examples: [
      {
        CompanyID: 'DEMO',
        FacilityID: 'LAX1',
        CustomerID: 'ACME',
        AdjustmentNo: 'MOVE-DEMO-0001',
        ReasonCode: 'QA-HOLD',
        Note: 'Chipped rims reported on the newer lot',
        Items: [
          {
            ItemNumber: 'MUG-BLUE-12',
            UOM: 'EA',
            Qty: '12',
            From: { LotNo: 'L2409', ExpirationDate: '2027-09-30' },
            To: { InventoryStatus: 'Hold' },
          },
        ],
      },
    ],
  },
);
export type PropertyAdjustmentRequest = Static<typeof PropertyAdjustmentRequestSchema>;

/** A balance an adjustment changed and what it holds right after that change. */
export const AdjustedBalanceSchema = Type.Object({
  ...balanceKeyProperties,
  UOM: Uom(),
  Qty: Type.String({ description: 'The signed change of on-hand (decimal text, exact).' }),
  OnHand: Type.String({ description: 'On hand right after this change (decimal text, exact).' }),
});
export type AdjustedBalance = Static<typeof AdjustedBalanceSchema>;

const adjustmentResultProperties = {
  Adjustment: Type.Object({
    AdjustmentNo: Type.String(),
    Status: StringEnum(ADJUSTMENT_STATUSES, { description: 'Warning when Warnings is not empty.' }),
    Warnings: Type.Array(Type.String(), { description: 'Items missing from the item master.' }),
    Items: Type.Array(AdjustedBalanceSchema, {
      description: 'One entry per line (a property move: the From balance, then the To balance), in the order of the request.',
    }),
  }),
};

/** A balance of the demo's stock that an example changes: no goods type or title. */
const demoBalance = (ItemNumber: string, LotNo: string | null, ExpirationDate: string | null, InventoryStatus = 'Available') => ({
  ItemNumber,
  LotNo,
  GoodsType: null,
  TitleID: null,
  InventoryStatus,
  ExpirationDate,
  UOM: 'EA',
});

export const AdjustmentResultSchema = Type.Object(adjustmentResultProperties, {
  examples: [
    {
      Adjustment: {
        AdjustmentNo: 'ADJ-DEMO-0001',
        Status: 'Success',
        Warnings: [],
        Items: [
          { ...demoBalance('TEE-BLK-M', null, null), Qty: '-2', OnHand: '48' },
          { ...demoBalance('MUG-BLUE-12', 'L2409', '2027-09-30'), Qty: '3', OnHand: '243' },
        ],
      },
    },
  ],
});
export type AdjustmentResult = Static<typeof AdjustmentResultSchema>;

/** The same answer as the quantity adjustment's, with the example of the property move. */
export const PropertyAdjustmentResultSchema = Type.Object(adjustmentResultProperties, {
  examples: [
    {
      Adjustment: {
        AdjustmentNo: 'MOVE-DEMO-0001',
        Status: 'Success',
        Warnings: [],
        Items: [
          { ...demoBalance('MUG-BLUE-12', 'L2409', '2027-09-30'), Qty: '-12', OnHand: '228' },
          { ...demoBalance('MUG-BLUE-12', 'L2409', '2027-09-30', 'Hold'), Qty: '12', OnHand: '12' },
        ],
      },
    },
  ],
});
