import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { components } from 'wharf-client';
import { newConfirmationNo } from '../document-detail.js';
import { useSession } from '../session.js';
import { CustomerPicker, DataTable, ErrorNote, Loading, Pager, SearchForm, useAction } from '../ui.js';

const EDI = '/shared/bam/v1/public/edi' as const;
const PAGE_SIZE = 50;

/** Stock of a customer in the facility: balances by item and lot, an item's ledger, and the adjustment form. */
export function InventoryPage() {
  const { client, key, facilityId } = useSession();
  const queries = useQueryClient();
  const [customerId, setCustomerId] = useState(key.Customers[0] ?? '');
  const [item, setItem] = useState('');
  const [pageNo, setPageNo] = useState(1);
  const [ledgerItem, setLedgerItem] = useState<string>();
  const where = { CompanyID: key.CompanyID, FacilityID: facilityId, CustomerID: customerId };

  const balances = useQuery({
    queryKey: ['inventory', facilityId, customerId, item, pageNo],
    queryFn: async () =>
      (
        await client.POST(`${EDI}/inventory/search-by-paging`, {
          body: { ...where, ...(item ? { ItemNumber: item } : {}), Paging: { PageNo: pageNo, PageSize: PAGE_SIZE } },
        })
      ).data!,
  });
  const ledger = useQuery({
    queryKey: ['inventory', facilityId, customerId, 'ledger', ledgerItem],
    enabled: ledgerItem !== undefined,
    queryFn: async () =>
      (
        await client.POST(`${EDI}/3pl/inventory/ledger/search-by-paging`, {
          body: { ...where, ItemNumber: ledgerItem, Paging: { PageNo: 1, PageSize: 100 } },
        })
      ).data!,
  });

  return (
    <>
      <h1>Inventory</h1>
      <SearchForm
        placeholder="ItemNumber"
        onSearch={(term) => {
          setItem(term);
          setPageNo(1);
        }}
      >
        <CustomerPicker customers={key.Customers} value={customerId} onChange={setCustomerId} />
      </SearchForm>
      {balances.isPending && <Loading what="balances" />}
      <ErrorNote error={balances.error} />
      {balances.data && (
        <>
          <DataTable
            caption={`Balances of ${customerId} in ${facilityId}`}
            rows={balances.data.results.data}
            rowKey={(row) => `${row.ItemNumber}|${row.LotNo}|${row.InventoryStatus}|${row.ExpirationDate}|${row.UOM}`}
            empty="No stock matches."
            columns={[
              {
                header: 'Item',
                cell: (row) => (
                  <button
                    type="button"
                    className="link"
                    onClick={() => setLedgerItem(row.ItemNumber)}
                    aria-label={`Ledger of ${row.ItemNumber}`}
                  >
                    {row.ItemNumber}
                  </button>
                ),
              },
              { header: 'Lot', cell: (row) => row.LotNo },
              { header: 'Expires', cell: (row) => row.ExpirationDate },
              { header: 'Status', cell: (row) => row.InventoryStatus },
              { header: 'UOM', cell: (row) => row.UOM },
              { header: 'On hand', cell: (row) => row.OnHand, numeric: true },
              { header: 'Allocated', cell: (row) => row.Allocated, numeric: true },
              { header: 'Available', cell: (row) => row.Available, numeric: true },
            ]}
          />
          <Pager
            pageNo={balances.data.paging.pageNo}
            totalPage={balances.data.paging.totalPage}
            totalCount={balances.data.paging.totalCount}
            onPage={setPageNo}
          />
        </>
      )}
      {ledgerItem && (
        <section aria-label={`Ledger of ${ledgerItem}`}>
          <h2>Ledger of {ledgerItem}</h2>
          <ErrorNote error={ledger.error} />
          {ledger.data && (
            <DataTable
              caption={`Postings of ${ledgerItem}, oldest first`}
              rows={ledger.data.results.data}
              rowKey={(row) => String(row.ID)}
              empty="No postings."
              columns={[
                { header: 'When', cell: (row) => row.CreatedWhen.replace('T', ' ') },
                { header: 'Lot', cell: (row) => row.LotNo },
                { header: 'Status', cell: (row) => row.InventoryStatus },
                { header: 'Change', cell: (row) => row.Qty, numeric: true },
                { header: 'On hand after', cell: (row) => row.OnHandAfter, numeric: true },
                { header: 'Source', cell: (row) => `${row.SourceType} ${row.SourceID}` },
              ]}
            />
          )}
        </section>
      )}
      <AdjustmentForm
        onAdjust={async (line, header) => {
          await client.POST(`${EDI}/3pl/adjust/inventory-adjust-qty-incremental`, { body: { ...where, ...header, Items: [line] } });
          await queries.invalidateQueries({ queryKey: ['inventory', facilityId, customerId] });
          setLedgerItem(line.ItemNumber);
        }}
      />
    </>
  );
}

type AdjustmentLine = components['schemas']['AdjustInventoryQuantityRequest']['Items'][number];
const UOMS: AdjustmentLine['UOM'][] = ['EA', 'CS'];

/** A quantity adjustment of one balance: a signed quantity, a reason, and an AdjustmentNo made for the user. */
function AdjustmentForm({
  onAdjust,
}: {
  onAdjust: (line: AdjustmentLine, header: { AdjustmentNo: string; ReasonCode?: string; Note?: string }) => Promise<void>;
}) {
  const [itemNumber, setItemNumber] = useState('');
  const [lotNo, setLotNo] = useState('');
  const [uom, setUom] = useState<AdjustmentLine['UOM']>('EA');
  const [qty, setQty] = useState('');
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const { error, run } = useAction();
  const [done, setDone] = useState<string>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    const adjustmentNo = newConfirmationNo('ADJ');
    await run(async () => {
      await onAdjust(
        { ItemNumber: itemNumber.trim(), UOM: uom, Qty: qty.trim(), ...(lotNo.trim() ? { LotNo: lotNo.trim() } : {}) },
        {
          AdjustmentNo: adjustmentNo,
          ...(reason.trim() ? { ReasonCode: reason.trim() } : {}),
          ...(note.trim() ? { Note: note.trim() } : {}),
        },
      );
      setDone(`Adjustment ${adjustmentNo} applied.`);
      setQty('');
    });
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="adjust-title">
      <h2 id="adjust-title">Adjust stock</h2>
      <div className="row">
        <label>
          Item
          <input value={itemNumber} onChange={(event) => setItemNumber(event.target.value)} required maxLength={30} />
        </label>
        <label>
          Lot
          <input value={lotNo} onChange={(event) => setLotNo(event.target.value)} maxLength={50} />
        </label>
        <label>
          UOM
          <select value={uom} onChange={(event) => setUom(event.target.value as AdjustmentLine['UOM'])}>
            {UOMS.map((unit) => (
              <option key={unit}>{unit}</option>
            ))}
          </select>
        </label>
        <label>
          Quantity change
          <input inputMode="decimal" placeholder="+12 or -3" value={qty} onChange={(event) => setQty(event.target.value)} required />
        </label>
        <label>
          Reason
          <input value={reason} onChange={(event) => setReason(event.target.value)} maxLength={50} />
        </label>
      </div>
      <label>
        Note
        <textarea value={note} onChange={(event) => setNote(event.target.value)} maxLength={1000} rows={2} />
      </label>
      <ErrorNote error={error} />
      {done && <p role="status">{done}</p>}
      <button type="submit" className="primary">
        Adjust
      </button>
    </form>
  );
}
