// What every bench script does around its work: read its whole-number settings, run, and clean up
// whatever it started (servers, databases, worktrees) on success, failure or Ctrl-C.

export const log = (text) => process.stderr.write(`${text}\n`);

/** A whole-number setting from the environment: at least 1 (or 0, with `zero`), `fallback` when unset. */
export function positiveInteger(name, fallback, { zero = false } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || (!zero && Number(raw) < 1))
    throw new Error(`${name} must be a ${zero ? 'whole number' : 'positive integer'} (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

/**
 * Runs `main(state)` and then `cleanup(state)` (also on SIGINT and SIGTERM, saying `stopping`),
 * and exits: 0, or 1 after naming the failure and the log tails `tails(state)` gives.
 */
export async function runBench(name, { main, cleanup, stopping, tails }) {
  const state = {};
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`\n${signal}: ${stopping}`);
      cleanup(state).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
  let exitCode = 0;
  try {
    await main(state);
  } catch (error) {
    exitCode = 1;
    log(`${name} failed: ${error.message}`);
    for (const tail of tails(state)) log(tail);
  } finally {
    await cleanup(state);
  }
  process.exit(exitCode);
}
