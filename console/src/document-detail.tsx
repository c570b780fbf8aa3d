import { useState, type ReactNode } from 'react';
import { ConfirmDialog } from './ui.js';

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
