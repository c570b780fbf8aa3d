import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { components } from 'wharf-client';
import { useSession } from '../session.js';
import { ConfirmDialog, DataTable, ErrorNote, Loading, useAction } from '../ui.js';

const KEYS = '/admin/v1/keys' as const;
const ROLES: ApiKey['Role'][] = ['customer', 'operator', 'admin', 'rater'];

type ApiKey = components['schemas']['ListKeysResponse']['Keys'][number];
type NewKey = components['schemas']['CreateKeyRequest'];

/** The company's API keys (admin only): create one (its key shown once), rotate one, revoke one. */
export function ApiKeysPage() {
  const { client, key: signedIn } = useSession();
  const queries = useQueryClient();
  const keys = useQuery({ queryKey: ['keys'], queryFn: async () => (await client.GET(KEYS)).data!.Keys });
  const named = (key: ApiKey) => ({ params: { path: { KeyID: String(key.KeyID) } } });
  const [shown, setShown] = useState<{ title: string; apiKey: string }>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const { error, run } = useAction();
  const refresh = () => queries.invalidateQueries({ queryKey: ['keys'] });

  const rotate = async (key: ApiKey) => {
    await run(async () => {
      const { data } = await client.POST(`${KEYS}/{KeyID}/rotate`, { ...named(key), body: { GraceHours: 24 } });
      const { Key: created, Replaced: replaced } = data as { Key: ApiKey & { Key: string }; Replaced: ApiKey };
      const expiry = created.ExpiresAt ? `; it expires ${shortTime(created.ExpiresAt)}, as the old one was to` : '';
      setShown({
        title: `Key ${created.KeyID} replaces KeyID ${key.KeyID} (the old one works until ${shortTime(replaced.ExpiresAt!)}${expiry})`,
        apiKey: created.Key,
      });
      await refresh();
    });
  };

  return (
    <>
      <h1>API keys</h1>
      {shown && <ShownKey {...shown} onDone={() => setShown(undefined)} />}
      <ErrorNote error={error} />
      {keys.isPending && <Loading what="keys" />}
      <ErrorNote error={keys.error} />
      {keys.data && (
        <DataTable
          caption="The company's keys"
          rows={keys.data}
          rowKey={(key) => String(key.KeyID)}
          empty="No keys."
          columns={[
            { header: 'KeyID', cell: (key) => key.KeyID, numeric: true },
            { header: 'Label', cell: (key) => key.Label },
            { header: 'Role', cell: (key) => key.Role },
            { header: 'Scope', cell: (key) => scopeOf(key) },
            { header: 'Last used', cell: (key) => (key.LastUsedWhen ? shortTime(key.LastUsedWhen) : 'never') },
            {
              header: 'State',
              cell: (key) => <span className={`status status-${key.RevokedWhen ? 'stopped' : 'done'}`}>{stateOf(key)}</span>,
            },
            {
              header: 'Actions',
              cell: (key) =>
                key.RevokedWhen ? null : (
                  <span className="row-actions">
                    {/* A key being replaced already is not rotated again: its replacement is. */}
                    {key.ReplacedBy === null && (
                      <button type="button" onClick={() => void rotate(key)}>
                        Rotate
                      </button>
                    )}
                    {key.KeyID !== signedIn.KeyID && (
                      <button type="button" onClick={() => setRevoking(key)}>
                        Revoke
                      </button>
                    )}
                  </span>
                ),
            },
          ]}
        />
      )}
      {revoking && (
        <ConfirmDialog
          title={`Revoke key ${revoking.KeyID} (${revoking.Label || revoking.Role})`}
          onClose={() => setRevoking(undefined)}
          onConfirm={async () => {
            await client.DELETE(`${KEYS}/{KeyID}`, named(revoking));
            await refresh();
          }}
        >
          <p>Every request with this key is refused from now on, on every process.</p>
        </ConfirmDialog>
      )}
      <CreateKeyForm
        onCreate={async (body) => {
          const { data } = await client.POST(KEYS, { body });
          const created = (data as { Key: ApiKey & { Key: string } }).Key;
          setShown({ title: `Key ${created.KeyID} created`, apiKey: created.Key });
          await refresh();
        }}
      />
    </>
  );
}

function scopeOf(key: ApiKey): string {
  const parts = [
    key.Customers.length ? `customers ${key.Customers.join(', ')}` : '',
    key.Role === 'customer' || key.Role === 'operator'
      ? key.Facilities.length
        ? `facilities ${key.Facilities.join(', ')}`
        : 'every facility'
      : '',
    key.UserIDs.length ? `UserIDs ${key.UserIDs.join(', ')}` : '',
  ];
  return parts.filter(Boolean).join('; ') || 'the whole company';
}

/** An instant as the page shows it: its UTC date and minute. */
const shortTime = (iso: string) => iso.slice(0, 16).replace('T', ' ');

function stateOf(key: ApiKey): string {
  if (key.RevokedWhen) return `Revoked ${shortTime(key.RevokedWhen)}`;
  if (key.ReplacedBy !== null) return `Replaced by key ${key.ReplacedBy}, works until ${shortTime(key.ExpiresAt!)}`;
  if (key.ExpiresAt) return `Active until ${shortTime(key.ExpiresAt)}`;
  return 'Active';
}

/** A new key, shown this once, with a button that copies it. */
function ShownKey({ title, apiKey, onDone }: { title: string; apiKey: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section className="panel notice" aria-labelledby="shown-key-title">
      <h2 id="shown-key-title">{title}</h2>
      <p>Copy it now: Wharf keeps only its hash and cannot show it again.</p>
      <p>
        <code aria-label="New API key">{apiKey}</code>
      </p>
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard.writeText(apiKey).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        Copy
      </button>
      {copied && <span role="status"> Copied.</span>}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

const list = (text: string) =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);

function CreateKeyForm({ onCreate }: { onCreate: (body: NewKey) => Promise<void> }) {
  const [role, setRole] = useState<ApiKey['Role']>('operator');
  const [customers, setCustomers] = useState('');
  const [facilities, setFacilities] = useState('');
  const [userIds, setUserIds] = useState('');
  const [label, setLabel] = useState('');
  const { error, run } = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      await onCreate({
        Role: role,
        ...(customers ? { Customers: list(customers) } : {}),
        ...(facilities ? { Facilities: list(facilities) } : {}),
        ...(userIds ? { UserIDs: list(userIds).map(Number) } : {}),
        ...(label ? { Label: label } : {}),
      });
      setLabel('');
    });
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">New key</h2>
      <div className="row">
        <label>
          Role
          <select value={role} onChange={(event) => setRole(event.target.value as ApiKey['Role'])}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <label>
          Label
          <input value={label} onChange={(event) => setLabel(event.target.value)} maxLength={200} />
        </label>
        <label>
          Customers (comma-separated)
          <input value={customers} onChange={(event) => setCustomers(event.target.value)} />
        </label>
        <label>
          Facilities (comma-separated; empty: every one)
          <input value={facilities} onChange={(event) => setFacilities(event.target.value)} />
        </label>
        <label>
          UserIDs (rater)
          <input value={userIds} onChange={(event) => setUserIds(event.target.value)} />
        </label>
      </div>
      <ErrorNote error={error} />
      <button type="submit" className="primary">
        Create key
      </button>
    </form>
  );
}
