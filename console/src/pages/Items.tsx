import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { components } from 'wharf-client';
import { DocumentFacts } from '../document-detail.js';
import { useSession } from '../session.js';
import { CustomerPicker, DataTable, ErrorNote, Loading, Pager, SearchForm, StatusText } from '../ui.js';

const EDI = '/shared/bam/v1/public/edi' as const;
const PAGE_SIZE = 50;

type Item = components['schemas']['SearchItemsResponse']['results']['data'][number];
type ItemStatus = NonNullable<components['schemas']['SearchItemsRequest']['Status']>;
const ITEM_STATUSES: ItemStatus[] = ['Active', 'Inactive'];

/** A customer's item master: found by itemID or status, a page at a time, each item's every field on demand. */
export function ItemsPage() {
  const { client, key } = useSession();
  const [customerId, setCustomerId] = useState(key.Customers[0] ?? '');
  const [itemId, setItemId] = useState('');
  const [status, setStatus] = useState<ItemStatus | ''>('');
  const [pageNo, setPageNo] = useState(1);
  const [shown, setShown] = useState<Item>();

  const items = useQuery({
    queryKey: ['items', customerId, itemId, status, pageNo],
    queryFn: async () =>
      (
        await client.POST(`${EDI}/item-master/search-by-paging`, {
          body: {
            CompanyID: key.CompanyID,
            CustomerID: customerId,
            ...(itemId ? { itemID: itemId } : {}),
            ...(status ? { Status: status } : {}),
            Paging: { PageNo: pageNo, PageSize: PAGE_SIZE },
          },
        })
      ).data!,
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
        statuses={ITEM_STATUSES}
        status={status}
        onStatus={(chosen) => {
          setStatus(chosen as ItemStatus | '');
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
            rowKey={(item) => String(item.itemID)}
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
