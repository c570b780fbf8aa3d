/**
 * Vitest global setup: compiles `src/` once per change of the sources, for the tests that run the
 * real `wharf` command as a process. The build is named by a hash of what it is built from, so a
 * run with unchanged sources reuses it, and two runs at once never write into each other's.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILDS = join(ROOT, '.test-build');
/** Builds unused for this long are removed; a run never takes nearly as long. */
const STALE_MS = 6 * 60 * 60 * 1000;

declare module 'vitest' {
  export interface ProvidedContext {
    /** The compiled `wharf` command (dist/cli.js beside copies of package.json and examples/). */
    wharfCli: string;
    /** The operator console built from `console/` as it is now (what /console/ serves in the tests). */
    consoleDir: string;
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function hashOf(files: string[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

const sourceHash = () =>
  hashOf([
    ...filesUnder(join(ROOT, 'src')),
    ...filesUnder(join(ROOT, 'examples')),
    join(ROOT, 'tsconfig.json'),
    join(ROOT, 'tsconfig.build.json'),
    join(ROOT, 'package.json'),
  ]);

const CONSOLE = join(ROOT, 'console');
const consoleHash = () =>
  hashOf([
    ...filesUnder(join(CONSOLE, 'src')),
    ...['index.html', 'vite.config.ts', 'package.json'].map((name) => join(CONSOLE, name)),
    ...filesUnder(join(ROOT, 'client', 'dist')),
  ]);

/** Builds `console/` with Vite into the test builds, once per change of its sources (or of the client it uses). */
async function buildConsole(): Promise<string> {
  const build = join(BUILDS, `console-${consoleHash()}`);
  if (existsSync(build)) return build;
  const partial = `${build}.${process.pid}.partial`;
  await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', partial, '--emptyOutDir', '--logLevel', 'warn'],
    {
      cwd: CONSOLE,
    },
  );
  try {
    renameSync(partial, build);
  } catch {
    rmSync(partial, { recursive: true, force: true });
  }
  return build;
}

function removeStaleBuilds(...keep: string[]): void {
  for (const name of readdirSync(BUILDS)) {
    const path = join(BUILDS, name);
    if (!keep.includes(path) && Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const build = join(BUILDS, sourceHash());
  if (!existsSync(build)) {
    const partial = `${build}.${process.pid}.partial`;
    mkdirSync(partial, { recursive: true });
    await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(partial, 'dist')],
      { cwd: ROOT },
    );
    // The package's layout: code that reads ../package.json or ../examples/ from dist/ finds them.
    copyFileSync(join(ROOT, 'package.json'), join(partial, 'package.json'));
    cpSync(join(ROOT, 'examples'), join(partial, 'examples'), { recursive: true });
    try {
      renameSync(partial, build);
    } catch {
      // Another run finished the same build first; use that one.
      rmSync(partial, { recursive: true, force: true });
    }
  }
  const consoleBuild = await buildConsole();
  removeStaleBuilds(build, consoleBuild);
  project.provide('wharfCli', join(build, 'dist', 'cli.js'));
  project.provide('consoleDir', consoleBuild);
}
