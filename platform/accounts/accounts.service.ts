import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { AppError, invalid, notFound } from '../errors.js';
import { isEmail } from '../validation/rules.js';
import { newId } from '../ids.js';
import { isScope, SCOPES, type Principal, type Scope } from '../api/auth.js';
import { sql, type Orm } from '../db/orm.js';
import { CREDENTIALS_CHANNEL, type CredentialCache } from './credential-cache.js';
import { generateSecret, hashSecret, safeEqual, secretPrefix } from './credentials.js';

export interface CreatedAccount {
  accountId: string;
  storeId: string;
  apiSecret: string;
  compatKey: string;
}

export interface CreatedSecret {
  secretId: string;
  prefix: string;
  apiSecret: string;
  scopes: Scope[];
}

export interface SecretSummary {
  secretId: string;
  prefix: string;
  scopes: Scope[];
  createdAt: Date;
  revokedAt: Date | null;
}

export interface AccountSummary {
  accountId: string;
  name: string;
  createdAt: Date;
  storeCount: number;
}

export interface StoreSummary {
  storeId: string;
  accountId: string;
  name: string;
  /** IANA name; null: UTC. */
  timeZone: string | null;
  createdAt: Date;
}

function requireName(value: string | undefined, field: string): string {
  const name = value?.trim();
  if (!name) throw invalid('validation-failed', `${field} is required.`, [{ pointer: `/${field}`, detail: 'must be a non-empty string' }]);
  if (name.length > 200) throw invalid('validation-failed', `${field} is too long.`, [{ pointer: `/${field}`, detail: 'at most 200 characters' }]);
  return name;
}

function requireContact(value: string, field: string): string {
  const email = value.trim();
  if (email.length > 254 || !isEmail(email)) throw invalid('validation-failed', `${field} must be an email address.`, [{ pointer: `/${field}`, detail: 'must be an email address' }]);
  return email;
}

function parseScopes(scopes: readonly string[] | undefined): Scope[] {
  if (!scopes || scopes.length === 0) return [...SCOPES];
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) {
    throw invalid('validation-failed', `Unknown scope(s): ${unknown.join(', ')}. Known scopes: ${SCOPES.join(', ')}.`);
  }
  return [...new Set(scopes as Scope[])];
}

/**
 * Accounts, stores and credentials (platform schema). Secrets are returned
 * once, at creation, and only their hashes are stored.
 */
export class AccountsService {
  private cache: CredentialCache | undefined;

  constructor(private readonly orm: Orm) {}

  /** Serve authentication from a cache kept exact by change notifications (long-running processes). */
  useCache(cache: CredentialCache): void {
    this.cache = cache;
  }

  /** Tells every process (this one at once) that cached credentials may be wrong now. Call inside the changing transaction. */
  private async invalidate(em: EntityManager): Promise<void> {
    await sql(em, `select pg_notify('${CREDENTIALS_CHANNEL}', '')`);
  }

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  async createAccount(input: { name: string; storeName?: string; contactEmail?: string | null }): Promise<CreatedAccount> {
    const name = requireName(input.name, 'name');
    const storeName = input.storeName === undefined ? name : requireName(input.storeName, 'storeName');
    const contact = input.contactEmail == null ? null : requireContact(input.contactEmail, 'contactEmail');
    return this.em().transactional(async (em) => {
      const accountId = newId('account');
      await sql(em, 'insert into account (id, name, contact_email) values ($1, $2, $3)', [accountId, name, contact]);
      const { storeId } = await this.insertStore(em, accountId, storeName);
      const secret = await this.insertSecret(em, accountId, [...SCOPES]);
      const { compatKey } = await this.insertCompatKey(em, storeId);
      return { accountId, storeId, apiSecret: secret.apiSecret, compatKey };
    });
  }

  /** Sets (or, with null, clears) the address told when one of the account's webhook subscriptions is disabled; 404 for an unknown account. */
  async setContact(accountId: string, email: string | null): Promise<{ accountId: string; contactEmail: string | null }> {
    const contact = email === null ? null : requireContact(email, 'contactEmail');
    const [row] = await sql<{ id: string }>(this.em(), 'update account set contact_email = $2 where id = $1 returning id', [accountId, contact]);
    if (!row) throw notFound('account-not-found', `Account ${accountId} was not found.`);
    return { accountId, contactEmail: contact };
  }

  /** The account's contact address, or null without one. */
  async contactOf(accountId: string): Promise<string | null> {
    const [row] = await sql<{ contact_email: string | null }>(this.em(), 'select contact_email from account where id = $1', [accountId]);
    return row?.contact_email ?? null;
  }

  async createStore(accountId: string, name: string): Promise<{ storeId: string }> {
    const storeName = requireName(name, 'name');
    const created = await this.em().transactional(async (em) => {
      await this.requireAccount(em, accountId);
      // Cached principals list the account's stores: they must learn about this one.
      await this.invalidate(em);
      return this.insertStore(em, accountId, storeName);
    });
    this.cache?.flush();
    return created;
  }

  async createSecret(accountId: string, scopes?: readonly string[]): Promise<CreatedSecret> {
    const parsed = parseScopes(scopes);
    return this.em().transactional(async (em) => {
      await this.requireAccount(em, accountId);
      return this.insertSecret(em, accountId, parsed);
    });
  }

  async listSecrets(accountId: string): Promise<SecretSummary[]> {
    const rows = await sql<{ id: string; prefix: string; scopes: Scope[]; created_at: Date; revoked_at: Date | null }>(
      this.em(),
      'select id, prefix, scopes, created_at, revoked_at from api_secret where account_id = $1 order by created_at',
      [accountId],
    );
    return rows.map((r) => ({ secretId: r.id, prefix: r.prefix, scopes: r.scopes, createdAt: r.created_at, revokedAt: r.revoked_at }));
  }

  /** Every account, oldest first (administration: finding a lost id again). */
  async listAccounts(): Promise<AccountSummary[]> {
    const rows = await sql<{ id: string; name: string; created_at: Date; stores: string }>(
      this.em(),
      'select a.id, a.name, a.created_at, (select count(*) from store s where s.account_id = a.id) as stores from account a order by a.created_at, a.id',
    );
    return rows.map((r) => ({ accountId: r.id, name: r.name, createdAt: r.created_at, storeCount: Number(r.stores) }));
  }

  /** The stores of one account, oldest first (`store_account_id_index`); 404 for an unknown account. */
  async listStores(accountId: string): Promise<StoreSummary[]> {
    const em = this.em();
    await this.requireAccount(em, accountId);
    const rows = await sql<{ id: string; name: string; time_zone: string | null; created_at: Date }>(
      em,
      'select id, name, time_zone, created_at from store where account_id = $1 order by created_at, id',
      [accountId],
    );
    return rows.map((r) => ({ storeId: r.id, accountId, name: r.name, timeZone: r.time_zone, createdAt: r.created_at }));
  }

  /** Renames a store or sets its time zone (null clears it); fields left undefined keep their value. */
  async updateStore(storeId: string, change: { name?: string; timeZone?: string | null }): Promise<StoreSummary> {
    const name = change.name === undefined ? null : requireName(change.name, 'input/name');
    const [row] = await sql<{ account_id: string; name: string; time_zone: string | null; created_at: Date }>(
      this.em(),
      `update store set name = coalesce($2, name), time_zone = case when $3 then $4 else time_zone end where id = $1
       returning account_id, name, time_zone, created_at`,
      [storeId, name, change.timeZone !== undefined, change.timeZone ?? null],
    );
    if (!row) throw new AppError('not_found', 'store-not-found', `Store ${storeId} was not found.`);
    return { storeId, accountId: row.account_id, name: row.name, timeZone: row.time_zone, createdAt: row.created_at };
  }

  /** The store's time zone setting (null: none, so UTC). */
  async storeTimeZone(storeId: string): Promise<string | null> {
    const [row] = await sql<{ time_zone: string | null }>(this.em(), 'select time_zone from platform.store where id = $1', [storeId]);
    return row?.time_zone ?? null;
  }

  /**
   * Revokes at once: the same transaction notifies every process to drop its cached credentials.
   * Takes the secret's prefix, or the whole secret (its prefix is what is kept).
   */
  async revokeSecret(accountId: string, prefixOrSecret: string): Promise<{ revoked: number }> {
    const prefix = secretPrefix(prefixOrSecret.trim());
    const rows = await this.em().transactional(async (em) => {
      const revoked = await sql(em, 'update api_secret set revoked_at = now() where account_id = $1 and prefix = $2 and revoked_at is null returning id', [accountId, prefix]);
      if (revoked.length) await this.invalidate(em);
      return revoked;
    });
    this.cache?.flush();
    if (rows.length === 0) throw new AppError('not_found', 'not-found', `No active secret with prefix ${prefix} in account ${accountId}.`);
    return { revoked: rows.length };
  }

  async createCompatKey(storeId: string): Promise<{ compatKey: string }> {
    return this.em().transactional(async (em) => {
      const [store] = await sql(em, 'select id from store where id = $1', [storeId]);
      if (!store) throw new AppError('not_found', 'store-not-found', `Store ${storeId} was not found.`);
      return this.insertCompatKey(em, storeId);
    });
  }

  async storeExists(storeId: string): Promise<boolean> {
    const rows = await sql(this.em(), 'select 1 from store where id = $1', [storeId]);
    return rows.length > 0;
  }

  /**
   * Stores' names and accounts by id (what webhook payloads show as `merchantName`, and who owns a store).
   * Qualified: a caller inside another schema's transaction runs this on that transaction's connection.
   */
  async stores(storeIds: readonly string[]): Promise<Map<string, { name: string; accountId: string; timeZone: string | null }>> {
    const rows = await sql<{ id: string; name: string; account_id: string; time_zone: string | null }>(
      this.em(),
      'select id, name, account_id, time_zone from platform.store where id = any($1)',
      [storeIds],
    );
    return new Map(rows.map((r) => [r.id, { name: r.name, accountId: r.account_id, timeZone: r.time_zone }]));
  }

  async accountCount(): Promise<number> {
    const [row] = await sql<{ n: string }>(this.em(), 'select count(*) as n from account');
    return Number(row?.n ?? 0);
  }

  /** Resolves `Authorization: Bearer` (admin token or API secret) and `X-Authorization` (compat key). */
  async authenticate(credentials: { bearer?: string; compatKey?: string }, adminToken: string): Promise<Principal | null> {
    const { bearer, compatKey } = credentials;
    if (bearer && safeEqual(bearer, adminToken)) return { kind: 'admin' };
    const secret = bearer ?? compatKey;
    if (!secret) return null;
    const hash = hashSecret(secret);
    // Keyed by the header too: a compatibility key must never pass as an API secret, or the reverse.
    const cacheKey = `${bearer ? 'bearer' : 'compat'}:${hash}`;
    const cached = this.cache?.get(cacheKey);
    if (cached) return cached;
    const generation = this.cache?.currentGeneration ?? 0;
    const principal = await this.lookup(bearer ? { bearer: hash } : { compatKey: hash });
    if (principal) this.cache?.set(cacheKey, principal, generation);
    return principal;
  }

  /** The principal of a credential hash, from the database. */
  private async lookup({ bearer, compatKey }: { bearer?: string; compatKey?: string }): Promise<Principal | null> {
    if (bearer) {
      const [row] = await sql<{ id: string; account_id: string; scopes: Scope[]; store_ids: string[] }>(
        this.em(),
        `select s.id, s.account_id, s.scopes,
                array(select st.id from store st where st.account_id = s.account_id) as store_ids
           from api_secret s where s.hash = $1 and s.revoked_at is null`,
        [bearer],
      );
      if (!row) return null;
      return { kind: 'account', accountId: row.account_id, secretId: row.id, scopes: new Set(row.scopes), storeIds: new Set(row.store_ids) };
    }
    if (compatKey) {
      const [row] = await sql<{ id: string; store_id: string; account_id: string }>(
        this.em(),
        `select k.id, k.store_id, st.account_id from compat_key k join store st on st.id = k.store_id
          where k.hash = $1 and k.revoked_at is null`,
        [compatKey],
      );
      if (!row) return null;
      return { kind: 'compat', accountId: row.account_id, keyId: row.id, storeId: row.store_id };
    }
    return null;
  }

  /**
   * A value generated once and shared by all processes: the first writer wins
   * (`on conflict do nothing`), everyone reads the winner's value.
   */
  async sharedSetting(key: string, generate: () => string): Promise<string> {
    const em = this.em();
    await sql(em, 'insert into setting (key, value) values ($1, $2) on conflict (key) do nothing', [key, generate()]);
    const [row] = await sql<{ value: string }>(em, 'select value from setting where key = $1', [key]);
    return row!.value;
  }

  /** True for exactly one caller across all processes: the one that first claims `key`. */
  async claimOnce(key: string): Promise<boolean> {
    const rows = await sql(this.em(), 'insert into setting (key, value) values ($1, now()::text) on conflict (key) do nothing returning key', [key]);
    return rows.length === 1;
  }

  /** The admin token: `ADMIN_TOKEN` when configured, else one generated on first start and kept in the database. */
  async adminToken(configured: string | undefined): Promise<string> {
    return configured ?? this.sharedSetting('admin_token', () => generateSecret('admin'));
  }

  async cursorKey(): Promise<Buffer> {
    return Buffer.from(await this.sharedSetting('cursor_key', () => randomBytes(32).toString('base64')), 'base64');
  }

  private async requireAccount(em: EntityManager, accountId: string): Promise<void> {
    const [row] = await sql(em, 'select id from account where id = $1', [accountId]);
    if (!row) throw new AppError('not_found', 'account-not-found', `Account ${accountId} was not found.`);
  }

  private async insertStore(em: EntityManager, accountId: string, name: string): Promise<{ storeId: string }> {
    const storeId = newId('store');
    await sql(em, 'insert into store (id, account_id, name) values ($1, $2, $3)', [storeId, accountId, name]);
    return { storeId };
  }

  private async insertSecret(em: EntityManager, accountId: string, scopes: Scope[]): Promise<CreatedSecret> {
    const apiSecret = generateSecret('api');
    const secretId = newId('secret');
    const prefix = secretPrefix(apiSecret);
    await sql(em, 'insert into api_secret (id, account_id, prefix, hash, scopes) values ($1, $2, $3, $4, $5)', [
      secretId,
      accountId,
      prefix,
      hashSecret(apiSecret),
      scopes,
    ]);
    return { secretId, prefix, apiSecret, scopes };
  }

  private async insertCompatKey(em: EntityManager, storeId: string): Promise<{ compatKey: string }> {
    const compatKey = generateSecret('compat');
    await sql(em, 'insert into compat_key (id, store_id, prefix, hash) values ($1, $2, $3, $4)', [
      newId('compatKey'),
      storeId,
      secretPrefix(compatKey),
      hashSecret(compatKey),
    ]);
    return { compatKey };
  }
}
