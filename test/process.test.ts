import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';
import { alive, freePort, run, spawnNode, waitReady, type Spawned } from './support/processes.js';

/**
 * The service as outside tools run it: the built entry point, the embedded
 * PostgreSQL under DATA_DIR, the admin CLI beside it, signals.
 */
// Each test starts processes, and `npm run admin` builds the project first: minutes on a loaded machine, not seconds.
describe('service process with the embedded database', { timeout: 120_000 }, () => {
  let dataDir: string;
  let port: number;
  let baseUrl: string;
  let env: Record<string, string | undefined>;
  let current: Spawned | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'process-test-'));
    port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    env = { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'test', DATABASE_URL: undefined, ADMIN_TOKEN: undefined, DEMO_ACCOUNT: undefined };
  });

  afterAll(async () => {
    if (current && current.child.exitCode === null) {
      current.child.kill('SIGTERM');
      await current.exited;
    }
    const pid = postgresPid();
    if (pid && alive(pid)) process.kill(pid, 'SIGINT');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    current = spawnNode(['dist/server/main.js', 'all'], env);
    await waitReady(baseUrl, current);
    return current;
  };
  const cli = (...args: string[]) => run('node', ['dist/server/cli/admin-cli.js', ...args], env);
  const postgresPid = () => {
    try {
      return Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  let demo: { storeId: string; apiSecret: string; compatKey: string; adminToken: string };

  it('prints the demo account and the admin token once, on the first start', async () => {
    const proc = await start();
    await eventually(async () => proc.output().includes('curl -H'), 'demo block', { timeoutMs: 10_000 });
    const out = proc.output();
    const field = (label: string) => out.match(new RegExp(`${label}\\s+(\\S+)`))?.[1] ?? '';
    demo = { storeId: field('store id'), apiSecret: field('API secret'), compatKey: field('compat key'), adminToken: field('admin token') };
    expect(demo.storeId).toMatch(/^sto_/);
    expect(demo.apiSecret).toMatch(/^sk_/);
    expect(demo.compatKey).toMatch(/^ck_/);
    expect(demo.adminToken).toMatch(/^adm_/);
    expect(out).toContain(`curl -H "Authorization: Bearer ${demo.apiSecret}" http://localhost:${port}/v2.2/stores/${demo.storeId}/returns`);
    const res = await fetch(`${baseUrl}/v2.2/stores/${demo.storeId}/returns`, { headers: { authorization: `Bearer ${demo.apiSecret}` } });
    expect(res.status).toBe(200);
  });

  it('runs the admin CLI against the running server, printing only JSON with --json', async () => {
    const npm = await run('npm', ['run', '--silent', 'admin', '--', 'create-account', '--name', 'CLI merchant', '--json'], env);
    expect(npm.code, npm.stderr).toBe(0);
    const account = JSON.parse(npm.stdout);
    expect(Object.keys(account).sort()).toEqual(['accountId', 'apiSecret', 'compatKey', 'storeId']);
    expect(npm.stdout.trim()).toBe(JSON.stringify(account));

    const token = JSON.parse((await cli('admin-token', '--json')).stdout);
    expect(token).toEqual({ adminToken: demo.adminToken });

    const store = JSON.parse((await cli('create-store', '--account', account.accountId, '--name', 'Second', '--json')).stdout);
    expect(store).toEqual({ storeId: expect.stringMatching(/^sto_/) });

    const secret = JSON.parse((await cli('create-secret', '--account', account.accountId, '--scopes', 'returns_read,orders_write', '--json')).stdout);
    expect(secret).toMatchObject({ secretId: expect.stringMatching(/^sec_/), apiSecret: expect.stringMatching(/^sk_/), scopes: ['returns_read', 'orders_write'] });
    expect(secret.prefix).toBe(secret.apiSecret.slice(0, 12));
    const key = JSON.parse((await cli('create-compat-key', '--store', store.storeId, '--json')).stdout);
    expect(key).toEqual({ compatKey: expect.stringMatching(/^ck_/) });

    // The new store belongs to the account, so the new secret reads it; revoking stops it at once.
    const read = () => fetch(`${baseUrl}/v2.2/stores/${store.storeId}/returns`, { headers: { authorization: `Bearer ${secret.apiSecret}` } });
    expect((await read()).status).toBe(200);
    const revoke = await cli('revoke-secret', '--account', account.accountId, '--prefix', secret.prefix);
    expect(revoke.code, revoke.stderr).toBe(0);
    expect((await read()).status).toBe(401);

    // The whole secret, pasted as it was shown, works as its prefix.
    const another = JSON.parse((await cli('create-secret', '--account', account.accountId, '--json')).stdout);
    const whole = await cli('revoke-secret', '--account', account.accountId, '--prefix', another.apiSecret, '--json');
    expect(whole.code, whole.stderr).toBe(0);
    expect(JSON.parse(whole.stdout)).toEqual({ revoked: 1 });
  });

  it('finds lost ids again: list-accounts, list-stores --account', async () => {
    const accounts = JSON.parse((await cli('list-accounts', '--json')).stdout) as { accountId: string; name: string; storeCount: number }[];
    expect(accounts.map((a) => a.name)).toEqual(['Demo merchant', 'CLI merchant']);
    expect(accounts[1]!.storeCount).toBe(2);
    const stores = JSON.parse((await cli('list-stores', '--account', accounts[0]!.accountId, '--json')).stdout) as { storeId: string; name: string }[];
    expect(stores).toEqual([expect.objectContaining({ storeId: demo.storeId, name: 'Demo store' })]);
    const human = await cli('list-stores', '--account', accounts[0]!.accountId);
    expect(human.stdout).toContain(`storeId: ${demo.storeId}`);
  });

  it('reports CLI mistakes on stderr with a non-zero exit', async () => {
    const missing = await cli('create-store', '--name', 'x', '--json');
    expect(missing.code).not.toBe(0);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('--account');
    const unknown = await cli('create-secret', '--account', 'acc_nope', '--json');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('not found');
    // A usage line pasted with its brackets leaves stray words: refused like an unknown flag, nothing created.
    const stray = await cli('create-account', '--name', 'Stray', '[--store-name', 'X]', '--json');
    expect(stray.code).toBe(2);
    expect(stray.stdout).toBe('');
    expect(stray.stderr).toContain('unexpected arguments: "[--store-name" "X]"');
    const listed = JSON.parse((await cli('list-accounts', '--json')).stdout) as { name: string }[];
    expect(listed.map((a) => a.name)).not.toContain('Stray');
  });

  it('stops on SIGTERM, and the embedded PostgreSQL with it', async () => {
    const pid = postgresPid()!;
    expect(alive(pid)).toBe(true);
    current!.child.kill('SIGTERM');
    const { code } = await current!.exited;
    expect(code).toBe(0);
    await eventually(async () => !alive(pid), 'postgres to stop', { timeoutMs: 10_000 });
  });

  it('keeps the data across restarts and prints no second demo account', async () => {
    const proc = await start();
    const res = await fetch(`${baseUrl}/v2.2/stores/${demo.storeId}/returns`, { headers: { authorization: `Bearer ${demo.apiSecret}` } });
    expect(res.status).toBe(200);
    expect(proc.output()).not.toContain('demo account');
  });

  it('adopts the PostgreSQL a killed process left running, and stops it later', async () => {
    const orphan = postgresPid()!;
    current!.child.kill('SIGKILL');
    await current!.exited;
    expect(alive(orphan)).toBe(true);
    const proc = await start();
    expect(proc.output()).toContain('adopting');
    expect(postgresPid()).toBe(orphan);
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
    await eventually(async () => !alive(orphan), 'adopted postgres to stop', { timeoutMs: 10_000 });
  });

  it('recovers from a stale postmaster.pid left by a killed database', async () => {
    await start();
    const pg = postgresPid()!;
    current!.child.kill('SIGKILL');
    await current!.exited;
    process.kill(pg, 'SIGKILL');
    await eventually(async () => !alive(pg), 'postgres to die', { timeoutMs: 10_000 });
    expect(postgresPid()).toBe(pg); // the pid file is still there, pointing at nothing
    await start();
    const res = await fetch(`${baseUrl}/v2.2/stores/${demo.storeId}/returns`, { headers: { authorization: `Bearer ${demo.apiSecret}` } });
    expect(res.status).toBe(200);
  });

  it('lets the admin CLI start the embedded server itself when none is running', async () => {
    current!.child.kill('SIGTERM');
    await current!.exited;
    const out = await cli('admin-token', '--json');
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ adminToken: demo.adminToken });
    const pid = postgresPid();
    expect(pid === undefined || !alive(pid)).toBe(true);
  });
});
