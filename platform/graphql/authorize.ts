import type { AccountsService } from '../accounts/accounts.service.js';
import type { Scope } from '../accounts/credentials.js';
import { authorizeStore, canSeeStore, storeNotFound } from '../auth.js';
import type { GraphQLContext } from './context.js';

/**
 * The check every store-scoped resolver makes first: the store must be visible
 * to the caller (404 otherwise, so other accounts' stores stay invisible) and
 * the credentials must carry the scope (403). The admin token sees every
 * existing store.
 */
export async function authorizeStoreAccess(ctx: GraphQLContext, accounts: AccountsService, storeId: string, scope: Scope): Promise<void> {
  authorizeStore(ctx.auth, storeId, scope);
  if (ctx.auth.kind === 'admin' && !(await accounts.storeExists(storeId))) throw storeNotFound(storeId);
}

/** For lookups by id (entity references, `return(id)`): a row of a store the caller cannot see does not exist. */
export function visible<T extends { storeId: string }>(ctx: GraphQLContext, row: T | null | undefined): T | null {
  return row && canSeeStore(ctx.auth, row.storeId) ? row : null;
}
