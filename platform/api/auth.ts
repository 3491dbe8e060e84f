import { AppError } from '../errors.js';

/** Scopes an API secret can carry (decisions section 2). New secrets get all of them by default. */
export const SCOPES = [
  'returns_read',
  'returns_write',
  'customer_events_write',
  'customers_read',
  'customers_write',
  'storefront_events_write',
  'inventory_read',
  'inbound_shipments_read',
  'webhooks_read',
  'webhooks_write',
  'orders_read',
  'orders_write',
  'flows_read',
  'flows_write',
  'privacy_read',
  'privacy_write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Credentials as presented: `Authorization: Bearer` and `X-Authorization` (compatibility key). */
export interface Credentials {
  bearer?: string;
  compatKey?: string;
}

export function credentialsFrom(headers: Record<string, string | string[] | undefined>): Credentials {
  const authorization = typeof headers.authorization === 'string' ? headers.authorization : undefined;
  const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  const compat = typeof headers['x-authorization'] === 'string' ? headers['x-authorization'].trim() : undefined;
  return { bearer: match?.[1], compatKey: compat || undefined };
}

/** Who is calling. Every lookup in every subgraph is scoped by it. */
export type Principal =
  | { kind: 'admin' }
  | { kind: 'account'; accountId: string; secretId: string; scopes: ReadonlySet<Scope>; storeIds: ReadonlySet<string> }
  | { kind: 'compat'; accountId: string; keyId: string; storeId: string };

export function canSeeStore(principal: Principal, storeId: string): boolean {
  switch (principal.kind) {
    case 'admin':
      return true;
    case 'account':
      return principal.storeIds.has(storeId);
    case 'compat':
      return principal.storeId === storeId;
  }
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  // Compatibility keys act for their store's warehouse integration with the returns scopes only.
  if (principal.kind === 'compat') return scope === 'returns_read' || scope === 'returns_write';
  return principal.kind === 'admin' || principal.scopes.has(scope);
}

export function storeNotFound(storeId: string): AppError {
  return new AppError('not_found', 'store-not-found', `Store ${storeId} was not found.`);
}

export function scopeForbidden(scope: Scope): AppError {
  return new AppError('not_allowed', 'scope-forbidden', `The credentials lack the "${scope}" scope.`);
}

/** Store visibility first (404, never revealing other accounts' stores), then the scope (403). */
export function authorizeStore(principal: Principal, storeId: string, scope: Scope): void {
  if (!canSeeStore(principal, storeId)) throw storeNotFound(storeId);
  if (!hasScope(principal, scope)) throw scopeForbidden(scope);
}

export function requireAdmin(principal: Principal): void {
  if (principal.kind !== 'admin') {
    throw new AppError('not_allowed', 'forbidden', 'This operation needs the admin token.');
  }
}
