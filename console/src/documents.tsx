import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useSession } from './session.js';
import { DataTable, ErrorNote, Loading, Pager, SearchForm, StatusText } from './ui.js';

/**
 * What receipts and orders share in the console: a list of a facility's documents, filtered by
 * status and found by PONo, ReferenceNo or SVCPOID, a page at a time, each row linking to its page.
 */

const EDI = '/shared/bam/v1/public/edi';
const PAGE_SIZE = 50;

export interface DocumentHeader {
  SVCPOID: string;
  CustomerID: string;
  PONo: string | null;
  ReferenceNo: string | number | null;
  Status: string;
  CarrierName: string | null;
  CreatedWhen: string;
  UpdatedWhen: string;
}

interface Paging {
  totalCount: number;
  pageNo: number;
  totalPage: number;
}

export interface DocumentKind {
  title: 'Receipts' | 'Orders';
  /** The SVCPOID prefix (RN-, DN-): a search for one goes straight to its page. */
  prefix: 'RN-' | 'DN-';
  listPath: `${typeof EDI}/3pl/${'inbound/receipt' | 'outbound/order'}/list`;
  statuses: readonly string[];
  base: '/receipts' | '/orders';
}

export const RECEIPTS: DocumentKind = {
  title: 'Receipts',
  prefix: 'RN-',
  listPath: `${EDI}/3pl/inbound/receipt/list`,
  statuses: ['Imported', 'Open', 'In Progress', 'Partial Received', 'Closed', 'Force Closed', 'Cancelled'],
  base: '/receipts',
};

export const ORDERS: DocumentKind = {
  title: 'Orders',
  prefix: 'DN-',
  listPath: `${EDI}/3pl/outbound/order/list`,
  statuses: ['Imported', 'Open', 'Partial Shipped', 'Shipped', 'Short Shipped', 'Cancelled'],
  base: '/orders',
};

type ListAnswer = { results: { data: DocumentHeader[] }; paging: Paging };

/** One page of the facility's documents; a search term is tried as PONo, then as ReferenceNo. */
export function useDocumentPage(kind: DocumentKind, filter: { status: string; term: string; pageNo: number }) {
  const { client, key, facilityId } = useSession();
  // The kind picks the receipts' or the orders' operation at run time; both take and answer the shapes used here.
  const post = client.POST as unknown as (path: string, init: { body: unknown }) => Promise<{ data?: ListAnswer }>;
  return useQuery({
    queryKey: [kind.title, facilityId, filter],
    queryFn: async () => {
      const base = {
        CompanyID: key.CompanyID,
        FacilityID: facilityId,
        ...(filter.status ? { Status: filter.status } : {}),
        Paging: { PageNo: filter.pageNo, PageSize: PAGE_SIZE },
      };
      if (!filter.term) return (await post(kind.listPath, { body: base })).data!;
      const byPoNo = (await post(kind.listPath, { body: { ...base, PONo: filter.term } })).data!;
      if (byPoNo.paging.totalCount > 0) return byPoNo;
      return (await post(kind.listPath, { body: { ...base, ReferenceNo: filter.term } })).data!;
    },
  });
}

export function DocumentList({ kind }: { kind: DocumentKind }) {
  const navigate = useNavigate();
  const [status, setStatus] = useState('');
  const [term, setTerm] = useState('');
  const [pageNo, setPageNo] = useState(1);
  const page = useDocumentPage(kind, { status, term, pageNo });

  const search = (wanted: string) => {
    if (wanted.toUpperCase().startsWith(kind.prefix)) {
      navigate(`${kind.base}/${encodeURIComponent(wanted.toUpperCase())}`);
      return;
    }
    setTerm(wanted);
    setPageNo(1);
  };

  return (
    <>
      <h1>{kind.title}</h1>
      <SearchForm
        placeholder="PONo, ReferenceNo or SVCPOID"
        onSearch={search}
        statuses={kind.statuses}
        status={status}
        onStatus={(chosen) => {
          setStatus(chosen);
          setPageNo(1);
        }}
      />
      {page.isPending && <Loading what={kind.title.toLowerCase()} />}
      <ErrorNote error={page.error} />
      {page.data && (
        <>
          <DataTable
            caption={`${kind.title} in this facility${term ? ` matching ${term}` : ''}${status ? `, ${status}` : ''}`}
            rows={page.data.results.data}
            rowKey={(row) => row.SVCPOID}
            empty={`No ${kind.title.toLowerCase()} match.`}
            columns={[
              { header: 'SVCPOID', cell: (row) => <Link to={`${kind.base}/${row.SVCPOID}`}>{row.SVCPOID}</Link> },
              { header: 'Customer', cell: (row) => row.CustomerID },
              { header: 'PONo', cell: (row) => row.PONo },
              { header: 'ReferenceNo', cell: (row) => row.ReferenceNo },
              { header: 'Status', cell: (row) => <StatusText status={row.Status} /> },
              { header: 'Carrier', cell: (row) => row.CarrierName },
              { header: 'Updated', cell: (row) => row.UpdatedWhen.slice(0, 16).replace('T', ' ') },
            ]}
          />
          <Pager
            pageNo={page.data.paging.pageNo}
            totalPage={page.data.paging.totalPage}
            totalCount={page.data.paging.totalCount}
            onPage={setPageNo}
          />
        </>
      )}
    </>
  );
}
