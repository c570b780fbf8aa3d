#!/usr/bin/env node
/**
 * Writes the operations of an OpenAPI document that take an `Idempotency-Key` header (Wharf's
 * state-changing ones, docs/decisions.md) as a TypeScript module: the client adds a key to those alone.
 *
 *   node scripts/idempotent-operations.mjs ../openapi.json src/idempotent-operations.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';

const [documentFile, outFile] = process.argv.slice(2);
if (!documentFile || !outFile) throw new Error('usage: idempotent-operations.mjs <openapi.json> <out.ts>');
const document = JSON.parse(readFileSync(documentFile, 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const operations = Object.entries(document.paths)
  .flatMap(([path, item]) =>
    METHODS.filter((method) =>
      (item[method]?.parameters ?? []).some((parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key'),
    ).map((method) => `${method.toUpperCase()} ${path}`),
  )
  .sort();
writeFileSync(
  outFile,
  [
    '// Generated from openapi.json by scripts/idempotent-operations.mjs (`npm run generate`); do not edit.',
    '',
    '/** The operations that take an Idempotency-Key, as `METHOD path` with the path as the document writes it. */',
    'export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set([',
    ...operations.map((operation) => `  '${operation}',`),
    ']);',
    '',
  ].join('\n'),
);
