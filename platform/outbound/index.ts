/**
 * The one outbound HTTP module: webhook subscriptions and flows' `webhook` steps both send through
 * it, so signing, timeouts and the SSRF guard (OWASP API7:2023) exist once.
 */
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

export { deliver, parseRetryAfter } from './deliver.js';
export { retryDelayMs } from './retry.js';
export { checkCallbackUrl } from './callback-url.js';
export { signatureHeaders, loopSignatureHeaders, generateSigningSecret } from './signature.js';
export { forbiddenAddressKind } from './address-guard.js';
