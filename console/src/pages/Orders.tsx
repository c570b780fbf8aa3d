import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { DocumentFacts, QuantitiesDialog, Timeline, typedLines, type DocumentAnswer } from '../document-detail.js';
import { DocumentList, ORDERS } from '../documents.js';
import { useSession } from '../session.js';
import { ConfirmDialog, DataTable, ErrorNote, Loading, StatusText } from '../ui.js';

const EDI = '/shared/bam/v1/public/edi';

export function OrdersPage() {
  return <DocumentList kind={ORDERS} />;
}

interface OrderLine {
  LineNo: number;
  ItemID: string;
  UOM: string;
  LotNo?: string | null;
  OrderedQty: string;
  AllocatedQty: string;
  ShippedQty: string;
}
type OrderAnswer = DocumentAnswer<'Order', OrderLine> & { Order: { ShipToName?: string | null } };
interface DcRecord {
  CreatedWhen: string;
  DC: {
    OrderNo: string;
    ShippedDate: string;
    TrackingNo: string | null;
    CarrierName: string | null;
    Items: { LineNo: number; ItemNumber: string; LotNo: string | null; UOM: string; ShippedQty: number; DifferenceQty: number }[];
  };
}

const MOVES = [
  { move: 'open', label: 'Open', path: 'open' },
  { move: 'cancel', label: 'Cancel order', path: 'cancel' },
] as const;

export function OrderPage() {
  const { svcpoid = '' } = useParams();
  const { client, key, facilityId } = useSession();
  const queries = useQueryClient();
  const post = client.POST as unknown as (path: string, init: { body: unknown }) => Promise<{ data?: unknown }>;
  const where = { CompanyID: key.CompanyID, FacilityID: facilityId };
  const [action, setAction] = useState<(typeof MOVES)[number] | 'ship'>();

  const order = useQuery({
    queryKey: ['order', facilityId, svcpoid],
    queryFn: async () => (await post(`${EDI}/3pl/outbound/order/get`, { body: { ...where, SVCPOID: svcpoid } })).data as OrderAnswer,
  });
  const document = order.data?.Order;
  const shipments = useQuery({
    queryKey: ['order', facilityId, svcpoid, 'dc'],
    enabled: document !== undefined,
    queryFn: async () =>
      (
        (
          await post(`${EDI}/outbound/order/dc/search-by-paging`, {
            body: { ...where, CustomerID: document!.CustomerID, PONo: document!.PONo, Paging: { PageNo: 1, PageSize: 100 } },
          })
        ).data as DcRecord[]
      ).filter((record) => record.DC.OrderNo === svcpoid),
  });
  const refresh = () => queries.invalidateQueries({ queryKey: ['order', facilityId, svcpoid] });

  if (order.isPending) return <Loading what={`order ${svcpoid}`} />;
  if (!document) {
    return (
      <>
        <h1>{svcpoid}</h1>
        <ErrorNote error={order.error} />
      </>
    );
  }
  const moves = order.data!.Moves;
  return (
    <>
      <h1>{svcpoid}</h1>
      <DocumentFacts
        facts={[
          ['Status', <StatusText status={document.Status} />],
          ['Customer', document.CustomerID],
          ['PONo', document.PONo],
          ['ReferenceNo', document.ReferenceNo],
          ['Ship to', document.ShipToName],
          ['Carrier', document.CarrierName],
          ['Created', document.CreatedWhen.replace('T', ' ')],
        ]}
      />
      <div className="actions" aria-label="Actions">
        {MOVES.filter((m) => moves.includes(m.move)).map((m) => (
          <button key={m.move} type="button" onClick={() => setAction(m)}>
            {m.label}
          </button>
        ))}
        {moves.includes('ship') && (
          <button type="button" className="primary" onClick={() => setAction('ship')}>
            Ship
          </button>
        )}
      </div>
      {action && action !== 'ship' && (
        <ConfirmDialog
          title={`${action.label} ${svcpoid}`}
          onClose={() => setAction(undefined)}
          onConfirm={async (note) => {
            await post(`${EDI}/3pl/outbound/order/${action.path}`, {
              body: { ...where, SVCPOID: svcpoid, ...(note ? { Note: note } : {}) },
            });
            await refresh();
          }}
        />
      )}
      {action === 'ship' && (
        <ShipDialog
          svcpoid={svcpoid}
          lines={document.Items}
          onClose={() => setAction(undefined)}
          onShip={async (body) => {
            await post(`${EDI}/3pl/outbound/order/post-confirmation`, { body: { ...where, SVCPOID: svcpoid, ...body } });
            await refresh();
          }}
        />
      )}
      <DataTable
        caption="Lines"
        rows={document.Items}
        rowKey={(line) => String(line.LineNo)}
        empty="This order has no lines."
        columns={[
          { header: 'Line', cell: (line) => line.LineNo, numeric: true },
          { header: 'Item', cell: (line) => line.ItemID },
          { header: 'Lot', cell: (line) => line.LotNo },
          { header: 'UOM', cell: (line) => line.UOM },
          { header: 'Ordered', cell: (line) => line.OrderedQty, numeric: true },
          { header: 'Allocated', cell: (line) => line.AllocatedQty, numeric: true },
          { header: 'Shipped', cell: (line) => line.ShippedQty, numeric: true },
        ]}
      />
      <h2>Shipment confirmations</h2>
      <ErrorNote error={shipments.error} />
      {shipments.data?.length === 0 && <p className="muted">Nothing shipped yet.</p>}
      {shipments.data?.map((record, index) => (
        <DataTable
          key={index}
          caption={`Shipped ${record.DC.ShippedDate.replace('T', ' ')}${record.DC.TrackingNo ? `, tracking ${record.DC.TrackingNo}` : ''}`}
          rows={record.DC.Items}
          rowKey={(line) => `${line.LineNo}-${line.LotNo}`}
          empty="No lines."
          columns={[
            { header: 'Line', cell: (line) => line.LineNo, numeric: true },
            { header: 'Item', cell: (line) => line.ItemNumber },
            { header: 'Lot', cell: (line) => line.LotNo },
            { header: 'UOM', cell: (line) => line.UOM },
            { header: 'Shipped', cell: (line) => line.ShippedQty, numeric: true },
            { header: 'Still short', cell: (line) => line.DifferenceQty, numeric: true },
          ]}
        />
      ))}
      <Timeline entries={order.data!.Timeline} />
    </>
  );
}

function ShipDialog({
  svcpoid,
  lines,
  onClose,
  onShip,
}: {
  svcpoid: string;
  lines: OrderLine[];
  onClose: () => void;
  onShip: (body: object) => Promise<void>;
}) {
  const [carrier, setCarrier] = useState('');
  const [trackingNo, setTrackingNo] = useState('');
  return (
    <QuantitiesDialog
      title={`Ship ${svcpoid}`}
      prefix="SHP"
      legend="Quantities shipped"
      closeLabel="Close the order with this shipment (what is left is released)"
      // What is allocated is what can ship now.
      lines={lines.map((line) => ({ label: `Line ${line.LineNo}: ${line.ItemID} (${line.UOM})`, suggested: line.AllocatedQty }))}
      onClose={onClose}
      onSubmit={({ confirmationNo, close, note, quantities }) =>
        onShip({
          ConfirmationNo: confirmationNo,
          Close: close,
          ...(note ? { Note: note } : {}),
          ...(carrier ? { CarrierName: carrier } : {}),
          ...(trackingNo ? { TrackingNo: trackingNo } : {}),
          Items: typedLines(lines, quantities).map(({ line, quantity }) => ({
            LineNo: line.LineNo,
            ItemNumber: line.ItemID,
            UOM: line.UOM,
            ShippedQty: quantity,
            ...(line.LotNo ? { LotNo: line.LotNo } : {}),
          })),
        })
      }
    >
      <label>
        Carrier
        <input value={carrier} onChange={(event) => setCarrier(event.target.value)} maxLength={50} />
      </label>
      <label>
        Tracking number
        <input value={trackingNo} onChange={(event) => setTrackingNo(event.target.value)} maxLength={50} />
      </label>
    </QuantitiesDialog>
  );
}
