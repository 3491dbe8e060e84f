/**
 * The one outbound HTTP module: webhook subscriptions and flows' `webhook` steps both send through
 * it, so signing, timeouts and the SSRF guard (OWASP API7:2023) exist once.
 */
export { deliver, parseRetryAfter, type OutboundMessage, type OutboundResult } from './deliver.js';
export { retryDelayMs } from './retry.js';
export { checkCallbackUrl } from './callback-url.js';
export { signatureHeaders, generateSigningSecret } from './signature.js';
