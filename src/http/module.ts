import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import type { Authorize } from './auth.js';
import type { ContextOf } from './command-context.js';

/** The Fastify instance a module registers its routes on, typed by the TypeBox provider. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What app.ts hands every module's routes: no service locator, just these. */
export interface RouteDeps {
  db: Db;
  clock: Clock;
  authorize: Authorize;
  /** The CommandContext of a request, for the command services. */
  cx: ContextOf;
}

/** Every EDI operation sends its key in the Authorization header. */
export const apiKeySecurity = [{ APIKey: [] }];
