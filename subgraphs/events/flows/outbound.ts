import { createHmac, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Outbound HTTP for webhook steps, against the interface of the platform's
 * outbound module (`platform/outbound/`), which subscription deliveries own.
 * Until that module is on this branch this file carries a minimal version of
 * the same functions; once it lands, this file only re-exports it.
 */
export interface OutboundMessage {
  url: string;
  body: string;
  messageId: string;
  signingSecret?: string;
  headers?: Record<string, string>;
  timeoutMs: number;
  allowedHosts: readonly string[];
}

export interface OutboundResult {
  outcome: 'succeeded' | 'failed' | 'refused';
  status?: number;
  durationMs: number;
  error?: string;
  retryAfterMs?: number;
}

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

function isPrivate(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  return PRIVATE.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** Why the URL may not be called (https only, no private, loopback or link-local address), or null. */
export async function checkCallbackUrl(url: string, allowedHosts: readonly string[]): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an https URL';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (allowedHosts.includes(host)) return null;
  if (parsed.protocol !== 'https:') return 'must be an https URL';
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `host ${host} does not resolve`;
  }
  if (addresses.some(isPrivate)) return `host ${host} resolves to a private, loopback or link-local address`;
  return null;
}

/** Standard Webhooks headers: `webhook-signature` is `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. */
export function signatureHeaders(secret: string, messageId: string, timestampSeconds: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': messageId, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}

export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** One POST: 2xx succeeded, anything else failed (with Retry-After when given), a refused URL refused. */
export async function deliver(message: OutboundMessage): Promise<OutboundResult> {
  const started = performance.now();
  const refusal = await checkCallbackUrl(message.url, message.allowedHosts);
  if (refusal) return { outcome: 'refused', durationMs: 0, error: `url ${refusal}` };
  const headers: Record<string, string> = { 'content-type': 'application/json', ...message.headers };
  if (message.signingSecret) Object.assign(headers, signatureHeaders(message.signingSecret, message.messageId, Math.floor(Date.now() / 1000), message.body));
  try {
    const res = await fetch(message.url, { method: 'POST', headers, body: message.body, redirect: 'manual', signal: AbortSignal.timeout(message.timeoutMs) });
    await res.arrayBuffer().catch(() => undefined);
    const durationMs = Math.round(performance.now() - started);
    if (res.status >= 200 && res.status < 300) return { outcome: 'succeeded', status: res.status, durationMs };
    const retryAfter = Number(res.headers.get('retry-after'));
    return { outcome: 'failed', status: res.status, durationMs, error: `HTTP ${res.status}`, ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}) };
  } catch (err) {
    const durationMs = Math.round(performance.now() - started);
    return { outcome: 'failed', durationMs, error: err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${message.timeoutMs} ms` : String(err instanceof Error ? err.message : err) };
  }
}
