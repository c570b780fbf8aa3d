import { createHash, randomBytes } from 'node:crypto';

/** A URL-safe random token of `bytes` random bytes (256 bits by default). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
