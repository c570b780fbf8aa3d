import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * The API's documentation page at /docs (Swagger UI, from the OpenAPI document), under a
 * Content-Security-Policy like the console's: the page runs only its own scripts and styles, talks
 * to nothing but this server (its "Try it out" calls Wharf), and no other site may frame it.
 */

/**
 * The one inline style Swagger UI writes: the `<style>` of its own small logo (an SVG it draws in
 * the top bar before the page swaps in its logo image), allowed by its hash rather than allowing
 * every inline style. A Swagger UI whose logo changes shows up as a violation in the browser test.
 */
const SWAGGER_LOGO_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

/** Images: the page's own, and the logo image, which Swagger UI draws from a `data:` URL. */
export const DOCS_POLICY = [
  "default-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  `style-src 'self' ${SWAGGER_LOGO_STYLE}`,
].join('; ');

export async function registerDocsPage(app: FastifyInstance, title: string): Promise<void> {
  // staticCSP puts the policy on every answer under /docs: the page, its assets, /docs/json.
  await app.register(swaggerUi, { routePrefix: '/docs', theme: { title }, staticCSP: DOCS_POLICY });
}
