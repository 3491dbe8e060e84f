import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks secrets: `whsec_` then the base64 of the key's bytes (32 random bytes here). */
const SECRET_PREFIX = 'whsec_';

export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * Standard Webhooks headers (spec v1): `webhook-signature` is `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body` keyed with the secret's decoded bytes. The body must be the exact bytes sent.
 * With several secrets (a rotation's overlap: the new one first), one signature each, space
 * separated, as the spec allows: a receiver holding either secret verifies.
 */
export function signatureHeaders(secrets: string | readonly string[], messageId: string, timestampSeconds: number, body: string): Record<string, string> {
  const signatures = (typeof secrets === 'string' ? [secrets] : secrets).map((secret) => {
    const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
    return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
  });
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}

/** Loop's signature (its webhook documentation): `X-Loop-Signature`, the base64 HMAC-SHA256 of the body, keyed with the secret's text. */
export function loopSignatureHeaders(secret: string, body: string): Record<string, string> {
  return { 'x-loop-signature': createHmac('sha256', secret).update(body).digest('base64') };
}
