import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { components } from 'wharf-client';
import { useSession } from '../session.js';
import { DataTable, ErrorNote, Loading, useAction } from '../ui.js';

const ADMIN = '/admin/v1' as const;
const EXPLAIN = '/api/RateEngine/SVC/lastmile/explain' as const;

type RateCard = components['schemas']['ListRateCardsResponse']['RateCards'][number];
type CardUpload = components['schemas']['LoadRateCardRequest'];
type Quote = components['schemas']['RateLastMileRequest'];
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
  const cards = useQuery({ queryKey: ['rate-cards'], queryFn: async () => (await client.GET(`${ADMIN}/rate-cards`)).data!.RateCards });

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
          const { data } = await client.POST(`${ADMIN}/rate-cards`, { body });
          await queries.invalidateQueries({ queryKey: ['rate-cards'] });
          return data!;
        }}
      />
      {/* The breakdown is an open object in the document (its shape is docs/rating.md's): read as Explained. */}
      <QuoteForm onQuote={async (body) => (await client.POST(EXPLAIN, { body })).data as Explained} />
    </>
  );
}

function UploadForm({ onUpload }: { onUpload: (body: CardUpload) => Promise<{ RateCard: RateCard; Changed: boolean }> }) {
  const [file, setFile] = useState<File>();
  const [userId, setUserId] = useState('');
  const { error, run } = useAction();
  const [done, setDone] = useState<string>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    await run(async () => {
      const text = await file!.text();
      let card: CardUpload['Card'];
      try {
        // Whatever the file holds goes to the engine, whose checks answer what is wrong with it.
        card = JSON.parse(text) as CardUpload['Card'];
      } catch {
        throw new Error(`${file!.name} is not JSON: a rate card is a JSON file (docs/rating.md)`);
      }
      const { RateCard, Changed } = await onUpload({ ...(userId ? { UserID: Number(userId) } : {}), Card: card });
      setDone(
        Changed
          ? `Loaded ${RateCard.Name} as version ${RateCard.Version}.`
          : `${RateCard.Name} is already version ${RateCard.Version}; nothing changed.`,
      );
    });
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

/** The quote form's fields (the spec spells Height `Hight`) and what they start with. */
const QUOTE_FIELDS: [keyof Quote['Data'], string][] = [
  ['OriginZip', 'Origin ZIP'],
  ['DestZip', 'Destination ZIP'],
  ['Length', 'Length'],
  ['Width', 'Width'],
  ['Hight', 'Height'],
  ['Weight', 'Weight'],
];
const EXAMPLE_PARCEL: Quote['Data'] = { OriginZip: '90001', DestZip: '10001', Length: '12', Width: '10', Hight: '8', Weight: '5.2' };

function QuoteForm({ onQuote }: { onQuote: (body: Quote) => Promise<Explained> }) {
  const [userId, setUserId] = useState('');
  const [data, setData] = useState<Quote['Data']>(EXAMPLE_PARCEL);
  const [answer, setAnswer] = useState<Explained>();
  const { error, run } = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // A refused quote leaves no earlier breakdown on show.
    if (!(await run(async () => setAnswer(await onQuote({ UserID: Number(userId), Data: data }))))) setAnswer(undefined);
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
