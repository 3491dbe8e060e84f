import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { forbiddenAddressKind, guardedLookup, hostOf, isAllowedHost, RefusedAddressError } from './address-guard.js';
import { currentTrace } from '../observability/tracing.js';
import { loopSignatureHeaders, signatureHeaders } from './signature.js';

export interface OutboundMessage {
  url: string;
  /** the JSON body, already serialised: the signature covers these exact bytes */
  body: string;
  /** Standard Webhooks message id (`webhook-id`), the same on every retry */
  messageId: string;
  /** `whsec_<base64>` (several during a rotation's overlap: one signature each); when set, `webhook-signature` is added */
  signingSecret?: string | readonly string[];
  /** `loop`: signed as Loop signs (`X-Loop-Signature` with the one secret) instead of Standard Webhooks' `webhook-signature` */
  signatureStyle?: 'standard' | 'loop';
  /** e.g. { authorization: 'Bearer ...' } */
  headers?: Record<string, string>;
  timeoutMs: number;
  allowedHosts: readonly string[];
}

export interface OutboundResult {
  outcome: 'succeeded' | 'failed' | 'refused'; // refused: SSRF guard at connect time
  status?: number;
  durationMs: number;
  error?: string;
  retryAfterMs?: number; // from Retry-After on 429/503
}

// Keep-alive pools: a subscriber receiving a stream of events is reached over the same few
// connections instead of a TCP (and TLS) handshake per delivery. Guarded agents resolve names
// through the SSRF guard; the plain ones serve only hosts the configuration allows.
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, scheduling: 'lifo' as const };
const guardedAgents = {
  'http:': new http.Agent({ ...AGENT_OPTIONS, lookup: guardedLookup as never }),
  'https:': new https.Agent({ ...AGENT_OPTIONS, lookup: guardedLookup as never }),
};
const allowedAgents = { 'http:': new http.Agent(AGENT_OPTIONS), 'https:': new https.Agent(AGENT_OPTIONS) };

/** Response bodies are drained (so the connection can be reused) but never kept; past this, the connection is dropped. */
const MAX_DRAINED_BYTES = 64 * 1024;

class TimeoutError extends Error {}

function refusedFor(url: URL, allowed: boolean): string | null {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `unsupported scheme ${url.protocol}`;
  if (allowed) return null;
  if (url.protocol !== 'https:') return 'https is required';
  const host = hostOf(url);
  if (isIP(host)) {
    const kind = forbiddenAddressKind(host);
    if (kind) return `${host} is a ${kind} address`;
  }
  return null;
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof TimeoutError) return `timed out after ${timeoutMs} ms`;
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * One POST of a signed JSON message. Never throws: every way it can end is an outcome. 2xx is
 * `succeeded`; any other status (3xx included: redirects are not followed), a timeout or a network
 * error is `failed`; an address the SSRF guard refuses, at validation or at connect time, is `refused`.
 */
export function deliver(message: OutboundMessage): Promise<OutboundResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(message.url);
  } catch {
    return Promise.resolve({ outcome: 'refused', durationMs: 0, error: 'invalid URL' });
  }
  const allowed = isAllowedHost(hostOf(url), message.allowedHosts);
  const refusal = refusedFor(url, allowed);
  if (refusal) return Promise.resolve({ outcome: 'refused', durationMs: 0, error: refusal });

  const headers: Record<string, string> = {
    ...message.headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(message.body)),
    'user-agent': 'returns-platform-webhooks/1',
    // The receiver can join the trace of the delivery (and of the request that caused it).
    ...currentTrace(),
  };
  if (message.signingSecret && message.signatureStyle === 'loop') {
    const [secret] = typeof message.signingSecret === 'string' ? [message.signingSecret] : message.signingSecret;
    Object.assign(headers, loopSignatureHeaders(secret!, message.body), { 'webhook-id': message.messageId, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) });
  } else if (message.signingSecret) {
    Object.assign(headers, signatureHeaders(message.signingSecret, message.messageId, Math.floor(Date.now() / 1000), message.body));
  } else {
    headers['webhook-id'] = message.messageId;
    headers['webhook-timestamp'] = String(Math.floor(Date.now() / 1000));
  }
  const protocol = url.protocol as 'http:' | 'https:';
  const agent = (allowed ? allowedAgents : guardedAgents)[protocol];
  const request = protocol === 'https:' ? https.request : http.request;

  return new Promise<OutboundResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<OutboundResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const req = request(url, { method: 'POST', headers, agent });
    const timer = setTimeout(() => req.destroy(new TimeoutError()), message.timeoutMs);
    req.on('socket', (socket: Socket) => {
      if (allowed) return;
      // The address actually connected to, whatever resolved it (literal, lookup, a reused socket
      // was checked when it first connected).
      socket.once('connect', () => {
        const kind = socket.remoteAddress ? forbiddenAddressKind(socket.remoteAddress) : null;
        if (kind) req.destroy(new RefusedAddressError(`connected address ${socket.remoteAddress} is a ${kind} address`));
      });
    });
    req.on('error', (error) => {
      if (error instanceof RefusedAddressError) finish({ outcome: 'refused', error: error.message });
      else finish({ outcome: 'failed', error: describe(error, message.timeoutMs) });
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let drained = 0;
      res.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > MAX_DRAINED_BYTES) res.destroy();
      });
      res.on('error', () => undefined);
      if (status >= 200 && status < 300) return finish({ outcome: 'succeeded', status });
      const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(res.headers['retry-after']) : undefined;
      finish({ outcome: 'failed', status, error: `HTTP ${status}`, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
    });
    req.end(message.body);
  });
}
