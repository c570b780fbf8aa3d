import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { pingDatabase } from '../db/connect.js';
import type { Db } from '../db/database.js';
import { VERSION } from '../lib/version.js';

/**
 * `/healthz` (the process is up, and its version) and `/readyz` (the database answers), open
 * without a key (docs/operations.md): what a load balancer or an orchestrator probes, on the server and on
 * `wharf worker --metrics-port`.
 */
export function registerHealthChecks(app: FastifyInstance, db: Db): void {
  const Status = Type.Object({ status: Type.String() });
  const Health = Type.Object(
    { status: Type.String(), version: Type.String({ description: "Wharf's version (package.json)" }) },
    { examples: [{ status: 'ok', version: VERSION }] },
  );
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'checkHealth',
        tags: ['Operations'],
        summary: 'The process is up, and which version it runs',
        description:
          'Open without a key, and it does not touch the database: a liveness check. Answers 200 {"status":"ok","version":…} while the process runs.',
        response: { 200: Health },
      },
    },
    async () => ({ status: 'ok', version: VERSION }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'checkReadiness',
        tags: ['Operations'],
        summary: 'The database answers',
        description:
          'Open without a key: a readiness check. Answers 200 {"status":"ready"} when the database answers select 1, and 503 {"status":"unavailable"} when it does not.',
        response: {
          200: { ...Status, description: 'The database answers.', examples: [{ status: 'ready' }] },
          503: { ...Status, description: 'The database does not answer.', examples: [{ status: 'unavailable' }] },
        },
      },
    },
    async (request, reply) => {
      try {
        await pingDatabase(db);
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: { message: (error as Error).message } }, 'database not reachable');
        return reply.status(503).send({ status: 'unavailable' });
      }
    },
  );
}
