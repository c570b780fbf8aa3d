import { useState, type FormEvent } from 'react';
import { useSessionState } from '../session.js';

export function SignInPage() {
  const { signIn, notice } = useSessionState();
  const [apiKey, setApiKey] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    await signIn(apiKey.trim());
    setBusy(false);
  };
  return (
    <main className="sign-in">
      <h1>Wharf console</h1>
      <form onSubmit={submit}>
        <p className="muted">Sign in with an operator or admin API key. It is kept in this tab only and forgotten when you close it.</p>
        <label>
          API key
          <input
            type="password"
            autoComplete="off"
            spellCheck={false}
            autoFocus
            value={apiKey}
            onChange={(event) => setApiKey(event.target.value)}
            required
          />
        </label>
        {notice && (
          <p role="alert" className="error">
            {notice}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
