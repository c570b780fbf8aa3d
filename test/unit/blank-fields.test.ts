import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { Nullable, OptionalText } from '../../src/http/schemas.js';
import { dropBlankOptionalFields } from '../../src/lib/blank-fields.js';
import { ItemImportRequestSchema } from '../../src/modules/items/items.schemas.js';
import { ReceiptImportRequestSchema } from '../../src/modules/receipts/receipts.schemas.js';

/** dropBlankOptionalFields: `""` and white space are absent on optional fields, by the schema, in place. */

const dropped = (schema: object, body: unknown) => {
  dropBlankOptionalFields(schema, body);
  return body;
};

describe('dropBlankOptionalFields', () => {
  const Schema = Type.Object({
    Required: Type.String(),
    Text: OptionalText(10),
    Number: Type.Optional(Type.Number()),
    Nested: Type.Optional(Nullable(Type.Object({ Inner: OptionalText(5), Needed: Type.String() }))),
    Lines: Type.Optional(Type.Array(Type.Object({ Lot: OptionalText(5), Qty: Type.String() }))),
    Tags: Type.Optional(Type.Array(Type.String())),
  });

  it('removes blank optional fields at every level, keeping required ones, unknown keys and array elements', () => {
    const body = {
      Required: '',
      Text: '   ',
      Number: '',
      Nested: { Inner: '\t', Needed: ' ' },
      Lines: [
        { Lot: '', Qty: '' },
        { Lot: 'L1', Qty: '1' },
      ],
      Tags: ['', ' '],
      Unknown: '',
    };
    expect(dropped(Schema, body)).toEqual({
      Required: '',
      Nested: { Needed: ' ' },
      Lines: [{ Qty: '' }, { Lot: 'L1', Qty: '1' }],
      Tags: ['', ' '],
      Unknown: '',
    });
  });

  it('keeps values that are not blank texts, and bodies of the wrong shape as they are', () => {
    const body = { Required: 'x', Text: ' a ', Number: 0, Nested: null, Lines: 'not an array' };
    expect(dropped(Schema, structuredClone(body))).toEqual(body);
    expect(dropped(Schema, 'text')).toBe('text');
    expect(dropped(Schema, [{ Text: '' }])).toEqual([{ Text: '' }]);
  });

  it('follows the RN import: ActionCode, ReceivingPriority, Pallets and ReceiptType alike', () => {
    const body = {
      CompanyID: 'C',
      CustomerID: 'CU',
      FacilityID: 'F',
      TitleID: '',
      ASNContent: {
        PONo: '',
        ReceiptType: '',
        ActionCode: '',
        Status: '',
        Items: [
          { ItemNumber: 'A', ExpectedQty: '1', UOM: 'EA', Pallets: ' ', ReceivingPriority: '', 'Receiving Priority': '', POLineNo: '' },
        ],
      },
    };
    expect(dropped(ReceiptImportRequestSchema, body)).toEqual({
      CompanyID: 'C',
      CustomerID: 'CU',
      FacilityID: 'F',
      ASNContent: { PONo: '', Status: '', Items: [{ ItemNumber: 'A', ExpectedQty: '1', UOM: 'EA' }] },
    });
  });

  it('follows the item master import into each item', () => {
    const body = { CompanyID: 'C', CustomerID: 'CU', Items: [{ itemID: 'A', status: '', itemDescription: ' ', BaseWeight: '' }] };
    expect(dropped(ItemImportRequestSchema, body)).toEqual({ CompanyID: 'C', CustomerID: 'CU', Items: [{ itemID: 'A' }] });
  });
});
