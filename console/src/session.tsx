import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { createWharfClient, WharfError, type components, type WharfClient } from 'wharf-client';

/**
 * Who is signed in: the API key (kept in sessionStorage, so it is gone with the tab), what Wharf
 * says the key may do, and the client that sends it. A 401 from any call ends the session and
 * shows the API's message on the sign-in page.
 */

const KEY_ITEM = 'wharf.console.key';
const FACILITY_ITEM = 'wharf.console.facility';

export const API_KEY_PATH = '/shared/bam/v1/public/edi/api-key' as const;

/** What Wharf says the signed-in key may do (`GET …/edi/api-key`). */
export type KeyDescription = components['schemas']['DescribeApiKeyResponse'];

export interface Session {
  key: KeyDescription;
  client: WharfClient;
  /** The facility the pages work in (a key may reach several). */
  facilityId: string;
  chooseFacility(facilityId: string): void;
  signOut(message?: string): void;
}

interface SessionState {
  session: Session | undefined;
  /** Why the last session ended or the last sign-in failed, in the API's words. */
  notice: string | undefined;
  signIn(apiKey: string): Promise<void>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

/** The message of a refusal as the API put it, or what went wrong in the browser. */
export function messageOf(error: unknown): string {
  if (error instanceof WharfError) return error.problems.map((problem) => problem.error).join('; ') || error.message;
  return error instanceof Error ? error.message : String(error);
}

function clientFor(apiKey: string, onUnauthorized: (message: string) => void): WharfClient {
  return createWharfClient({
    baseUrl: window.location.origin,
    apiKey,
    maxRetryWaitMs: 10_000,
    fetch: async (request) => {
      const response = await fetch(request);
      if (response.status === 401) {
        const body = (await response
          .clone()
          .json()
          .catch(() => [])) as { error?: string }[];
        onUnauthorized(body[0]?.error ?? 'The API key is no longer valid');
      }
      return response;
    },
  });
}

async function describeKey(client: WharfClient): Promise<KeyDescription> {
  const { data } = await client.GET(API_KEY_PATH);
  return data!;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [active, setActive] = useState<{ key: KeyDescription; client: WharfClient; facilityId: string }>();
  const [notice, setNotice] = useState<string>();

  const signOut = useCallback((message?: string) => {
    sessionStorage.removeItem(KEY_ITEM);
    setActive(undefined);
    setNotice(message);
  }, []);

  const signIn = useCallback(
    async (apiKey: string) => {
      const client = clientFor(apiKey, (message) => signOut(message));
      let key: KeyDescription;
      try {
        key = await describeKey(client);
      } catch (error) {
        sessionStorage.removeItem(KEY_ITEM);
        setNotice(messageOf(error));
        return;
      }
      if (key.Role !== 'operator' && key.Role !== 'admin') {
        setNotice(`The console is for operator and admin keys; this key's role is ${key.Role}`);
        return;
      }
      if (key.Facilities.length === 0) {
        setNotice('This key reaches no facility yet: add one to the company first');
        return;
      }
      sessionStorage.setItem(KEY_ITEM, apiKey);
      const saved = sessionStorage.getItem(FACILITY_ITEM);
      const facilityId = saved && key.Facilities.includes(saved) ? saved : key.Facilities[0]!;
      setNotice(undefined);
      setActive({ key, client, facilityId });
    },
    [signOut],
  );

  const value = useMemo<SessionState>(() => {
    const session: Session | undefined = active && {
      ...active,
      chooseFacility(facilityId) {
        sessionStorage.setItem(FACILITY_ITEM, facilityId);
        setActive({ ...active, facilityId });
      },
      signOut,
    };
    return { session, notice, signIn };
  }, [active, notice, signIn, signOut]);

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSessionState(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSessionState outside SessionProvider');
  return state;
}

/** The signed-in session; pages under the signed-in layout only. */
export function useSession(): Session {
  const { session } = useSessionState();
  if (!session) throw new Error('useSession without a session');
  return session;
}

/** The key saved in this tab, to sign in again after a reload. */
export const savedKey = () => sessionStorage.getItem(KEY_ITEM);
