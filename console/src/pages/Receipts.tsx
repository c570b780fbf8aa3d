import { useState } from 'react';
import { useParams } from 'react-router';
import { DocumentList, RECEIPTS } from '../documents.js';
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
import { DataTable, ErrorNote, StatusText } from '../ui.js';

const EDI = '/shared/bam/v1/public/edi';

export function ReceiptsPage() {
  return <DocumentList kind={RECEIPTS} />;
}

interface ReceiptLine {
  LineNo: number;
  POLineNo?: number | null;
  ItemNumber: string;
  UOM: string;
  LotNo?: string | null;
  ExpectedQty: string;
  ReceivedQty: string;
}
type ReceiptAnswer = DocumentAnswer<'Receipt', ReceiptLine>;
interface RcRecord {
  CreatedWhen: string;
  RC: {
    ReceivedDate: string;
    Note: string | null;
    Items: { POLineNo: number | null; ItemNumber: string; LotNo: string | null; UOM: string; ReceivedQuantity: number }[];
  };
}

/** The receipt's page: its 3PL operations, and its receiving confirmations (RC) from the customer's search. */
const RECEIPT: DetailKind = {
  name: 'Receipt',
  threePl: `${EDI}/3pl/inbound/receipt`,
  confirmationsPath: `${EDI}/inbound/receipt/rc/search-by-paging`,
  moves: [
    { move: 'open', label: 'Open' },
    { move: 'cancel', label: 'Cancel receipt' },
    { move: 'force-close', label: 'Force close' },
  ],
  confirmation: { move: 'receive', label: 'Receive' },
};

export function ReceiptPage() {
  const { svcpoid = '' } = useParams();
  const { detail, confirmations, act } = useDocumentDetail<ReceiptAnswer, RcRecord>(RECEIPT, svcpoid);
  const [receiving, setReceiving] = useState(false);
  if (!detail.data) return <DocumentPending svcpoid={svcpoid} error={detail.error} />;
  const document = detail.data.Receipt;
  return (
    <>
      <h1>{svcpoid}</h1>
      <DocumentFacts
        facts={[
          ['Status', <StatusText status={document.Status} />],
          ['Customer', document.CustomerID],
          ['PONo', document.PONo],
          ['ReferenceNo', document.ReferenceNo],
          ['Carrier', document.CarrierName],
          ['Scheduled', document.ScheduledDate?.replace('T', ' ')],
          ['Created', document.CreatedWhen.replace('T', ' ')],
        ]}
      />
      <DocumentMoves kind={RECEIPT} svcpoid={svcpoid} allowed={detail.data.Moves} act={act} onConfirmation={() => setReceiving(true)} />
      {receiving && (
        <ReceiveDialog
          svcpoid={svcpoid}
          lines={document.Items}
          onClose={() => setReceiving(false)}
          onReceive={(body) => act('post-confirmation', body)}
        />
      )}
      <DataTable
        caption="Lines"
        rows={document.Items}
        rowKey={(line) => String(line.LineNo)}
        empty="This receipt has no lines."
        columns={[
          { header: 'Line', cell: (line) => line.POLineNo ?? line.LineNo, numeric: true },
          { header: 'Item', cell: (line) => line.ItemNumber },
          { header: 'Lot', cell: (line) => line.LotNo },
          { header: 'UOM', cell: (line) => line.UOM },
          { header: 'Expected', cell: (line) => line.ExpectedQty, numeric: true },
          { header: 'Received', cell: (line) => line.ReceivedQty, numeric: true },
        ]}
      />
      <h2>Receiving confirmations</h2>
      <ErrorNote error={confirmations.error} />
      {confirmations.data?.length === 0 && <p className="muted">Nothing received yet.</p>}
      {confirmations.data?.map((record, index) => (
        <DataTable
          key={index}
          caption={`Received ${record.RC.ReceivedDate.replace('T', ' ')}${record.RC.Note ? ` — ${record.RC.Note}` : ''}`}
          rows={record.RC.Items}
          rowKey={(line) => `${line.POLineNo}-${line.ItemNumber}-${line.LotNo}`}
          empty="No lines."
          columns={[
            { header: 'Line', cell: (line) => line.POLineNo, numeric: true },
            { header: 'Item', cell: (line) => line.ItemNumber },
            { header: 'Lot', cell: (line) => line.LotNo },
            { header: 'UOM', cell: (line) => line.UOM },
            { header: 'Received', cell: (line) => line.ReceivedQuantity, numeric: true },
          ]}
        />
      ))}
      <Timeline entries={detail.data.Timeline} />
    </>
  );
}

/** The receiving confirmation form. */
function ReceiveDialog({
  svcpoid,
  lines,
  onClose,
  onReceive,
}: {
  svcpoid: string;
  lines: ReceiptLine[];
  onClose: () => void;
  onReceive: (body: object) => Promise<void>;
}) {
  return (
    <QuantitiesDialog
      title={`Receive ${svcpoid}`}
      prefix="RCV"
      legend="Quantities received"
      closeLabel="Close the receipt with this confirmation"
      // Nothing received yet: suggest what was expected; otherwise staff type what they counted.
      lines={lines.map((line) => ({
        label: `Line ${line.POLineNo ?? line.LineNo}: ${line.ItemNumber} (${line.UOM})`,
        suggested: Number(line.ReceivedQty) === 0 ? line.ExpectedQty : '',
      }))}
      onClose={onClose}
      onSubmit={({ confirmationNo, close, note, quantities }) =>
        onReceive({
          ConfirmationNo: confirmationNo,
          Close: close,
          ...(note ? { Note: note } : {}),
          Items: typedLines(lines, quantities).map(({ line, quantity }) => ({
            POLineNo: line.POLineNo ?? line.LineNo,
            ItemNumber: line.ItemNumber,
            UOM: line.UOM,
            ReceivedQuantity: quantity,
            ...(line.LotNo ? { LotNo: line.LotNo } : {}),
          })),
        })
      }
    />
  );
}
