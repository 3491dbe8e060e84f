import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

/**
 * Addresses a subscriber's URL may never make the service connect to (OWASP API7:2023, SSRF):
 * the service's own host, its private network, link-local (cloud metadata at 169.254.169.254),
 * multicast and unspecified addresses. Node's BlockList also matches IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) against the IPv4 ranges.
 */
const FORBIDDEN = new BlockList();
const RANGES: Array<[string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'private'], // carrier-grade NAT, shared address space
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'private'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'private'], // benchmarking networks
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'], // includes the broadcast address
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['::', 96, 'ipv6', 'reserved'], // deprecated IPv4-compatible addresses
  ['64:ff9b::', 96, 'ipv6', 'reserved'], // NAT64: would reach an IPv4 address behind the translator
  ['fc00::', 7, 'ipv6', 'private'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'private'], // deprecated site-local
  ['ff00::', 8, 'ipv6', 'multicast'],
];
const KIND_LISTS = new Map<string, BlockList>();
for (const [network, prefix, family, kind] of RANGES) {
  FORBIDDEN.addSubnet(network, prefix, family);
  let list = KIND_LISTS.get(kind);
  if (!list) KIND_LISTS.set(kind, (list = new BlockList()));
  list.addSubnet(network, prefix, family);
}

/** Why an IP address is refused (`loopback`, `private`, ...), or null when it is a public address. */
export function forbiddenAddressKind(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (!FORBIDDEN.check(bare, type)) return null;
  for (const [kind, list] of KIND_LISTS) if (list.check(bare, type)) return kind;
  return 'reserved';
}

/** The URL's host as compared with `WEBHOOK_ALLOWED_HOSTS`: lower case, IPv6 without brackets. */
export function hostOf(url: URL): string {
  const host = url.hostname.toLowerCase();
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export function isAllowedHost(host: string, allowedHosts: readonly string[]): boolean {
  return allowedHosts.some((allowed) => {
    const a = allowed.toLowerCase();
    return (a.startsWith('[') && a.endsWith(']') ? a.slice(1, -1) : a) === host;
  });
}

/** Thrown through the socket when the connect-time guard refuses an address. */
export class RefusedAddressError extends Error {
  readonly code = 'EWEBHOOKREFUSED';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for sockets that refuses forbidden addresses: the check is on the very addresses the
 * socket will connect to, so a name that resolved to a public address when the subscription was
 * saved and to 127.0.0.1 now (DNS rebinding) is refused here.
 */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true } as { all: true }, (err, addresses) => {
    if (err) return callback(err, options.all ? [] : '');
    const bad = addresses.find((a) => forbiddenAddressKind(a.address) !== null);
    if (bad) {
      return callback(new RefusedAddressError(`${hostname} resolves to a ${forbiddenAddressKind(bad.address)} address (${bad.address})`), options.all ? [] : '');
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
    callback(null, first.address, first.family);
  });
}
