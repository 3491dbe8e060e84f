import { afterAll, beforeAll } from 'vitest';
import { loadConfig, type Config } from '../../platform/config.js';
import { createLogger } from '../../platform/observability/logger.js';
import { startService, type RunningService } from '../../server/main.js';
import type { Role } from '../../server/runtime.js';
import { assertConforms } from './contract.js';
import { createTestDatabase } from './database.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/**
 * What every service a test starts shares: its database, loopback, the admin token, quiet logs, no
 * demo account, and outbox events kept a while after every consumer read them (tests inspect them).
 */
export function testEnv(databaseUrl: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, HOST: '127.0.0.1', ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'silent', DEMO_ACCOUNT: 'false', OUTBOX_KEEP_SECONDS: '3600' };
}

export interface TestAccount {
  accountId: string;
  storeId: string;
  apiSecret: string;
  compatKey: string;
}

export interface TestApp {
  baseUrl: string;
  databaseUrl: string;
  config: Config;
  service: RunningService;
  adminToken: string;
  /**
   * fetch relative to the app, with the given bearer token (if any). A REST
   * response is checked against the committed OpenAPI document before it is
   * returned (contract.ts): a response that drifts from it fails the test.
   */
  request(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  /** POST /graphql; returns the parsed body and the HTTP status. */
  graphql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, token?: string): Promise<{ status: number; data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }>;
  createAccount(name?: string): Promise<TestAccount>;
  stop(): Promise<void>;
}

/**
 * Starts the whole service in this process (role `all`: subgraphs, gateway,
 * facade, workers) on a fresh database and a free port, the way `npm start`
 * does, and talks to it over real HTTP.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  role: Role = 'all',
  options: { databaseUrl?: string; /** Collects the service's log lines (parsed) at LOG_LEVEL. */ logs?: Record<string, unknown>[] } = {},
): Promise<TestApp> {
  // An existing database (another process of the same service) or a fresh one.
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase());
  const config = loadConfig({
    ...testEnv(databaseUrl),
    PORT: '0',
    NODE_ENV: 'test',
    DB_POOL_SIZE: '4',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
    WEBHOOK_RETRY_SCHEDULE: '1,1,2',
    SHUTDOWN_TIMEOUT_MS: '5000',
    ...env,
  });
  const { logs } = options;
  const logger = createLogger(config.logLevel, logs ? { destination: { write: (line: string) => void logs.push(JSON.parse(line)) } } : {});
  const service = await startService(config, logger, role);
  const baseUrl = `http://127.0.0.1:${service.port}`;

  const request = async (path: string, init: RequestInit & { token?: string } = {}) => {
    const { token, headers, ...rest } = init;
    const h = new Headers(headers);
    if (token) h.set('authorization', `Bearer ${token}`);
    const url = `${baseUrl}${path}`;
    const res = await fetch(url, { ...rest, headers: h });
    await assertConforms(rest.method ?? 'GET', url, res);
    return res;
  };

  const graphql: TestApp['graphql'] = async (query, variables = {}, token = TEST_ADMIN_TOKEN) => {
    const res = await request('/graphql', {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, ...((await res.json()) as object) };
  };

  const createAccount = async (name = 'Test merchant'): Promise<TestAccount> => {
    const result = await graphql<{ createAccount: TestAccount }>(
      'mutation($input: CreateAccountInput!) { createAccount(input: $input) { accountId storeId apiSecret compatKey } }',
      { input: { name, storeName: `${name} store` } },
    );
    if (!result.data) throw new Error(`createAccount failed: ${JSON.stringify(result.errors)}`);
    return result.data.createAccount;
  };

  return { baseUrl, databaseUrl, config, service, adminToken: TEST_ADMIN_TOKEN, request, graphql, createAccount, stop: () => service.stop() };
}

/**
 * The opening most app-level test files share: starts the service (as
 * startTestApp) in a beforeAll of the enclosing describe or file, and stops it
 * in an afterAll. Returns a stand-in for the app, usable by name from the
 * start: tests and later hooks read the running app through it.
 */
export function useTestApp(env: Record<string, string> = {}, options: { logs?: Record<string, unknown>[] } = {}): TestApp {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp(env, 'all', options);
  });
  afterAll(() => app?.stop());
  return standIn(() => app, 'the test app');
}

/** An account of `app`, created in a beforeAll (so after the hooks declared before this call); a stand-in like useTestApp's. */
export function useTestAccount(app: TestApp, name?: string): TestAccount {
  let account: TestAccount | undefined;
  beforeAll(async () => {
    account = await app.createAccount(name);
  });
  return standIn(() => account, `the account ${name ?? ''}`.trim());
}

/**
 * An object that forwards every read to what `current()` returns: hooks fill
 * their values in after the file's tests were collected. Reading one before
 * its beforeAll ran (at collection time, say) throws.
 */
function standIn<T extends object>(current: () => T | undefined, what: string): T {
  const value = (): T => {
    const v = current();
    if (!v) throw new Error(`${what} is not there yet: use it in a test or a hook declared after it`);
    return v;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(value(), key),
    has: (_, key) => Reflect.has(value(), key),
    // Spreading and comparing it see the real object's properties.
    ownKeys: () => Reflect.ownKeys(value()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(value(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}
