import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createOwnerOnlyFile, makeOwnerOnlyDirectory, publishNewFile, writeNewFile } from '../../src/lib/owner-only-files.js';

/** Files Wharf makes are new and owner-only: nothing at the name is opened, replaced or followed. */

const dir = mkdtempSync(join(tmpdir(), 'wharf-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** A fresh folder with a file `taken` ("taken"), and a link `dangling` to `elsewhere/target`, a folder with nothing in it. */
function setUp(name: string) {
  const root = join(dir, name);
  makeOwnerOnlyDirectory(join(root, 'elsewhere'));
  writeFileSync(join(root, 'taken'), 'taken');
  symlinkSync(join(root, 'elsewhere', 'target'), join(root, 'dangling'));
  return { root, path: (file: string) => join(root, file), elsewhere: () => readdirSync(join(root, 'elsewhere')) };
}

describe('owner-only files', () => {
  it('createOwnerOnlyFile makes an empty 0600 file, and leaves a file or a link at the name as it was', () => {
    const { path, elsewhere } = setUp('create');
    expect(createOwnerOnlyFile(path('new'))).toBe(true);
    expect([readFileSync(path('new'), 'utf8'), modeOf(path('new'))]).toEqual(['', '600']);
    expect(createOwnerOnlyFile(path('taken'))).toBe(false);
    expect(readFileSync(path('taken'), 'utf8')).toBe('taken');
    expect(createOwnerOnlyFile(path('dangling'))).toBe(false);
    expect(elsewhere()).toEqual([]);
  });

  it('writeNewFile writes a new 0600 file, and neither over a file nor through a link', () => {
    const { path, elsewhere } = setUp('write');
    expect(writeNewFile(path('new'), 'ISA*00~')).toBe(true);
    expect([readFileSync(path('new'), 'utf8'), modeOf(path('new'))]).toEqual(['ISA*00~', '600']);
    expect(writeNewFile(path('taken'), 'other')).toBe(false);
    expect(readFileSync(path('taken'), 'utf8')).toBe('taken');
    expect(writeNewFile(path('dangling'), 'other')).toBe(false);
    expect(elsewhere()).toEqual([]);
  });

  it('publishNewFile names a whole file anew, and never in place of a file or a link', () => {
    const { path, elsewhere } = setUp('publish');
    expect(writeNewFile(path('partial'), 'copy')).toBe(true);
    expect(publishNewFile(path('partial'), path('published'))).toBe(true);
    expect([readFileSync(path('published'), 'utf8'), modeOf(path('published'))]).toEqual(['copy', '600']);
    expect(publishNewFile(path('partial'), path('taken'))).toBe(false);
    expect(readFileSync(path('taken'), 'utf8')).toBe('taken');
    expect(publishNewFile(path('partial'), path('dangling'))).toBe(false);
    expect(elsewhere()).toEqual([]);
  });

  it('makeOwnerOnlyDirectory makes missing folders 0700', () => {
    makeOwnerOnlyDirectory(join(dir, 'a', 'b'));
    expect([modeOf(join(dir, 'a')), modeOf(join(dir, 'a', 'b'))]).toEqual(['700', '700']);
  });
});
