import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.js';
import { createWorld } from './helpers/factories.js';

/**
 * The wharf-client package as it is published (docs/admin.md): its generated types match the
 * committed openapi.json, and every example of its README compiles against the built package.
 */

const root = new URL('..', import.meta.url).pathname;

describe('wharf-client package', () => {
  it('has types generated from the committed openapi.json (run `npm run openapi`, which regenerates them)', () => {
    const out = join(root, '.test-build', `schema-${process.pid}.ts`);
    mkdirSync(join(root, '.test-build'), { recursive: true });
    try {
      const generated = spawnSync(process.execPath, [join(root, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '-o', out], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(generated.status, generated.stderr).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(root, 'client/src/schema.ts'), 'utf8'));
    } finally {
      rmSync(out, { force: true });
    }
  }, 60_000);

  it('knows which operations take an Idempotency-Key from the committed openapi.json', () => {
    const out = join(root, '.test-build', `idempotent-operations-${process.pid}.ts`);
    mkdirSync(join(root, '.test-build'), { recursive: true });
    try {
      const generated = spawnSync(process.execPath, [join(root, 'client/scripts/idempotent-operations.mjs'), 'openapi.json', out], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(generated.status, generated.stderr).toBe(0);
      const written = readFileSync(out, 'utf8');
      expect(written).toBe(readFileSync(join(root, 'client/src/idempotent-operations.ts'), 'utf8'));
      // The changes are there, the searches and the quote are not.
      expect(written).toContain("'POST /shared/bam/v1/public/edi/outbound/order',");
      expect(written).not.toContain('search-by-paging');
      expect(written).not.toContain('RateEngine');
    } finally {
      rmSync(out, { force: true });
    }
  });

  it('compiles every example of its README against the built package', () => {
    const readme = readFileSync(join(root, 'client/README.md'), 'utf8');
    const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(examples.length).toBeGreaterThanOrEqual(4);
    const dir = join(root, '.test-build', `readme-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      // Each example is a module of its own (top-level await, its own imports).
      const files = examples.map((example, index) => {
        const file = join(dir, `example-${index + 1}.ts`);
        writeFileSync(file, `${example}\nexport {};\n`);
        return file;
      });
      const program = ts.createProgram(files, {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map(
          (diagnostic) =>
            `${diagnostic.file?.fileName.split('/').at(-1) ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
        );
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('wharf-client packed', () => {
  const ctx = useTestApp('sqlite');
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await ctx().app.listen({ host: '127.0.0.1', port: 0 });
  });

  it('packs with its build and README only, and works from another folder', async () => {
    const { tenant, admin } = await createWorld(ctx().database.db, ctx().clock);
    const dir = join(root, '.test-build', `pack-${process.pid}`);
    const app = join(dir, 'app');
    mkdirSync(join(app, 'node_modules', 'wharf-client'), { recursive: true });
    try {
      const packed = spawnSync('npm', ['pack', '-w', 'client', '--pack-destination', dir, '--json'], { cwd: root, encoding: 'utf8' });
      expect(packed.status, packed.stderr).toBe(0);
      const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
      expect(files.map((file) => file.path).sort()).toEqual([
        'README.md',
        'dist/idempotent-operations.d.ts',
        'dist/idempotent-operations.js',
        'dist/index.d.ts',
        'dist/index.js',
        'dist/schema.d.ts',
        'dist/schema.js',
        'package.json',
      ]);
      const unpacked = spawnSync('tar', [
        '-xzf',
        join(dir, filename),
        '-C',
        join(app, 'node_modules', 'wharf-client'),
        '--strip-components=1',
      ]);
      expect(unpacked.status, String(unpacked.stderr)).toBe(0);
      // Another project: its own package.json; openapi-fetch is found where npm would have put it, up the tree.
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'uses-wharf', private: true, type: 'module' }));
      writeFileSync(
        join(app, 'use.js'),
        [
          "import { createWharfClient } from 'wharf-client';",
          'const [baseUrl, apiKey] = process.argv.slice(2);',
          "const { data } = await createWharfClient({ baseUrl, apiKey }).GET('/admin/v1/customers');",
          'console.log(JSON.stringify(data.Customers.map((customer) => customer.CustomerID)));',
        ].join('\n'),
      );
      const { stdout } = await promisify(execFile)(process.execPath, ['use.js', baseUrl, admin], { cwd: app });
      expect(JSON.parse(stdout)).toEqual([...tenant.customerIds].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
