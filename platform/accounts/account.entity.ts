import { defineEntity, p } from '@mikro-orm/postgresql';

export const Account = defineEntity({
  name: 'Account',
  tableName: 'account',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const Store = defineEntity({
  name: 'Store',
  tableName: 'store',
  properties: {
    id: p.string().primary(),
    accountId: p.string().index(),
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

/** An API secret: only its SHA-256 hash and its first characters (for listing) are kept. */
export const ApiSecret = defineEntity({
  name: 'ApiSecret',
  tableName: 'api_secret',
  properties: {
    id: p.string().primary(),
    accountId: p.string().index(),
    prefix: p.string(),
    hash: p.string().unique(),
    scopes: p.array(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});

/** A compatibility API key, bound to one store; stored hashed like secrets. */
export const CompatKey = defineEntity({
  name: 'CompatKey',
  tableName: 'compat_key',
  properties: {
    id: p.string().primary(),
    storeId: p.string().index(),
    prefix: p.string(),
    hash: p.string().unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});

/** Process-wide values generated once and shared by every process (cursor signing key, admin token). */
export const PlatformSetting = defineEntity({
  name: 'PlatformSetting',
  tableName: 'setting',
  properties: {
    key: p.string().primary(),
    value: p.text(),
  },
});
