/**
 * The child processes of the benchmark: CPU pinning, free ports, starting servers (logging to a
 * file), waiting until they answer, running the CLI, and stopping every child that was started.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const SERVER_CORE = 1;
const LOAD_CORE = 0;

/**
 * Decides the CPU pinning: servers on core 1 under `taskset`, this process (the load generator) on
 * core 0. Without `taskset` or with a single core, nothing is pinned.
 */
export function choosePinning() {
  const cores = availableParallelism();
  const hasTaskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!hasTaskset || cores < 2) {
    const why = hasTaskset ? `only ${cores} core` : 'taskset not found';
    return { pinned: false, cores, serverPrefix: [], description: `none (${why}); servers and load generator share the CPUs` };
  }
  const self = spawnSync('taskset', ['-a', '-cp', String(LOAD_CORE), String(process.pid)], { stdio: 'ignore' });
  if (self.status !== 0) {
    return { pinned: false, cores, serverPrefix: [], description: 'none (taskset could not pin the load generator)' };
  }
  return {
    pinned: true,
    cores,
    serverCore: SERVER_CORE,
    loadCore: LOAD_CORE,
    serverPrefix: ['taskset', '-c', String(SERVER_CORE)],
    description: `servers on core ${SERVER_CORE} (taskset -c ${SERVER_CORE}), load generator on core ${LOAD_CORE} (of ${cores})`,
  };
}

/** A TCP port that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts and stops the servers; every child started through it is stopped by stopAll(). */
export class ProcessGroup {
  #children = [];

  constructor(logDir, pinning) {
    this.logDir = logDir;
    this.pinning = pinning;
  }

  /** Starts `node <args>` as a pinned server; its output goes to <logDir>/<name>.log. */
  startServer(name, args, env) {
    const [command, ...prefix] = [...this.pinning.serverPrefix, process.execPath];
    const logFile = join(this.logDir, `${name}.log`);
    const log = createWriteStream(logFile);
    const child = spawn(command, [...prefix, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const entry = { name, args, env, child, logFile, exited: false, exitCode: null };
    entry.exit = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        entry.exited = true;
        entry.exitCode = code ?? signal;
        resolve();
      }),
    );
    child.once('error', (error) => {
      entry.exited = true;
      entry.exitCode = error.message;
    });
    this.#children.push(entry);
    return entry;
  }

  /** Waits until `probe()` resolves true; fails if the server exits or takes longer than `timeoutMs`. */
  async waitUntilReady(entry, probe, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (entry.exited) throw new Error(`${entry.name} exited (${entry.exitCode}) before it was ready`);
      try {
        if (await probe()) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${entry.name} was not ready after ${timeoutMs} ms`);
  }

  /** Throws if a server has exited: a result measured against a dead server means nothing. */
  assertAlive() {
    for (const entry of this.#children) {
      if (entry.exited) throw new Error(`${entry.name} exited unexpectedly (${entry.exitCode})`);
    }
  }

  /** The last lines of every server's log, for a failure report. */
  logTails(lines = 20) {
    return this.#children.map((entry) => {
      let text = '';
      try {
        text = readFileSync(entry.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        text = '(no log)';
      }
      return `--- ${entry.name} (${entry.exited ? `exited ${entry.exitCode}` : 'running'}) ---\n${text || '(empty)'}`;
    });
  }

  /** SIGTERM to a running child, SIGKILL if it is still running after `graceMs`; forgets it. */
  async stop(entry, graceMs = 5000) {
    if (!entry.exited) {
      entry.child.kill('SIGTERM');
      const timer = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([entry.exit, timer]);
      if (!entry.exited) {
        entry.child.kill('SIGKILL');
        await entry.exit;
      }
    }
    this.#children = this.#children.filter((child) => child !== entry);
  }

  /**
   * Stops a server gracefully and starts it again as it was (same arguments, so the same port and
   * database), waiting until `probe()` is true: a new process, whose JIT and memory layout are drawn
   * anew (docs/performance.md, "Two processes of the same code"). Answers the new entry.
   */
  async restart(entry, probe) {
    await this.stop(entry, 20_000);
    if (entry.exitCode !== 0) throw new Error(`${entry.name} stopped with ${entry.exitCode}`);
    const started = this.startServer(entry.name, entry.args, entry.env);
    await this.waitUntilReady(started, probe);
    return started;
  }

  /** Stops every child (see stop). */
  async stopAll(graceMs = 5000) {
    await Promise.all([...this.#children].map((entry) => this.stop(entry, graceMs)));
  }
}

/** Runs `node dist/cli.js <args>` and returns its trimmed stdout; throws with its stderr on failure. */
export async function runCli(cliPath, args, env) {
  try {
    const { stdout } = await execFileAsync(process.execPath, [cliPath, ...args], { env });
    return stdout.trim();
  } catch (error) {
    throw new Error(`wharf ${args.join(' ')} failed: ${(error.stderr || error.message).trim()}`);
  }
}

/**
 * Runs `node <args>` to its end on the servers' core (under the same `taskset` prefix as the
 * servers, so that an in-process figure is measured on the same core as the HTTP ones) and returns
 * its trimmed stdout; throws with its stderr on failure.
 */
export async function runPinned(pinning, args, env = process.env) {
  const [command, ...prefix] = [...pinning.serverPrefix, process.execPath];
  try {
    const { stdout } = await execFileAsync(command, [...prefix, ...args], { env, maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    throw new Error(`node ${args.join(' ')} failed: ${(error.stderr || error.message).trim()}`);
  }
}

/** The settings of Wharf's own that a bench never inherits from the shell it runs in. */
const INHERITED = ['DATABASE_URL', 'PORT', 'HOST', 'WHARF_ONLY', 'BODY_LIMIT', 'SHUTDOWN_TIMEOUT_MS', 'RATE_LIMIT_EDI', 'RATE_LIMIT_RATE'];

/**
 * The environment of Wharf and its CLI in a bench: the default durability (synchronous=FULL), quiet
 * logs, none of Wharf's settings inherited (nor those starting with `prefixes`), then `set`.
 */
export function wharfEnv({ prefixes = [], set = {} } = {}) {
  const env = { ...process.env, LOG_LEVEL: 'warn', SQLITE_SYNCHRONOUS: 'FULL' };
  for (const name of Object.keys(env)) {
    if (INHERITED.includes(name) || prefixes.some((prefix) => name.startsWith(prefix))) delete env[name];
  }
  return { ...env, ...set };
}
