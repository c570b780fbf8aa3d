import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { DocumentList, RECEIPTS } from '../documents.js';
import { useSession } from '../session.js';
import { ConfirmDialog, DataTable, ErrorNote, Loading, StatusText } from '../ui.js';
import { DocumentFacts, QuantitiesDialog, Timeline, typedLines, type DocumentAnswer } from '../document-detail.js';

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

const MOVES = [
  { move: 'open', label: 'Open', path: 'open' },
  { move: 'cancel', label: 'Cancel receipt', path: 'cancel' },
  { move: 'force-close', label: 'Force close', path: 'force-close' },
] as const;

export function ReceiptPage() {
  const { svcpoid = '' } = useParams();
  const { client, key, facilityId } = useSession();
  const queries = useQueryClient();
  const post = client.POST as unknown as (path: string, init: { body: unknown }) => Promise<{ data?: unknown }>;
  const where = { CompanyID: key.CompanyID, FacilityID: facilityId };
  const [action, setAction] = useState<(typeof MOVES)[number] | 'receive'>();

  const receipt = useQuery({
    queryKey: ['receipt', facilityId, svcpoid],
    queryFn: async () => (await post(`${EDI}/3pl/inbound/receipt/get`, { body: { ...where, SVCPOID: svcpoid } })).data as ReceiptAnswer,
  });
  const document = receipt.data?.Receipt;
  const confirmations = useQuery({
    queryKey: ['receipt', facilityId, svcpoid, 'rc'],
    enabled: document !== undefined,
    queryFn: async () =>
      (
        await post(`${EDI}/inbound/receipt/rc/search-by-paging`, {
          body: { ...where, CustomerID: document!.CustomerID, PONo: document!.PONo, Paging: { PageNo: 1, PageSize: 100 } },
        })
      ).data as RcRecord[],
  });
  const refresh = () => queries.invalidateQueries({ queryKey: ['receipt', facilityId, svcpoid] });

  if (receipt.isPending) return <Loading what={`receipt ${svcpoid}`} />;
  if (!document) {
    return (
      <>
        <h1>{svcpoid}</h1>
        <ErrorNote error={receipt.error} />
      </>
    );
  }
  const moves = receipt.data!.Moves;
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
      <div className="actions" aria-label="Actions">
        {MOVES.filter((m) => moves.includes(m.move)).map((m) => (
          <button key={m.move} type="button" onClick={() => setAction(m)}>
            {m.label}
          </button>
        ))}
        {moves.includes('receive') && (
          <button type="button" className="primary" onClick={() => setAction('receive')}>
            Receive
          </button>
        )}
      </div>
      {action && action !== 'receive' && (
        <ConfirmDialog
          title={`${action.label} ${svcpoid}`}
          onClose={() => setAction(undefined)}
          onConfirm={async (note) => {
            await post(`${EDI}/3pl/inbound/receipt/${action.path}`, {
              body: { ...where, SVCPOID: svcpoid, ...(note ? { Note: note } : {}) },
            });
            await refresh();
          }}
        />
      )}
      {action === 'receive' && (
        <ReceiveDialog
          svcpoid={svcpoid}
          lines={document.Items}
          onClose={() => setAction(undefined)}
          onReceive={async (body) => {
            await post(`${EDI}/3pl/inbound/receipt/post-confirmation`, { body: { ...where, SVCPOID: svcpoid, ...body } });
            await refresh();
          }}
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
      <Timeline entries={receipt.data!.Timeline} />
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
