import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/** The refusal kinds an HTTP status stood for when records kept the status (see lib/refusal.ts). */
function refusalKindOf(statusCode: number, body: unknown): string {
  if (statusCode === 404) return 'not-found';
  if (statusCode === 409) return 'conflict';
  if (statusCode === 422) return 'idempotency-key-reused';
  if (statusCode === 403) return 'forbidden';
  return Array.isArray(body) ? 'invalid' : 'unknown-facility';
}

function messagesOf(body: unknown): string[] {
  return Array.isArray(body) ? body.map((entry: { error: string }) => entry.error) : [(body as { error: string }).error];
}

/**
 * Records keep what a command answered without HTTP: a success body, or a refusal's kind and
 * messages. Records written before keep their answer: each refusal's status and body are turned
 * into its kind and messages (records live 48 hours, so there are few).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_records').addColumn('refusal_kind', 'varchar(32)').execute();
  const refusals = await db.selectFrom('idempotency_records').selectAll().where('status_code', '<>', 200).execute();
  for (const row of refusals) {
    const body = JSON.parse(row.response_body);
    await db
      .updateTable('idempotency_records')
      .set({ refusal_kind: refusalKindOf(Number(row.status_code), body), response_body: JSON.stringify(messagesOf(body)) })
      .where('company_id', '=', row.company_id)
      .where('key_id', '=', row.key_id)
      .where('idempotency_key', '=', row.idempotency_key)
      .execute();
  }
  await db.schema.alterTable('idempotency_records').dropColumn('status_code').execute();
}

const STATUS_OF_KIND: Record<string, number> = {
  invalid: 400,
  'unknown-facility': 400,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'idempotency-key-reused': 422,
};

/** Back to statuses and the wire bodies they were answered with. */
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('idempotency_records')
    .addColumn('status_code', 'integer', (col) => col.notNull().defaultTo(200))
    .execute();
  const refusals = await db.selectFrom('idempotency_records').selectAll().where('refusal_kind', 'is not', null).execute();
  for (const row of refusals) {
    const messages = JSON.parse(row.response_body) as string[];
    const asObject = row.refusal_kind === 'not-found' || row.refusal_kind === 'unknown-facility';
    const body = asObject ? { error: messages[0] } : messages.map((error) => ({ code: `EDI-ERROR-${error}`, error }));
    await db
      .updateTable('idempotency_records')
      .set({ status_code: STATUS_OF_KIND[row.refusal_kind] ?? 400, response_body: JSON.stringify(body) })
      .where('company_id', '=', row.company_id)
      .where('key_id', '=', row.key_id)
      .where('idempotency_key', '=', row.idempotency_key)
      .execute();
  }
  await db.schema.alterTable('idempotency_records').dropColumn('refusal_kind').execute();
}
