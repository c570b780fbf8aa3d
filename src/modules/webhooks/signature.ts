import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing (docs/webhooks.md): `webhook-id`, `webhook-timestamp` (seconds) and
 * `webhook-signature` = `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret in force,
 * space-separated while a rotated secret still signs beside the new one.
 */

/** `whsec_<base64 of 32 random bytes>`, the form every Standard Webhooks library reads. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function signedHeaders(secrets: readonly string[], id: string, at: number, body: string): Record<string, string> {
  const timestamp = new Date(at);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' '),
  };
}
