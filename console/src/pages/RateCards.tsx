import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSession } from '../session.js';
import { DataTable, ErrorNote, Loading } from '../ui.js';

const ADMIN = '/admin/v1';
const EXPLAIN = '/api/RateEngine/SVC/lastmile/explain';

interface RateCard {
  RateCardID: number;
  UserID: number | null;
  Version: number;
  Name: string;
  EffectiveFrom: string;
  EffectiveTo: string | null;
  LoadedWhen: string;
  InForce: boolean;
}
interface Charge {
  Name: string;
  Amount: string;
  Rule: string;
}
interface Explained {
  Result: { name: string; Price: string }[];
  ErrorMsg: string;
  Status: boolean;
  Explanation: null | {
    Card: { Name: string; Version: number; Currency: string };
    Zone: { Zone: number; Source: string; Rule: string };
    Services: {
      Service: string;
      Quoted: boolean;
      Weights: { Billable: string };
      Charges: Charge[];
      Total: string | null;
      Reason?: string;
    }[];
  };
}

/** The company's rate cards: versions, loading a card file (the engine's own checks, its messages shown), and a quote with its breakdown. */
export function RateCardsPage() {
  const { client } = useSession();
  const queries = useQueryClient();
  const get = client.GET as unknown as (path: string) => Promise<{ data?: { RateCards: RateCard[] } }>;
  const post = client.POST as unknown as (path: string, init: { body: unknown }) => Promise<{ data?: unknown }>;
  const cards = useQuery({ queryKey: ['rate-cards'], queryFn: async () => (await get(`${ADMIN}/rate-cards`)).data!.RateCards });

  return (
    <>
      <h1>Rate cards</h1>
      {cards.isPending && <Loading what="rate cards" />}
      <ErrorNote error={cards.error} />
      {cards.data && (
        <DataTable
          caption="Versions, newest first within each binding"
          rows={cards.data}
          rowKey={(card) => String(card.RateCardID)}
          empty="No rate card is loaded yet."
          columns={[
            { header: 'Binding', cell: (card) => (card.UserID === null ? 'Company default' : `UserID ${card.UserID}`) },
            { header: 'Version', cell: (card) => card.Version, numeric: true },
            { header: 'Name', cell: (card) => card.Name },
            { header: 'Effective', cell: (card) => `${card.EffectiveFrom} – ${card.EffectiveTo ?? 'open'}` },
            { header: 'In force', cell: (card) => (card.InForce ? 'Yes' : 'No') },
            { header: 'Loaded', cell: (card) => card.LoadedWhen.slice(0, 16).replace('T', ' ') },
          ]}
        />
      )}
      <UploadForm
        onUpload={async (body) => {
          const { data } = await post(`${ADMIN}/rate-cards`, { body });
          await queries.invalidateQueries({ queryKey: ['rate-cards'] });
          return data as { RateCard: RateCard; Changed: boolean };
        }}
      />
      <QuoteForm onQuote={async (body) => (await post(EXPLAIN, { body })).data as Explained} />
    </>
  );
}

function UploadForm({
  onUpload,
}: {
  onUpload: (body: { UserID?: number; Card: unknown }) => Promise<{ RateCard: RateCard; Changed: boolean }>;
}) {
  const [file, setFile] = useState<File>();
  const [userId, setUserId] = useState('');
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setDone(undefined);
    try {
      const text = await file!.text();
      let card: unknown;
      try {
        card = JSON.parse(text);
      } catch {
        throw new Error(`${file!.name} is not JSON: a rate card is a JSON file (docs/rating.md)`);
      }
      const { RateCard, Changed } = await onUpload({ ...(userId ? { UserID: Number(userId) } : {}), Card: card });
      setDone(
        Changed
          ? `Loaded ${RateCard.Name} as version ${RateCard.Version}.`
          : `${RateCard.Name} is already version ${RateCard.Version}; nothing changed.`,
      );
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="upload-title">
      <h2 id="upload-title">Load a rate card</h2>
      <div className="row">
        <label>
          Rate card file
          <input type="file" accept="application/json,.json" onChange={(event) => setFile(event.target.files?.[0])} required />
        </label>
        <label>
          For UserID (empty: company default)
          <input inputMode="numeric" value={userId} onChange={(event) => setUserId(event.target.value)} />
        </label>
      </div>
      <ErrorNote error={error} />
      {done && <p role="status">{done}</p>}
      <button type="submit" className="primary">
        Upload
      </button>
    </form>
  );
}

const QUOTE_FIELDS = [
  ['OriginZip', 'Origin ZIP', '90001'],
  ['DestZip', 'Destination ZIP', '10001'],
  ['Length', 'Length', '12'],
  ['Width', 'Width', '10'],
  ['Hight', 'Height', '8'],
  ['Weight', 'Weight', '5.2'],
] as const;

function QuoteForm({ onQuote }: { onQuote: (body: unknown) => Promise<Explained> }) {
  const [userId, setUserId] = useState('');
  const [data, setData] = useState<Record<string, string>>(() =>
    Object.fromEntries(QUOTE_FIELDS.map(([name, , example]) => [name, example])),
  );
  const [answer, setAnswer] = useState<Explained>();
  const [error, setError] = useState<unknown>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      setAnswer(await onQuote({ UserID: Number(userId), Data: data }));
    } catch (failure) {
      setAnswer(undefined);
      setError(failure);
    }
  };
  const explanation = answer?.Explanation;
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="quote-title">
      <h2 id="quote-title">Quote</h2>
      <div className="row">
        <label>
          UserID
          <input inputMode="numeric" value={userId} onChange={(event) => setUserId(event.target.value)} required />
        </label>
        {QUOTE_FIELDS.map(([name, label]) => (
          <label key={name}>
            {label}
            <input value={data[name]} onChange={(event) => setData({ ...data, [name]: event.target.value })} required />
          </label>
        ))}
      </div>
      <button type="submit" className="primary">
        Get quote
      </button>
      <ErrorNote error={error} />
      {answer && !answer.Status && (
        <p role="alert" className="error">
          {answer.ErrorMsg}
        </p>
      )}
      {answer?.Status && answer.ErrorMsg && <p className="warn">{answer.ErrorMsg}</p>}
      {explanation && (
        <section aria-label="Breakdown">
          <p>
            {explanation.Card.Name} version {explanation.Card.Version} ({explanation.Card.Currency}), zone {explanation.Zone.Zone} by{' '}
            {explanation.Zone.Source} ({explanation.Zone.Rule})
          </p>
          {explanation.Services.map((service) => (
            <DataTable
              key={service.Service}
              caption={`${service.Service}: ${service.Quoted ? `${service.Total} for ${service.Weights.Billable} billable` : (service.Reason ?? 'not quoted')}`}
              rows={service.Charges}
              rowKey={(charge) => charge.Name}
              empty="No charges."
              columns={[
                { header: 'Charge', cell: (charge) => charge.Name },
                { header: 'Amount', cell: (charge) => charge.Amount, numeric: true },
                { header: 'Rule', cell: (charge) => charge.Rule },
              ]}
            />
          ))}
        </section>
      )}
    </form>
  );
}
