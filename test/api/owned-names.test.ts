import type { TSchema } from '@sinclair/typebox';
import { beforeAll, describe, expect, it } from 'vitest';
import { AckFailureSchema, AckRecordSchema, AckSuccessSchema } from '../../src/modules/acks/acks.schemas.js';
import { ITEM_HEAD } from '../../src/modules/items/items.fields.js';
import { ITEM_OWNED_NAMES, ItemImportResultSchema, ItemInputSchema } from '../../src/modules/items/items.schemas.js';
import { DcItemSchema, DcRecordSchema, DcSchema, ORDER_LEVEL_HEAD } from '../../src/modules/orders/order-searches.schemas.js';
import { ORDER_OWNED_NAMES, OrderImportRequestSchema, OrderImportResultSchema } from '../../src/modules/orders/orders.schemas.js';
import { OrderDocumentSchema } from '../../src/modules/orders/shipping.schemas.js';
import {
  RcCartonLineSchema,
  RcCartonSchema,
  RcItemSchema,
  RcRecordSchema,
  RcSchema,
  RECEIPT_LEVEL_HEAD,
} from '../../src/modules/receipts/receipt-searches.schemas.js';
import { RECEIPT_OWNED_NAMES, ReceiptImportRequestSchema, ReceiptImportResultSchema } from '../../src/modules/receipts/receipts.schemas.js';
import { ReceiptDocumentSchema } from '../../src/modules/receipts/receiving.schemas.js';
import { useTestApp } from '../helpers/app.js';
import { describeEachDialect } from '../helpers/dialects.js';
import { createKey, createTenant, idsOf, orderBody, problems, receiptBody, stock, uniqueId, type Tenant } from '../helpers/factories.js';
import { SHIP_TO } from '../helpers/orders.js';
import * as paths from '../helpers/paths.js';

/**
 * Names Wharf owns (docs/compatibility.md): an import that carries, anywhere in its body, a key
 * that Wharf's own answers about the document use and that is not a field of the object it sits
 * in, is refused (400 naming the key, the failure ACK of any refused import, nothing stored). The
 * import keeps unknown keys and the 3PL get shows them back beside Wharf's own, so a customer's
 * `CompanyID`, `ReceivedQty` or line `SVCPOID` would read as Wharf's. Unknown keys Wharf does not
 * use (`Title`, `Source`, `Kitting`, …) are kept as before. The lists are checked against the
 * answers: a key an answer gains fails here until the list (and the document) names it.
 */

type Json = Record<string, unknown>;

const MESSAGE = "is not allowed here: Wharf's own answers use this name";
const refusal = (path: string) => `${path} ${MESSAGE}`;

/** The property names of an object schema, read through array and object nesting by `steps`. */
function keysOf(schema: unknown, ...steps: string[]): string[] {
  let at = schema as { properties?: Record<string, unknown>; items?: unknown };
  for (const step of steps) at = (step === '[]' ? at.items : at.properties![step]) as typeof at;
  return Object.keys(at.properties!);
}

/** At most this many names a request, so that every refusal is listed (a body's problems stop at 100). */
const CHUNK = 40;
const chunks = <T>(values: readonly T[]) =>
  Array.from({ length: Math.ceil(values.length / CHUNK) }, (_, i) => values.slice(i * CHUNK, (i + 1) * CHUNK));

/** One object of an import body: where its keys are named, its own fields, and how a key is put in it. */
interface Level {
  path: string;
  fields: string[];
  place: (extra: Json) => Json;
}

describeEachDialect('names Wharf owns', (dialect) => {
  const ctx = useTestApp(dialect);
  let tenant: Tenant;
  let other: Tenant;
  let customerKey: string;
  let operatorKey: string;

  beforeAll(async () => {
    const { database, clock } = ctx();
    tenant = await createTenant(database.db, clock);
    other = await createTenant(database.db, clock);
    customerKey = await createKey(database.db, clock, tenant, 'customer');
    operatorKey = await createKey(database.db, clock, tenant, 'operator');
    await ctx().post(
      paths.ITEM_IMPORT,
      { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0], Items: [{ itemID: 'SKU-1' }] },
      customerKey,
    );
  });

  const facility = () => ({ CompanyID: tenant.companyId, FacilityID: tenant.facilityIds[0] });
  const ackSearch = (path: string, filter: Json) => ctx().post(path, { ...idsOf(tenant), ...filter }, customerKey);
  const countRows = async (table: 'receipts' | 'orders', column: 'po_no' | 'reference_no', value: string) =>
    (
      await ctx()
        .database.db.selectFrom(table)
        .select('svcpoid')
        .where('company_id', '=', tenant.companyId)
        .where(column, '=', value)
        .execute()
    ).length;
  const get = async (path: string, svcpoid: string) => {
    const response = await ctx().post(`${path}/get`, { ...facility(), SVCPOID: svcpoid }, operatorKey);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Json;
  };

  // ---- receipts -----------------------------------------------------------------------------

  const rnLine = (extra: Json = {}) => ({ ItemNumber: 'SKU-1', ExpectedQty: '10', UOM: 'EA', ...extra });
  const rnBody = (poNo: string, { root = {}, content = {} }: { root?: Json; content?: Json } = {}) =>
    receiptBody({ tenant, root, content: { PONo: poNo, ...content } });
  const RN_LEVELS = (poNo: string): Level[] => [
    { path: '', fields: keysOf(ReceiptImportRequestSchema), place: (extra) => rnBody(poNo, { root: extra }) },
    { path: 'ASNContent.', fields: keysOf(ReceiptImportRequestSchema, 'ASNContent'), place: (extra) => rnBody(poNo, { content: extra }) },
    {
      path: 'ASNContent.Items[0].',
      fields: keysOf(ReceiptImportRequestSchema, 'ASNContent', 'Items', '[]'),
      place: (extra) => rnBody(poNo, { content: { Items: [rnLine(extra)] } }),
    },
    {
      path: 'ASNContent.Cartons[0].',
      fields: keysOf(ReceiptImportRequestSchema, 'ASNContent', 'Cartons', '[]'),
      place: (extra) => rnBody(poNo, { content: { Cartons: [{ CartonNo: 'C1', ...extra }] } }),
    },
    {
      path: 'ASNContent.Cartons[0].ItemLines[0].',
      fields: keysOf(ReceiptImportRequestSchema, 'ASNContent', 'Cartons', '[]', 'ItemLines', '[]'),
      place: (extra) =>
        rnBody(poNo, {
          content: { Cartons: [{ CartonNo: 'C1', ItemLines: [{ ItemID: 'SKU-1', QtyInCarton: '1', UOM: 'EA', ...extra }] }] },
        }),
    },
  ];

  it('RN import: each name Wharf owns, at each level of the body, is 400 naming it; nothing is stored and the failure ACK says why', async () => {
    const poNo = uniqueId('PO');
    let refusedRequests = 0;
    for (const level of RN_LEVELS(poNo)) {
      const refused = RECEIPT_OWNED_NAMES.filter((name) => !level.fields.includes(name));
      expect(refused.length, level.path).toBeGreaterThan(0);
      for (const names of chunks(refused)) {
        const response = await ctx().post(paths.RECEIPT_IMPORT, level.place(Object.fromEntries(names.map((n) => [n, 'x']))), customerKey);
        const messages = names.map((name) => refusal(`${level.path}${name}`));
        expect(response.statusCode, level.path).toBe(400);
        expect(response.json()).toEqual(problems(...messages));
        refusedRequests += 1;
        // The failure ACK of this refusal is the newest for the PONo.
        const acks = (await ackSearch(paths.RECEIPT_ACK_SEARCH, { PONo: poNo, Paging: { PageNo: 1, PageSize: 1000 } })).json() as Json[];
        expect(acks).toHaveLength(refusedRequests);
        expect(acks.at(-1)!.ACK).toEqual({ code: `EDI-ERROR-${messages.join('; ')}`, error: messages.join('; ') });
      }
    }
    expect(await countRows('receipts', 'po_no', poNo)).toBe(0);
  });

  it('refuses the finding: an RN import and its update carrying a CompanyID of another company, a ReceivedQty and a line SVCPOID; the 3PL get never shows them', async () => {
    const poNo = uniqueId('PO');
    const owned = { content: { CompanyID: other.companyId, ReceivedQty: '999', Items: [rnLine({ SVCPOID: 'RN-1' })] } };
    // The body's own keys come before those of its lines.
    const expected = problems(refusal('ASNContent.CompanyID'), refusal('ASNContent.ReceivedQty'), refusal('ASNContent.Items[0].SVCPOID'));
    const created = await ctx().post(paths.RECEIPT_IMPORT, rnBody(poNo, owned), customerKey);
    expect(created.statusCode).toBe(400);
    expect(created.json()).toEqual(expected);
    expect(await countRows('receipts', 'po_no', poNo)).toBe(0);

    const imported = await ctx().post(paths.RECEIPT_IMPORT, rnBody(poNo), customerKey);
    expect(imported.statusCode, imported.body).toBe(200);
    const svcpoid = (imported.json() as { Receipt: { SVCPOID: string } }).Receipt.SVCPOID;
    const before = await get(paths.THREEPL_RECEIPT, svcpoid);

    const updated = await ctx().post(paths.RECEIPT_IMPORT, rnBody(poNo, owned), customerKey);
    expect(updated.statusCode).toBe(400);
    expect(updated.json()).toEqual(expected);
    const after = await get(paths.THREEPL_RECEIPT, svcpoid);
    expect(after).toEqual(before);
    const receipt = after.Receipt as Json & { Items: Json[] };
    expect(receipt).not.toHaveProperty('CompanyID');
    expect(receipt).not.toHaveProperty('ReceivedQty');
    expect(receipt.Items[0]).not.toHaveProperty('SVCPOID');
    const acks = (await ackSearch(paths.RECEIPT_ACK_SEARCH, { PONo: poNo })).json() as { ACK: Json }[];
    expect(acks.map((record) => Object.keys(record.ACK).sort())).toEqual([
      ['code', 'error'],
      ['CustomerId', 'Error', 'PONo', 'ReferenceNo', 'SVCPOID', 'Status'],
      ['code', 'error'],
    ]);
  });

  it('RN import: unknown keys Wharf does not use are kept and shown back at every level', async () => {
    const poNo = uniqueId('PO');
    const kept = {
      Title: 'Spring restock',
      Source: 'ERP',
      PalletSizeID: 'P48x40',
      Kitting: false,
      KittingItems: [{ ItemNumber: 'SKU-2', Qty: 2 }],
    };
    const response = await ctx().post(
      paths.RECEIPT_IMPORT,
      rnBody(poNo, {
        root: { Channel: 'EDI' },
        content: {
          ...kept,
          Items: [rnLine({ LineColour: 'blue' })],
          Cartons: [{ CartonNo: 'C1', Seal: 'S1', ItemLines: [{ ItemID: 'SKU-1', QtyInCarton: '1', UOM: 'EA', Shelf: 'A' }] }],
        },
      }),
      customerKey,
    );
    expect(response.statusCode, response.body).toBe(200);
    const receipt = (await get(paths.THREEPL_RECEIPT, response.json().Receipt.SVCPOID)).Receipt as Json & { Items: Json[] };
    expect(receipt).toMatchObject({ ...kept, Channel: 'EDI' });
    expect(receipt.Items[0]).toMatchObject({ LineColour: 'blue' });
    expect(receipt.Cartons).toEqual([
      { CartonNo: 'C1', Seal: 'S1', ItemLines: [{ ItemID: 'SKU-1', QtyInCarton: '1', UOM: 'EA', Shelf: 'A' }] },
    ]);
  });

  // ---- orders -------------------------------------------------------------------------------

  const dnLine = (extra: Json = {}) => ({ ItemID: 'SKU-1', OrderedQty: '1', UOM: 'EA', ...extra });
  const dnBody = (referenceNo: string, { root = {}, content = {} }: { root?: Json; content?: Json } = {}) =>
    orderBody({ tenant, root, content: { ReferenceNo: referenceNo, Items: [dnLine()], ...content } });
  const DN_LEVELS = (referenceNo: string): Level[] => [
    { path: '', fields: keysOf(OrderImportRequestSchema), place: (extra) => dnBody(referenceNo, { root: extra }) },
    {
      path: 'POContent.',
      fields: keysOf(OrderImportRequestSchema, 'POContent'),
      place: (extra) => dnBody(referenceNo, { content: extra }),
    },
    {
      path: 'POContent.Items[0].',
      fields: keysOf(OrderImportRequestSchema, 'POContent', 'Items', '[]'),
      place: (extra) => dnBody(referenceNo, { content: { Items: [dnLine(extra)] } }),
    },
    {
      path: 'POContent.Address.',
      fields: keysOf(OrderImportRequestSchema, 'POContent', 'Address'),
      place: (extra) => dnBody(referenceNo, { content: { Address: { ...SHIP_TO, ...extra } } }),
    },
    {
      path: 'POContent.ShippingInfo.',
      fields: keysOf(OrderImportRequestSchema, 'POContent', 'ShippingInfo'),
      place: (extra) => dnBody(referenceNo, { content: { ShippingInfo: { FreightTerm: 'PP', ...extra } } }),
    },
    {
      path: 'POContent.OrderNotes.',
      fields: keysOf(OrderImportRequestSchema, 'POContent', 'OrderNotes'),
      place: (extra) => dnBody(referenceNo, { content: { OrderNotes: { LabelNote: 'Fragile', ...extra } } }),
    },
  ];

  it('DN import: each name Wharf owns, at each level of the body, is 400 naming it; nothing is stored and the failure ACK says why', async () => {
    const referenceNo = uniqueId('SO');
    let refusedRequests = 0;
    for (const level of DN_LEVELS(referenceNo)) {
      const refused = ORDER_OWNED_NAMES.filter((name) => !level.fields.includes(name));
      expect(refused.length, level.path).toBeGreaterThan(0);
      for (const names of chunks(refused)) {
        const response = await ctx().post(paths.ORDER_IMPORT, level.place(Object.fromEntries(names.map((n) => [n, 'x']))), customerKey);
        const messages = names.map((name) => refusal(`${level.path}${name}`));
        expect(response.statusCode, level.path).toBe(400);
        expect(response.json()).toEqual(problems(...messages));
        refusedRequests += 1;
        const acks = (
          await ackSearch(paths.ORDER_ACK_SEARCH, { ReferenceNo: referenceNo, Paging: { PageNo: 1, PageSize: 1000 } })
        ).json() as Json[];
        expect(acks).toHaveLength(refusedRequests);
        expect(acks.at(-1)!.ACK).toEqual({ code: `EDI-ERROR-${messages.join('; ')}`, error: messages.join('; ') });
      }
    }
    expect(await countRows('orders', 'reference_no', referenceNo)).toBe(0);
  });

  it('refuses the finding on orders: a DN import and its update carrying a CompanyID of another company, a ShippedQty and a line SVCPOID; the 3PL get never shows them', async () => {
    const referenceNo = uniqueId('SO');
    const owned = { content: { CompanyID: other.companyId, ShippedQty: '999', Items: [dnLine({ SVCPOID: 'DN-1', Status: 'Shipped' })] } };
    const expected = problems(
      refusal('POContent.CompanyID'),
      refusal('POContent.ShippedQty'),
      refusal('POContent.Items[0].SVCPOID'),
      refusal('POContent.Items[0].Status'),
    );
    const created = await ctx().post(paths.ORDER_IMPORT, dnBody(referenceNo, owned), customerKey);
    expect(created.statusCode).toBe(400);
    expect(created.json()).toEqual(expected);
    expect(await countRows('orders', 'reference_no', referenceNo)).toBe(0);

    const imported = await ctx().post(paths.ORDER_IMPORT, dnBody(referenceNo), customerKey);
    expect(imported.statusCode, imported.body).toBe(200);
    const svcpoid = (imported.json() as { Order: { SVCPOID: string } }).Order.SVCPOID;
    const before = await get(paths.THREEPL_ORDER, svcpoid);

    const updated = await ctx().post(paths.ORDER_IMPORT, dnBody(referenceNo, owned), customerKey);
    expect(updated.statusCode).toBe(400);
    expect(updated.json()).toEqual(expected);
    const after = await get(paths.THREEPL_ORDER, svcpoid);
    expect(after).toEqual(before);
    const order = after.Order as Json & { Items: Json[] };
    expect(order).not.toHaveProperty('CompanyID');
    expect(order).not.toHaveProperty('ShippedQty');
    expect(order.Items[0]).not.toHaveProperty('SVCPOID');
    expect(order.Items[0]).not.toHaveProperty('Status');
  });

  it('DN import: unknown keys Wharf does not use are kept and shown back at every level, Source included', async () => {
    const referenceNo = uniqueId('SO');
    const response = await ctx().post(
      paths.ORDER_IMPORT,
      dnBody(referenceNo, {
        root: { Source: 'ERP-7' },
        content: {
          Source: 'shop',
          Kitting: 'Y',
          Address: { ...SHIP_TO, Building: 'B' },
          ShippingInfo: { FreightTerm: 'PP', Title: 'rush' },
          OrderNotes: { GiftNote: 'Happy birthday' },
          Items: [dnLine({ Source: 'shop', Colour: 'red' })],
        },
      }),
      customerKey,
    );
    expect(response.statusCode, response.body).toBe(200);
    const order = (await get(paths.THREEPL_ORDER, response.json().Order.SVCPOID)).Order as Json & { Items: Json[] };
    expect(order).toMatchObject({
      Source: 'shop',
      Kitting: 'Y',
      Address: { Building: 'B' },
      ShippingInfo: { FreightTerm: 'PP', Title: 'rush' },
      OrderNotes: { GiftNote: 'Happy birthday' },
    });
    expect(order.Items[0]).toMatchObject({ Source: 'shop', Colour: 'red' });
  });

  // ---- the item master ----------------------------------------------------------------------

  it('item import: Status, CompanyID, CustomerID, ItemID and Sequence in an item are 400 naming them, and the item is not stored', async () => {
    const itemID = uniqueId('SKU');
    const refused = ITEM_OWNED_NAMES.filter((name) => !keysOf(ItemInputSchema).includes(name));
    expect(refused).toEqual(['Status', 'CompanyID', 'CustomerID', 'ItemID', 'Sequence']);
    const response = await ctx().post(
      paths.ITEM_IMPORT,
      {
        CompanyID: tenant.companyId,
        CustomerID: tenant.customerIds[0],
        Items: [
          {
            itemID,
            Status: 'Inactive',
            CompanyID: other.companyId,
            CustomerID: other.customerIds[0],
            ItemID: 'X',
            Sequence: 1,
            Title: 'kept',
          },
        ],
      },
      customerKey,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(problems(...refused.map((name) => refusal(`Items[0].${name}`))));
    const found = await ctx().database.db.selectFrom('items').select('item_id').where('item_id', '=', itemID).execute();
    expect(found).toEqual([]);
  });

  // ---- the lists are the answers' names -----------------------------------------------------

  describe('the lists', () => {
    /** The Data keys of the events of the tenant's first customer, by type prefix. */
    const eventKeys = async (prefix: string) => {
      const response = await ctx().post(
        paths.EVENT_SEARCH,
        { CompanyID: tenant.companyId, CustomerID: tenant.customerIds[0], Paging: { PageNo: 1, PageSize: 1000 } },
        customerKey,
      );
      expect(response.statusCode, response.body).toBe(200);
      const events = (response.json() as { results: { data: { Type: string; Data: Json }[] } }).results.data;
      return events.filter((event) => event.Type.startsWith(prefix)).flatMap((event) => Object.keys(event.Data));
    };
    const documentAnswers = (document: TSchema, result: TSchema, wrapper: string) => [
      ...keysOf(document),
      ...keysOf(document, wrapper),
      ...keysOf(document, wrapper, 'Items', '[]'),
      ...keysOf(result),
      ...keysOf(result, wrapper),
      ...keysOf(AckRecordSchema),
      ...keysOf(AckSuccessSchema),
      ...keysOf(AckFailureSchema),
    ];
    const same = (list: readonly string[], answers: string[]) => expect([...new Set(list)].sort()).toEqual([...new Set(answers)].sort());

    it('the receipt list is every key of the answers about a receipt', async () => {
      // A receipt received in a confirmation, and a refused import: every kind of receipt event.
      const poNo = uniqueId('PO');
      const imported = await ctx().post(paths.RECEIPT_IMPORT, rnBody(poNo), customerKey);
      const confirmation = { ...facility(), SVCPOID: imported.json().Receipt.SVCPOID, ConfirmationNo: uniqueId('CN') };
      const items = [{ ItemNumber: 'SKU-1', ReceivedQuantity: '10', UOM: 'EA' }];
      expect((await ctx().post(paths.RECEIPT_CONFIRM, { ...confirmation, Items: items }, operatorKey)).statusCode).toBe(200);
      expect((await ctx().post(paths.RECEIPT_IMPORT, rnBody(poNo, { content: { SVCPOID: 'x' } }), customerKey)).statusCode).toBe(400);
      same(RECEIPT_OWNED_NAMES, [
        ...documentAnswers(ReceiptDocumentSchema, ReceiptImportResultSchema, 'Receipt'),
        ...[RcRecordSchema, RcSchema, RcItemSchema, RcCartonSchema, RcCartonLineSchema].flatMap((schema) => keysOf(schema)),
        ...RECEIPT_LEVEL_HEAD,
        ...(await eventKeys('receipt.')),
        ...(await eventKeys('ack.')),
      ]);
    });

    it('the order list is every key of the answers about an order, but the header search’s Source', async () => {
      // An order shipped in a confirmation, and a refused import: every kind of order event.
      const referenceNo = uniqueId('SO');
      await stock(ctx(), { tenant, items: [{ ItemNumber: 'SKU-1', Qty: '1' }] });
      const imported = await ctx().post(paths.ORDER_IMPORT, dnBody(referenceNo), customerKey);
      const shipment = { ...facility(), SVCPOID: imported.json().Order.SVCPOID, ConfirmationNo: uniqueId('CN') };
      const items = [{ ItemNumber: 'SKU-1', ShippedQty: '1', UOM: 'EA' }];
      expect((await ctx().post(paths.ORDER_SHIP, { ...shipment, Items: items }, operatorKey)).statusCode).toBe(200);
      expect((await ctx().post(paths.ORDER_IMPORT, dnBody(referenceNo, { content: { SVCPOID: 'x' } }), customerKey)).statusCode).toBe(400);
      same(ORDER_OWNED_NAMES, [
        ...documentAnswers(OrderDocumentSchema, OrderImportResultSchema, 'Order'),
        ...[DcRecordSchema, DcSchema, DcItemSchema].flatMap((schema) => keysOf(schema)),
        ...ORDER_LEVEL_HEAD.filter((name) => name !== 'Source'),
        ...(await eventKeys('order.')),
        ...(await eventKeys('ack.')),
      ]);
    });

    it('the item list is every key of the item records, the import’s answer and the item events', async () => {
      same(ITEM_OWNED_NAMES, [...ITEM_HEAD, ...keysOf(ItemImportResultSchema, 'Items', '[]'), ...(await eventKeys('item.'))]);
    });
  });
});
