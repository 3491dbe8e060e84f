import type { AccountsService } from '../accounts/accounts.service.js';
import { authorizeStore, canSeeStore, storeNotFound, type Scope } from '../api/auth.js';
import { memoize, type GraphQLContext } from './context.js';

/**
 * The check every store-scoped resolver makes first: the store must be visible
 * to the caller (404 otherwise, so other accounts' stores stay invisible) and
 * the credentials must carry the scope (403). The admin token sees every
 * existing store.
 */
export async function authorizeStoreAccess(ctx: GraphQLContext, accounts: AccountsService, storeId: string, scope: Scope): Promise<void> {
  authorizeStore(ctx.auth, storeId, scope);
  if (!(await storeVisible(ctx, accounts, storeId))) throw storeNotFound(storeId);
}

/**
 * Whether the caller can see the store: an account sees its own, the admin
 * token every store that exists. The admin's lookup is made once per request
 * (the REST facade checks before its operation, the resolver again).
 */
export function storeVisible(ctx: GraphQLContext, accounts: AccountsService, storeId: string): boolean | Promise<boolean> {
  if (ctx.auth.kind !== 'admin') return canSeeStore(ctx.auth, storeId);
  return memoize(ctx, `store-exists:${storeId}`, () => accounts.storeExists(storeId));
}

/** For lookups by id (entity references, `return(id)`): a row of a store the caller cannot see does not exist. */
export function visible<T extends { storeId: string }>(ctx: GraphQLContext, row: T | null | undefined): T | null {
  return row && canSeeStore(ctx.auth, row.storeId) ? row : null;
}
