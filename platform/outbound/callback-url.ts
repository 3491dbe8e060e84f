import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { forbiddenAddressKind, hostOf, isAllowedHost } from './address-guard.js';

/**
 * Validation of a callback URL when a subscription is saved: null when acceptable, else a reason a
 * subscriber can act on. Hosts in `allowedHosts` are exempt from the https and address rules
 * (tests and local receivers). A name that does not resolve now is accepted: delivery checks the
 * address it actually connects to, every time, so nothing reaches a forbidden address through it.
 */
export async function checkCallbackUrl(url: string, allowedHosts: readonly string[]): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an https URL';
  if (parsed.username || parsed.password) return 'must not carry credentials (use auth.bearer)';
  const host = hostOf(parsed);
  if (isAllowedHost(host, allowedHosts)) return null;
  if (parsed.protocol !== 'https:') return 'must be an https URL';
  if (isIP(host)) {
    const kind = forbiddenAddressKind(host);
    return kind ? `must not point at a ${kind} address` : null;
  }
  // RFC 6761: names under .localhost are loopback whatever a resolver says; `localhost` itself is
  // left to the resolver, like any name, so the resolved-address rule is the one that refuses it.
  if (host.endsWith('.localhost')) return 'must not point at a loopback address';
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return null;
  }
  for (const { address } of addresses) {
    const kind = forbiddenAddressKind(address);
    if (kind) return `must not point at a ${kind} address (${host} resolves to ${address})`;
  }
  return null;
}
