import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package.json nearest above this file, as Node finds a module's own: the project's, whether
 * this runs from src/ (tests), dist/ (an install) or a build made elsewhere inside the project.
 */
function nearestPackageJson(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('no package.json above the Wharf code');
    dir = parent;
  }
}

/** Wharf's version, as its package.json says; read once, here only (`--version`, `/healthz`). */
export const VERSION: string = (JSON.parse(readFileSync(nearestPackageJson(), 'utf8')) as { version: string }).version;
