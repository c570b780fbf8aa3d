import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { App } from './module.js';
import { problem } from './errors.js';

/**
 * Serves the operator console (docs/console.md), the static build of the `console/` workspace, at
 * /console/ under a Content-Security-Policy that lets the page load nothing but its own files and
 * talk to nothing but this server. Any path under /console/ that is not a file is the page itself,
 * so that a reload of /console/receipts/RN-6 shows that receipt.
 */

/** Where `npm run build` writes the console, beside src/ and dist/. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../console/dist/', import.meta.url));

const POLICY = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'";

export async function registerConsole(app: App, directory = CONSOLE_DIR): Promise<void> {
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect('/console/', 301));
  if (!existsSync(`${directory}/index.html`)) {
    // A checkout that was not built: say how to build it rather than a bare 404.
    app.get('/console/*', { schema: { hide: true } }, (_request, reply) =>
      reply.status(404).send([problem('The console is not built: run `npm run build` (npm install does it) and restart')]),
    );
    return;
  }
  // A scope of its own: the policy headers go on the console's answers only.
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', POLICY).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
    });
    await scope.register(fastifyStatic, {
      root: directory,
      prefix: '/console/',
      wildcard: false,
      index: false,
      schemaHide: true,
      // Vite names its assets by content hash, so they never change under a name; the page itself may.
      setHeaders: (reply, path) =>
        reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache'),
    });
    scope.get('/console/*', { schema: { hide: true } }, (_request, reply) => reply.sendFile('index.html'));
  });
}
