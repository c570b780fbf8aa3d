/**
 * The real `wharf` command as a process, for the tests that need one: the build of this run
 * (test/global-build.ts), free ports, a server started and awaited by its readiness, and stopped.
 * Nothing here waits a fixed time: a busy machine makes a process slower, never a test wrong.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { promisify } from 'node:util';
import { expect, inject } from 'vitest';

const execFileAsync = promisify(execFile);

export interface Wharf {
  name: string;
  child: ChildProcess;
  base: string;
  /** Everything the process wrote to stdout and stderr. */
  output: string[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exited: boolean;
}

/** Runs a `wharf` command of this run's build and answers what it printed (rejects on a non-zero exit). */
export async function runWharf(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, [inject('wharfCli'), ...args], { env });
  return stdout.trim();
}

/** Free ports from the OS: all listeners are open at once, so the ports differ, then closed. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
      ports.push((server.address() as AddressInfo).port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/** Starts `wharf serve` on `port` against the database at `databaseUrl`; `waitReady` before use. */
export function startWharf(
  name: string,
  databaseUrl: string,
  port: number,
  flags: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Wharf {
  const child = spawn(
    process.execPath,
    [inject('wharfCli'), 'serve', '--db', databaseUrl, '--port', String(port), '--host', '127.0.0.1', ...flags],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const wharf: Wharf = {
    name,
    child,
    base: `http://127.0.0.1:${port}`,
    output: [],
    exited: false,
    exit: new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        wharf.exited = true;
        resolve({ code, signal });
      }),
    ),
  };
  child.stdout!.on('data', (chunk) => wharf.output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => wharf.output.push(String(chunk)));
  return wharf;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once `/readyz` answers ready; rejects with the process's output if it exits first. It
 * has no deadline of its own: the hook's timeout bounds it, however long a busy machine takes.
 */
export async function waitReady(wharf: Wharf): Promise<void> {
  for (;;) {
    if (wharf.exited) throw new Error(`${wharf.name} exited before it was ready:\n${wharf.output.join('')}`);
    try {
      const response = await fetch(`${wharf.base}/readyz`);
      if (response.status === 200 && ((await response.json()) as { status?: string }).status === 'ready') return;
    } catch {
      // Not listening yet.
    }
    await pause(50);
  }
}

/**
 * Stops every process still running with SIGTERM and expects each to stop gracefully (in-flight
 * work finished, the pool closed, exit code 0); kills any that does not, whatever happens.
 */
export async function expectGracefulStops(wharfs: Wharf[]): Promise<void> {
  try {
    const running = wharfs.filter((wharf) => !wharf.exited);
    const exits = await Promise.all(running.map(stopWharf));
    for (const [i, exit] of exits.entries()) {
      expect(exit, `${running[i]!.name} on SIGTERM; its output:\n${running[i]!.output.join('')}`).toEqual({ code: 0, signal: null });
    }
  } finally {
    for (const wharf of wharfs) if (!wharf.exited) wharf.child.kill('SIGKILL');
  }
}

/** SIGTERM, then the exit: a graceful stop finishes in-flight work and exits 0. */
export async function stopWharf(wharf: Wharf): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (!wharf.exited) wharf.child.kill('SIGTERM');
  return wharf.exit;
}
