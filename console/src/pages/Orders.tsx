import { useState } from 'react';
import { useParams } from 'react-router';
import {
  DocumentFacts,
  DocumentMoves,
  DocumentPending,
  QuantitiesDialog,
  Timeline,
  typedLines,
  useDocumentDetail,
  type DetailKind,
  type DocumentAnswer,
} from '../document-detail.js';
import { DocumentList, ORDERS } from '../documents.js';
import { DataTable, ErrorNote, StatusText } from '../ui.js';

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

/** The order's page: its 3PL operations, and its shipment confirmations (DC) from the customer's search. */
const ORDER: DetailKind = {
  name: 'Order',
  threePl: `${EDI}/3pl/outbound/order`,
  confirmationsPath: `${EDI}/outbound/order/dc/search-by-paging`,
  moves: [
    { move: 'open', label: 'Open' },
    { move: 'cancel', label: 'Cancel order' },
  ],
  confirmation: { move: 'ship', label: 'Ship' },
};

export function OrderPage() {
  const { svcpoid = '' } = useParams();
  const { detail, confirmations, act } = useDocumentDetail<OrderAnswer, DcRecord>(ORDER, svcpoid);
  const [shipping, setShipping] = useState(false);
  if (!detail.data) return <DocumentPending svcpoid={svcpoid} error={detail.error} />;
  const document = detail.data.Order;
  // The search is by PONo: another order of the customer may share it.
  const shipments = confirmations.data?.filter((record) => record.DC.OrderNo === svcpoid);
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
      <DocumentMoves kind={ORDER} svcpoid={svcpoid} allowed={detail.data.Moves} act={act} onConfirmation={() => setShipping(true)} />
      {shipping && (
        <ShipDialog
          svcpoid={svcpoid}
          lines={document.Items}
          onClose={() => setShipping(false)}
          onShip={(body) => act('post-confirmation', body)}
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
      <ErrorNote error={confirmations.error} />
      {shipments?.length === 0 && <p className="muted">Nothing shipped yet.</p>}
      {shipments?.map((record, index) => (
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
      <Timeline entries={detail.data.Timeline} />
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
