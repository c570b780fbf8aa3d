import { closeSync, constants, copyFileSync, linkSync, lstatSync, mkdirSync, openSync, writeFileSync, type Stats } from 'node:fs';

/**
 * The files Wharf writes hold every tenant's data (the SQLite database and its WAL, backups, X12
 * exports): they are made readable and writable by their owner only, and a file Wharf makes is
 * always a new one. Creating with O_CREAT|O_EXCL never follows a symbolic link and never opens
 * what is already there (a link that points nowhere included), so a name planted in a shared
 * directory cannot redirect a write or be overwritten.
 */

/** rw for the owner, nothing for anyone else (the umask can only take bits away). */
export const OWNER_ONLY = 0o600;
/** A directory Wharf makes for such files: only its owner may list or enter it. */
export const OWNER_ONLY_DIRECTORY = 0o700;

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** What is at `path` itself (a symbolic link is not followed), or undefined when nothing is. */
export function whatIsAt(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether anything is at `path`: a file, a directory, or a symbolic link (even one that points nowhere). */
export const somethingAt = (path: string): boolean => whatIsAt(path) !== undefined;

/** Makes `path` an empty owner-only file; answers false, changing nothing, when something is there already. */
export function createOwnerOnlyFile(path: string): boolean {
  try {
    closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, OWNER_ONLY));
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
}

/** Writes `data` to a new owner-only file at `path`; answers false, writing nothing, when something is there already. */
export function writeNewFile(path: string, data: string): boolean {
  try {
    writeFileSync(path, data, { flag: 'wx', mode: OWNER_ONLY });
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
}

/** Makes a directory (and its missing parents) owner-only; one that exists is left as it is. */
export function makeOwnerOnlyDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: OWNER_ONLY_DIRECTORY });
}

/** What `link` answers on a file system that has no hard links (FAT, some network shares). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Gives the complete file at `from` the new name `to`, never replacing anything there: answers
 * false, changing nothing, when something is at `to`. A hard link does it at once, so `to` is
 * never seen half written; without hard links, a copy to a new file made exclusively (with `from`'s
 * owner-only mode). `from` stays for the caller to remove.
 */
export function publishNewFile(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(errorCode(error) ?? '')) throw error;
  }
  try {
    copyFileSync(from, to, constants.COPYFILE_EXCL);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
}
