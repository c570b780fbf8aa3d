import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useSession } from './session.js';
import { ConfirmDialog, ErrorNote, Loading } from './ui.js';

/** What a receipt's and an order's pages share: their facts, their timeline, and new confirmation numbers. */

export interface TimelineEntry {
  When: string;
  Action: string;
  FromStatus: string | null;
  ToStatus: string;
  Note: string | null;
  KeyID: number | null;
}

/** The answer of a 3PL get: the document, the moves its state allows now, and what happened to it. */
export type DocumentAnswer<Name extends 'Receipt' | 'Order', Line> = {
  [key in Name]: {
    SVCPOID: string;
    CustomerID: string;
    PONo: string;
    ReferenceNo: string | number | null;
    Status: string;
    CarrierName: string | null;
    ScheduledDate?: string | null;
    CreatedWhen: string;
    Items: Line[];
  };
} & { Moves: string[]; Timeline: TimelineEntry[] };

/** How a receipt's or an order's page reaches the API, and the moves it offers besides its confirmation form. */
export interface DetailKind {
  /** The document's key in the get's answer. */
  name: 'Receipt' | 'Order';
  /** The 3PL operations' base: `…/get`, `…/<move>`, `…/post-confirmation`. */
  threePl: string;
  /** The customer's search of its confirmations (RC, DC), by PONo. */
  confirmationsPath: string;
  /** The moves other than the confirmation, each named by its verb: the operation is `<threePl>/<move>`. */
  moves: { move: string; label: string }[];
  /** The move a confirmation form makes, and its button. */
  confirmation: { move: 'receive' | 'ship'; label: 'Receive' | 'Ship' };
}

/**
 * A document's 3PL get and its confirmations, read again after every change; `act` posts one of its
 * operations (a move or a confirmation) for it.
 */
export function useDocumentDetail<Answer extends { Moves: string[] }, Confirmation>(kind: DetailKind, svcpoid: string) {
  const { client, key, facilityId } = useSession();
  const queries = useQueryClient();
  // The kind picks the receipts' or the orders' operation at run time; both take and answer the shapes used here.
  const post = client.POST as unknown as (path: string, init: { body: unknown }) => Promise<{ data?: unknown }>;
  const where = { CompanyID: key.CompanyID, FacilityID: facilityId };
  const queryKey = [kind.name, facilityId, svcpoid];
  const detail = useQuery({
    queryKey,
    queryFn: async () => (await post(`${kind.threePl}/get`, { body: { ...where, SVCPOID: svcpoid } })).data as Answer,
  });
  const document = (detail.data as Partial<Record<DetailKind['name'], { CustomerID: string; PONo: string }>> | undefined)?.[kind.name];
  const confirmations = useQuery({
    queryKey: [...queryKey, 'confirmations'],
    enabled: document !== undefined,
    queryFn: async () => {
      const body = { ...where, CustomerID: document!.CustomerID, PONo: document!.PONo, Paging: { PageNo: 1, PageSize: 100 } };
      return (await post(kind.confirmationsPath, { body })).data as Confirmation[];
    },
  });
  const act = async (operation: string, body: object = {}) => {
    await post(`${kind.threePl}/${operation}`, { body: { ...where, SVCPOID: svcpoid, ...body } });
    await queries.invalidateQueries({ queryKey });
  };
  return { detail, confirmations, act };
}

/** A document's page before its answer: loading, or the API's refusal under its SVCPOID. */
export function DocumentPending({ svcpoid, error }: { svcpoid: string; error: unknown }) {
  if (!error) return <Loading what={svcpoid} />;
  return (
    <>
      <h1>{svcpoid}</h1>
      <ErrorNote error={error} />
    </>
  );
}

/**
 * The buttons of the moves the document's state allows (as the get's Moves say), each confirmed in
 * a dialog with a Note; the confirmation form's button opens the page's own form.
 */
export function DocumentMoves({
  kind,
  svcpoid,
  allowed,
  act,
  onConfirmation,
}: {
  kind: DetailKind;
  svcpoid: string;
  allowed: string[];
  act: (operation: string, body?: object) => Promise<void>;
  onConfirmation: () => void;
}) {
  const [chosen, setChosen] = useState<DetailKind['moves'][number]>();
  return (
    <div className="actions" role="group" aria-label="Actions">
      {kind.moves
        .filter(({ move }) => allowed.includes(move))
        .map((move) => (
          <button key={move.move} type="button" onClick={() => setChosen(move)}>
            {move.label}
          </button>
        ))}
      {allowed.includes(kind.confirmation.move) && (
        <button type="button" className="primary" onClick={onConfirmation}>
          {kind.confirmation.label}
        </button>
      )}
      {chosen && (
        <ConfirmDialog
          title={`${chosen.label} ${svcpoid}`}
          onClose={() => setChosen(undefined)}
          onConfirm={(note) => act(chosen.move, note ? { Note: note } : {})}
        />
      )}
    </div>
  );
}

export function DocumentFacts({ facts }: { facts: [string, ReactNode][] }) {
  return (
    <dl className="facts">
      {facts.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Timeline({ entries }: { entries: TimelineEntry[] }) {
  return (
    <>
      <h2 id="timeline-title">Timeline</h2>
      <ol className="timeline" aria-labelledby="timeline-title">
        {entries.map((entry, index) => (
          <li key={index}>
            <time dateTime={entry.When}>{entry.When.slice(0, 19).replace('T', ' ')}</time> {entry.Action}
            {entry.FromStatus ? ` (${entry.FromStatus} → ${entry.ToStatus})` : ` (${entry.ToStatus})`}
            {entry.KeyID !== null && ` by key ${entry.KeyID}`}
            {entry.Note && <q>{entry.Note}</q>}
          </li>
        ))}
      </ol>
    </>
  );
}

/** A ConfirmationNo or AdjustmentNo for a form: the prefix and the time to the second, which staff may change. */
export function newConfirmationNo(prefix: 'RCV' | 'SHP' | 'ADJ'): string {
  const now = new Date();
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${prefix}-${stamp}`;
}

export interface QuantityLine {
  label: string;
  /** What the field starts with: what is still expected or allocated, when that is known without arithmetic. */
  suggested: string;
}

export interface Confirmation {
  confirmationNo: string;
  close: boolean;
  note: string;
  /** For each line, the quantity typed: '' or 0 leaves the line out. */
  quantities: string[];
}

/** A receiving or shipment confirmation form: a ConfirmationNo made for the user, a quantity per line, Close, and the Note. */
export function QuantitiesDialog({
  title,
  prefix,
  legend,
  lines,
  closeLabel,
  children,
  onClose,
  onSubmit,
}: {
  title: string;
  prefix: 'RCV' | 'SHP';
  legend: string;
  lines: QuantityLine[];
  closeLabel: string;
  children?: ReactNode;
  onClose: () => void;
  onSubmit: (confirmation: Confirmation) => Promise<void>;
}) {
  const [confirmationNo, setConfirmationNo] = useState(() => newConfirmationNo(prefix));
  const [close, setClose] = useState(false);
  const [quantities, setQuantities] = useState(() => lines.map((line) => line.suggested));
  return (
    <ConfirmDialog title={title} onClose={onClose} onConfirm={(note) => onSubmit({ confirmationNo, close, note, quantities })}>
      <label>
        ConfirmationNo
        <input value={confirmationNo} onChange={(event) => setConfirmationNo(event.target.value)} required maxLength={50} />
      </label>
      <fieldset>
        <legend>{legend}</legend>
        {lines.map((line, index) => (
          <label key={index}>
            {line.label}
            <input
              inputMode="decimal"
              value={quantities[index]}
              onChange={(event) => setQuantities(quantities.map((q, i) => (i === index ? event.target.value : q)))}
            />
          </label>
        ))}
      </fieldset>
      {children}
      <label className="inline">
        <input type="checkbox" checked={close} onChange={(event) => setClose(event.target.checked)} />
        {closeLabel}
      </label>
    </ConfirmDialog>
  );
}

/** The lines a confirmation sends: those with a quantity other than 0. */
export function typedLines<Line>(lines: Line[], quantities: string[]): { line: Line; quantity: string }[] {
  return lines
    .map((line, index) => ({ line, quantity: quantities[index]!.trim() }))
    .filter(({ quantity }) => quantity !== '' && Number(quantity) !== 0);
}
