import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ORDERS, RECEIPTS, type DocumentKind } from '../documents.js';
import { useSession } from '../session.js';
import { DataTable, ErrorNote, Loading } from '../ui.js';

/** The start of today on this computer's clock, as the offset date-time the API filters take. */
function startOfToday(): string {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  return midnight.toISOString();
}

type Counted = { paging: { totalCount: number } };

/** The facility today: documents by status, ACKs that failed, endpoints that fail. */
export function DashboardPage() {
  const { key, facilityId } = useSession();
  return (
    <>
      <h1>Dashboard</h1>
      <p className="muted">
        {facilityId}, since midnight ({new Date().toLocaleDateString()})
      </p>
      <div className="cards">
        <StatusCounts kind={RECEIPTS} />
        <StatusCounts kind={ORDERS} />
      </div>
      <FailedAcks />
      {key.Role === 'admin' && <FailingEndpoints />}
    </>
  );
}

/** How many of the facility's documents of each status changed today: one count a status. */
function StatusCounts({ kind }: { kind: DocumentKind }) {
  const { client, key, facilityId } = useSession();
  // The kind picks the receipts' or the orders' operation at run time; both take and answer the shapes used here.
  const post = client.POST as unknown as (path: string, init: { body: unknown }) => Promise<{ data?: Counted }>;
  const since = startOfToday();
  const counts = useQuery({
    queryKey: [kind.title, facilityId, 'today'],
    queryFn: () =>
      Promise.all(
        kind.statuses.map(async (status) => {
          const body = {
            CompanyID: key.CompanyID,
            FacilityID: facilityId,
            Status: status,
            UpdatedWhenFrom: since,
            Paging: { PageNo: 1, PageSize: 1 },
          };
          return { status, count: (await post(kind.listPath, { body })).data!.paging.totalCount };
        }),
      ),
  });
  return (
    <section className="panel" aria-labelledby={`${kind.title}-today`}>
      <h2 id={`${kind.title}-today`}>
        <Link to={kind.base}>{kind.title}</Link> today
      </h2>
      {counts.isPending && <Loading what="counts" />}
      <ErrorNote error={counts.error} />
      {counts.data && (
        <DataTable
          caption={`${kind.title} changed today, by status`}
          rows={counts.data}
          rowKey={(row) => row.status}
          empty=""
          columns={[
            { header: 'Status', cell: (row) => <span className={row.count ? undefined : 'muted'}>{row.status}</span> },
            { header: 'Count', cell: (row) => row.count, numeric: true },
          ]}
        />
      )}
    </section>
  );
}

/** ACKs that failed today, per customer: each is an import that was refused. */
function FailedAcks() {
  const { client, key, facilityId } = useSession();
  const since = startOfToday();
  const failed = useQuery({
    queryKey: ['acks', facilityId, 'failed-today'],
    queryFn: () =>
      Promise.all(
        key.Customers.map(async (customerId) => {
          const body = {
            CompanyID: key.CompanyID,
            CustomerID: customerId,
            FacilityID: facilityId,
            Types: ['ack.failed' as const],
            CreatedWhenFrom: since,
            Paging: { PageNo: 1, PageSize: 1 },
          };
          return {
            customerId,
            count: (await client.POST('/shared/bam/v1/public/edi/events/search-by-paging', { body })).data!.paging.totalCount,
          };
        }),
      ),
  });
  return (
    <section className="panel" aria-labelledby="failed-acks">
      <h2 id="failed-acks">Failed ACKs today</h2>
      {failed.isPending && <Loading what="ACKs" />}
      <ErrorNote error={failed.error} />
      {failed.data && (
        <DataTable
          caption="Imports refused today, by customer"
          rows={failed.data.filter((row) => row.count > 0)}
          rowKey={(row) => row.customerId}
          empty="No import was refused today."
          columns={[
            { header: 'Customer', cell: (row) => row.customerId },
            { header: 'Failed', cell: (row) => row.count, numeric: true },
          ]}
        />
      )}
    </section>
  );
}

function FailingEndpoints() {
  const { client } = useSession();
  const endpoints = useQuery({
    queryKey: ['webhooks'],
    queryFn: async () => (await client.GET('/admin/v1/webhook-endpoints')).data!.Endpoints,
  });
  const failing = endpoints.data?.filter(
    (endpoint) => endpoint.FailingSince || (!endpoint.Enabled && endpoint.DisabledReason !== 'Disabled by its owner'),
  );
  return (
    <section className="panel" aria-labelledby="failing-endpoints">
      <h2 id="failing-endpoints">
        <Link to="/webhooks">Webhook endpoints</Link> failing
      </h2>
      {endpoints.isPending && <Loading what="endpoints" />}
      <ErrorNote error={endpoints.error} />
      {failing && (
        <DataTable
          caption="Endpoints whose deliveries fail"
          rows={failing}
          rowKey={(endpoint) => endpoint.EndpointID}
          empty="Every endpoint is delivering."
          columns={[
            { header: 'Endpoint', cell: (endpoint) => endpoint.EndpointID },
            { header: 'URL', cell: (endpoint) => endpoint.Url },
            { header: 'Failing since', cell: (endpoint) => endpoint.FailingSince!.slice(0, 16).replace('T', ' ') },
            { header: 'State', cell: (endpoint) => (endpoint.Enabled ? 'Enabled' : `Disabled: ${endpoint.DisabledReason}`) },
          ]}
        />
      )}
    </section>
  );
}
