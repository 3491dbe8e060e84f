import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Secrets carry 32 random bytes, so a plain SHA-256 is a sound one-way hash for
 * them (no dictionary to guard against) and keeps the per-request lookup cheap.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function generateSecret(kind: 'api' | 'compat' | 'admin'): string {
  const prefix = { api: 'sk_', compat: 'ck_', admin: 'adm_' }[kind];
  return prefix + randomBytes(32).toString('base64url');
}

/** What lists show of a secret: its first 12 characters. */
export function secretPrefix(secret: string): string {
  return secret.slice(0, 12);
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(hashSecret(a));
  const y = Buffer.from(hashSecret(b));
  return timingSafeEqual(x, y);
}
