import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { components } from 'wharf-client';
import { useSession } from '../session.js';
import { CustomerPicker, DataTable, ErrorNote, Loading, Pager, StatusText, useAction } from '../ui.js';

const WEBHOOK = '/shared/bam/v1/public/edi/webhook' as const;

type Delivery = components['schemas']['SearchWebhookDeliveriesResponse']['results']['data'][number];
type Attempt = Delivery['Attempts'][number];
type NewEndpoint = Omit<components['schemas']['CreateWebhookEndpointRequest'], 'CompanyID'>;
/** Typed as staff typed them: the API refuses an unknown type with its name. */
type EventTypes = NonNullable<NewEndpoint['EventTypes']>;

/** The company's webhook endpoints (admin): add one (its secret shown once), their deliveries with every attempt, and replay. */
export function WebhooksPage() {
  const { client, key } = useSession();
  const queries = useQueryClient();
  const [secret, setSecret] = useState<{ endpointId: string; secret: string }>();
  const [endpointId, setEndpointId] = useState<string>();
  const [pageNo, setPageNo] = useState(1);

  const endpoints = useQuery({
    queryKey: ['webhooks'],
    queryFn: async () => (await client.GET('/admin/v1/webhook-endpoints')).data!.Endpoints,
  });
  const deliveries = useQuery({
    queryKey: ['webhooks', 'deliveries', endpointId, pageNo],
    enabled: endpointId !== undefined,
    // An endpoint without a customer takes every customer's events; its deliveries are the company's.
    queryFn: async () =>
      (
        await client.POST(`${WEBHOOK}/delivery/search-by-paging`, {
          body: { CompanyID: key.CompanyID, EndpointID: endpointId, Paging: { PageNo: pageNo, PageSize: 50 } },
        })
      ).data!,
  });

  const replaying = useAction();
  const replay = (delivery: Delivery) =>
    replaying.run(async () => {
      await client.POST(`${WEBHOOK}/delivery/replay`, { body: { CompanyID: key.CompanyID, DeliveryID: delivery.DeliveryID } });
      await queries.invalidateQueries({ queryKey: ['webhooks', 'deliveries'] });
    });

  return (
    <>
      <h1>Webhooks</h1>
      {secret && (
        <section className="panel notice" aria-labelledby="secret-title">
          <h2 id="secret-title">Endpoint {secret.endpointId} added</h2>
          <p>Its signing secret, shown this once:</p>
          <p>
            <code aria-label="Signing secret">{secret.secret}</code>
          </p>
          <button type="button" onClick={() => setSecret(undefined)}>
            Done
          </button>
        </section>
      )}
      {endpoints.isPending && <Loading what="endpoints" />}
      <ErrorNote error={endpoints.error} />
      {endpoints.data && (
        <DataTable
          caption="Endpoints"
          rows={endpoints.data}
          rowKey={(endpoint) => endpoint.EndpointID}
          empty="No endpoint yet."
          columns={[
            {
              header: 'Endpoint',
              cell: (endpoint) => (
                <button
                  type="button"
                  className="link"
                  onClick={() => {
                    setEndpointId(endpoint.EndpointID);
                    setPageNo(1);
                  }}
                  aria-label={`Deliveries of ${endpoint.EndpointID}`}
                >
                  {endpoint.EndpointID}
                </button>
              ),
            },
            { header: 'Customer', cell: (endpoint) => endpoint.CustomerID ?? 'every customer' },
            { header: 'Facilities', cell: (endpoint) => endpoint.FacilityIDs?.join(', ') ?? 'every facility' },
            { header: 'URL', cell: (endpoint) => endpoint.Url },
            { header: 'Events', cell: (endpoint) => endpoint.EventTypes?.join(', ') ?? 'all' },
            {
              header: 'State',
              cell: (endpoint) =>
                endpoint.Enabled ? (
                  <span className={`status status-${endpoint.FailingSince ? 'warn' : 'done'}`}>
                    {endpoint.FailingSince ? `Failing since ${endpoint.FailingSince.slice(0, 16).replace('T', ' ')}` : 'Enabled'}
                  </span>
                ) : (
                  <span className="status status-stopped">Disabled: {endpoint.DisabledReason}</span>
                ),
            },
          ]}
        />
      )}
      {endpointId && (
        <section aria-labelledby="deliveries-title">
          <h2 id="deliveries-title">Deliveries of {endpointId}</h2>
          <ErrorNote error={deliveries.error ?? replaying.error} />
          {deliveries.data && (
            <>
              <DataTable
                caption={`Deliveries of ${endpointId}, newest first`}
                rows={deliveries.data.results.data}
                rowKey={(delivery) => delivery.DeliveryID}
                empty="Nothing delivered yet."
                columns={[
                  { header: 'Sequence', cell: (delivery) => delivery.Sequence, numeric: true },
                  { header: 'Event', cell: (delivery) => delivery.EventType },
                  { header: 'Status', cell: (delivery) => <StatusText status={delivery.Status} /> },
                  { header: 'Attempts', cell: (delivery) => <Attempts attempts={delivery.Attempts} /> },
                  { header: 'Next attempt', cell: (delivery) => delivery.NextAttemptWhen?.slice(0, 19).replace('T', ' ') },
                  {
                    header: 'Actions',
                    cell: (delivery) => (
                      <button type="button" onClick={() => void replay(delivery)}>
                        Replay
                      </button>
                    ),
                  },
                ]}
              />
              <Pager
                pageNo={deliveries.data.paging.pageNo}
                totalPage={deliveries.data.paging.totalPage}
                totalCount={deliveries.data.paging.totalCount}
                onPage={setPageNo}
              />
            </>
          )}
        </section>
      )}
      <AddEndpointForm
        customers={key.Customers}
        onAdd={async (body) => {
          const { data } = await client.POST(`${WEBHOOK}/endpoint/create`, { body: { CompanyID: key.CompanyID, ...body } });
          const endpoint = data!.Endpoint;
          setSecret({ endpointId: endpoint.EndpointID, secret: endpoint.Secret });
          setEndpointId(endpoint.EndpointID);
          await queries.invalidateQueries({ queryKey: ['webhooks'] });
        }}
      />
    </>
  );
}

function Attempts({ attempts }: { attempts: Attempt[] }) {
  if (attempts.length === 0) return <span className="muted">none yet</span>;
  return (
    <ol className="attempts">
      {attempts.map((attempt) => (
        <li key={attempt.AttemptNo}>
          {attempt.StartedWhen.slice(11, 19)} · {attempt.StatusCode ?? attempt.Error} · {attempt.DurationMs} ms
        </li>
      ))}
    </ol>
  );
}

function AddEndpointForm({ customers, onAdd }: { customers: string[]; onAdd: (body: NewEndpoint) => Promise<void> }) {
  const [customerId, setCustomerId] = useState(customers[0] ?? '');
  const [url, setUrl] = useState('');
  const [eventTypes, setEventTypes] = useState('');
  const { error, run } = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const types = eventTypes
      .split(',')
      .map((type) => type.trim())
      .filter(Boolean);
    await run(async () => {
      await onAdd({ CustomerID: customerId, Url: url.trim(), ...(types.length ? { EventTypes: types as EventTypes } : {}) });
      setUrl('');
    });
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="add-endpoint-title">
      <h2 id="add-endpoint-title">New endpoint</h2>
      <div className="row">
        <CustomerPicker customers={customers} value={customerId} onChange={setCustomerId} />
        <label>
          URL
          <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} required maxLength={2000} />
        </label>
        <label>
          Event types (comma-separated; empty: all)
          <input value={eventTypes} onChange={(event) => setEventTypes(event.target.value)} />
        </label>
      </div>
      <ErrorNote error={error} />
      <button type="submit" className="primary">
        Add endpoint
      </button>
    </form>
  );
}
