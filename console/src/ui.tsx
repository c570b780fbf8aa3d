import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { messageOf } from './session.js';

/** The console's small parts: status text, tables, paging, errors in place, and the confirmation dialog. */

const STATUS_TONES: Record<string, string> = {
  Imported: 'new',
  Open: 'active',
  'In Progress': 'active',
  'Partial Received': 'warn',
  'Partial Shipped': 'active',
  Closed: 'done',
  Shipped: 'done',
  'Short Shipped': 'warn',
  'Force Closed': 'warn',
  Cancelled: 'stopped',
  Pending: 'active',
  Succeeded: 'done',
  Failed: 'stopped',
};

/** A status as text, its colour a second cue (never the only one). */
export function StatusText({ status }: { status: string }) {
  return <span className={`status status-${STATUS_TONES[status] ?? 'new'}`}>{status}</span>;
}

/** A refusal or failure, in place, in the API's words. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {messageOf(error)}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  numeric?: boolean;
}

/** A table with a caption (its accessible name) and a message when there is nothing to show. */
export function DataTable<Row>({
  caption,
  columns,
  rows,
  rowKey,
  empty,
}: {
  caption: string;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string;
  empty: string;
}) {
  return (
    <div className="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col" className={column.numeric ? 'numeric' : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="muted">
                {empty}
              </td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr key={rowKey(row)}>
                {columns.map((column) => (
                  <td key={column.header} className={column.numeric ? 'numeric' : undefined}>
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/** Page links for a list: the API pages, so a table never holds more than a page. */
export function Pager({
  pageNo,
  totalPage,
  totalCount,
  onPage,
}: {
  pageNo: number;
  totalPage: number;
  totalCount: number;
  onPage: (pageNo: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={pageNo <= 1} onClick={() => onPage(pageNo - 1)}>
        Previous page
      </button>
      <span>
        Page {pageNo} of {Math.max(totalPage, 1)} · {totalCount} in all
      </span>
      <button type="button" disabled={pageNo >= totalPage} onClick={() => onPage(pageNo + 1)}>
        Next page
      </button>
    </nav>
  );
}

/**
 * A modal confirmation: a dialog named by its title, with a "Note" field and a "Confirm" button.
 * `onConfirm` runs the action; its refusal stays in the dialog, in the API's words.
 */
export function ConfirmDialog({
  title,
  children,
  onConfirm,
  onClose,
}: {
  title: string;
  children?: ReactNode;
  onConfirm: (note: string) => Promise<unknown>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [note, setNote] = useState('');
  const { error, run } = useAction();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const done = await run(() => onConfirm(note.trim()));
    setBusy(false);
    if (done) onClose();
  };
  return (
    <dialog ref={dialog} aria-labelledby={titleId} onClose={onClose}>
      <form onSubmit={submit}>
        <h2 id={titleId}>{title}</h2>
        {children}
        <label>
          Note
          <textarea value={note} onChange={(event) => setNote(event.target.value)} maxLength={1000} rows={3} />
        </label>
        <ErrorNote error={error} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Confirm
          </button>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** The customer a page works for, when the key reaches several. */
export function CustomerPicker({
  customers,
  value,
  onChange,
}: {
  customers: string[];
  value: string;
  onChange: (customerId: string) => void;
}) {
  return (
    <label>
      Customer
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        {customers.map((customer) => (
          <option key={customer}>{customer}</option>
        ))}
      </select>
    </label>
  );
}

/**
 * A list page's search: a "Search" field sent with Enter or "Find", an optional "Status" filter that
 * applies at once, and the page's own fields before them (a customer, say).
 */
export function SearchForm({
  placeholder,
  onSearch,
  statuses,
  status,
  onStatus,
  children,
}: {
  placeholder: string;
  onSearch: (term: string) => void;
  statuses?: readonly string[];
  status?: string;
  onStatus?: (status: string) => void;
  children?: ReactNode;
}) {
  const [draft, setDraft] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(draft.trim());
  };
  return (
    <form className="filters" role="search" onSubmit={submit}>
      {children}
      <label>
        Search
        <input type="search" placeholder={placeholder} value={draft} onChange={(event) => setDraft(event.target.value)} />
      </label>
      {statuses && (
        <label>
          Status
          <select value={status} onChange={(event) => onStatus?.(event.target.value)}>
            <option value="">Any</option>
            {statuses.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      )}
      <button type="submit">Find</button>
    </form>
  );
}

/**
 * A form's or a button's action: its refusal kept to show in place (in the API's words), cleared
 * when it runs again. `run` answers whether the action went through.
 */
export function useAction() {
  const [error, setError] = useState<unknown>();
  const run = async (action: () => Promise<unknown>): Promise<boolean> => {
    setError(undefined);
    try {
      await action();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    }
  };
  return { error, run };
}
