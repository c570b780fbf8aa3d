// Generated from openapi.json by scripts/idempotent-operations.mjs (`npm run generate`); do not edit.

/** The operations that take an Idempotency-Key, as `METHOD path` with the path as the document writes it. */
export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set([
  'POST /shared/bam/v1/public/edi/3pl/adjust/inventory-adjust-property',
  'POST /shared/bam/v1/public/edi/3pl/adjust/inventory-adjust-qty-incremental',
  'POST /shared/bam/v1/public/edi/3pl/inbound/receipt/cancel',
  'POST /shared/bam/v1/public/edi/3pl/inbound/receipt/force-close',
  'POST /shared/bam/v1/public/edi/3pl/inbound/receipt/open',
  'POST /shared/bam/v1/public/edi/3pl/inbound/receipt/post-confirmation',
  'POST /shared/bam/v1/public/edi/3pl/outbound/order/cancel',
  'POST /shared/bam/v1/public/edi/3pl/outbound/order/open',
  'POST /shared/bam/v1/public/edi/3pl/outbound/order/post-confirmation',
  'POST /shared/bam/v1/public/edi/inbound/receipt',
  'POST /shared/bam/v1/public/edi/item-master/import',
  'POST /shared/bam/v1/public/edi/outbound/order',
  'POST /shared/bam/v1/public/edi/webhook/delivery/replay',
  'POST /shared/bam/v1/public/edi/webhook/endpoint/create',
  'POST /shared/bam/v1/public/edi/webhook/endpoint/delete',
  'POST /shared/bam/v1/public/edi/webhook/endpoint/rotate-secret',
  'POST /shared/bam/v1/public/edi/webhook/endpoint/update',
  'POST /shared/bam/v1/public/edi/x12/846',
  'POST /shared/bam/v1/public/edi/x12/outbox/ack',
  'PUT /shared/bam/v1/public/edi/inbound/receipt/cancel',
  'PUT /shared/bam/v1/public/edi/outbound/order/cancel',
]);
