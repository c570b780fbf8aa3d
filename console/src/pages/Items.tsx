import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { DocumentFacts } from '../document-detail.js';
import { useSession } from '../session.js';
import { CustomerPicker, DataTable, ErrorNote, Loading, Pager, SearchForm, StatusText } from '../ui.js';

const EDI = '/shared/bam/v1/public/edi';
const PAGE_SIZE = 50;

type Item = Record<string, string | number | null> & {
  itemID: string;
  itemDescription: string | null;
  BaseUOM: string | null;
  status: string | null;
};
interface ItemPage {
  results: { data: Item[] };
  paging: { totalCount: number; pageNo: number; totalPage: number };
}

/** A customer's item master: found by itemID or status, a page at a time, each item's every field on demand. */
export function ItemsPage() {
  const { client, key } = useSession();
  const post = client.POST as unknown as (path: string, init: { body: unknown }) => Promise<{ data?: unknown }>;
  const [customerId, setCustomerId] = useState(key.Customers[0] ?? '');
  const [itemId, setItemId] = useState('');
  const [status, setStatus] = useState('');
  const [pageNo, setPageNo] = useState(1);
  const [shown, setShown] = useState<Item>();

  const items = useQuery({
    queryKey: ['items', customerId, itemId, status, pageNo],
    queryFn: async () =>
      (
        await post(`${EDI}/item-master/search-by-paging`, {
          body: {
            CompanyID: key.CompanyID,
            CustomerID: customerId,
            ...(itemId ? { itemID: itemId } : {}),
            ...(status ? { Status: status } : {}),
            Paging: { PageNo: pageNo, PageSize: PAGE_SIZE },
          },
        })
      ).data as ItemPage,
  });
  return (
    <>
      <h1>Items</h1>
      <SearchForm
        placeholder="itemID"
        onSearch={(term) => {
          setItemId(term);
          setPageNo(1);
        }}
        statuses={['Active', 'Inactive']}
        status={status}
        onStatus={(chosen) => {
          setStatus(chosen);
          setPageNo(1);
        }}
      >
        <CustomerPicker customers={key.Customers} value={customerId} onChange={setCustomerId} />
      </SearchForm>
      {items.isPending && <Loading what="items" />}
      <ErrorNote error={items.error} />
      {items.data && (
        <>
          <DataTable
            caption={`Items of ${customerId}`}
            rows={items.data.results.data}
            rowKey={(item) => item.itemID}
            empty="No items match."
            columns={[
              {
                header: 'itemID',
                cell: (item) => (
                  <button type="button" className="link" onClick={() => setShown(item)}>
                    {item.itemID}
                  </button>
                ),
              },
              { header: 'Description', cell: (item) => item.itemDescription },
              { header: 'Base UOM', cell: (item) => item.BaseUOM },
              { header: 'Status', cell: (item) => (item.status ? <StatusText status={item.status} /> : null) },
            ]}
          />
          <Pager
            pageNo={items.data.paging.pageNo}
            totalPage={items.data.paging.totalPage}
            totalCount={items.data.paging.totalCount}
            onPage={setPageNo}
          />
        </>
      )}
      {shown && (
        <section aria-labelledby="item-title" className="panel">
          <h2 id="item-title">{shown.itemID}</h2>
          <DocumentFacts
            facts={Object.entries(shown)
              .filter(([, value]) => value !== null && value !== '')
              .map(([name, value]) => [name, String(value)])}
          />
        </section>
      )}
    </>
  );
}
