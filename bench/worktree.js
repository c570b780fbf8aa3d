/**
 * Wharf as of a given commit, for the benchmarks that compare commits (bench/outbox-cost.js) or
 * measure one that other people's edits in progress must not change (bench/webhook-dispatch.js): a
 * detached `git worktree` of the commit in a temporary directory, this checkout's node_modules
 * linked into it, built with tsc into its own dist/. removeBuild() takes it away again, the
 * worktree's entry in .git included.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Runs git in `root`; answers its trimmed stdout, throws with its stderr. */
export function git(root, ...args) {
  return gitRaw(root, undefined, ...args).trim();
}

/** Runs git in `root` with `input` (if any) on its stdin; answers its stdout as it is. */
export function gitRaw(root, input, ...args) {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${(result.stderr || result.stdout).trim()}`);
  return result.stdout;
}

/** The full commit `rev` names in the repository at `root`, its short form and subject line. */
export function describeCommit(root, rev) {
  const commit = git(root, 'rev-parse', '--verify', `${rev}^{commit}`);
  return { commit, short: commit.slice(0, 7), subject: git(root, 'log', '-1', '--format=%s', commit) };
}

/**
 * Makes a detached worktree of `rev` at `dir` (which must not exist), links `root`'s node_modules
 * into it, lets `prepare(dir)` change its sources if given, and builds it (`node
 * node_modules/typescript/bin/tsc -p tsconfig.build.json`); answers
 * { commit, short, subject, dir, cliPath, seconds }. `state.worktrees` gets `dir` before the worktree
 * is made, so that a cleanup after a failure or a Ctrl-C halfway removes it, and `state.building`
 * the compiler's process while it runs, for stopBuilding().
 */
export async function buildCommit(root, rev, dir, state, { prepare } = {}) {
  const described = describeCommit(root, rev);
  const started = performance.now();
  (state.worktrees ??= []).push(dir);
  git(root, 'worktree', 'add', '--detach', dir, described.commit);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  prepare?.(dir);
  await new Promise((resolve, reject) => {
    const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
    state.building = execFile(
      process.execPath,
      [tsc, '-p', 'tsconfig.build.json'],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        state.building = undefined;
        if (error) reject(new Error(`building ${described.short} failed: ${(stdout || stderr || error.message).trim().slice(0, 2000)}`));
        else resolve();
      },
    );
  });
  const cliPath = join(dir, 'dist', 'cli.js');
  if (!existsSync(cliPath)) throw new Error(`building ${described.short} made no dist/cli.js`);
  return { ...described, dir, cliPath, seconds: (performance.now() - started) / 1000 };
}

/** Stops a build still running (a Ctrl-C during it), so that it writes nothing after the cleanup; waits for it. */
export async function stopBuilding(state) {
  const child = state.building;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Removes the worktree at `dir`: first the link to node_modules (so that nothing can follow it
 * into this checkout's packages), then `git worktree remove --force`; if git cannot, the directory
 * itself and `git worktree prune`. Answers the problems, if any.
 */
export function removeBuild(root, dir) {
  const problems = [];
  const link = join(dir, 'node_modules');
  try {
    if (lstatSync(link).isSymbolicLink()) unlinkSync(link);
  } catch {
    // not made yet
  }
  if (existsSync(dir)) {
    try {
      git(root, 'worktree', 'remove', '--force', dir);
    } catch (error) {
      problems.push(error.message);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  try {
    git(root, 'worktree', 'prune');
  } catch (error) {
    problems.push(error.message);
  }
  return problems;
}
