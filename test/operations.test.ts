import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedUrl } from '../platform/db/embedded-postgres.js';
import { alive, freePort, postgresPid, run, spawnCommand, spawnNode, waitReady, type Spawned } from './support/processes.js';
import { eventually } from './support/eventually.js';

/**
 * The service run the way operators run it: `npm start` signalled by a
 * supervisor, a port already taken, a second instance on the same DATA_DIR, a
 * process pointed at the embedded database with DATABASE_URL, and the embedded
 * PostgreSQL itself killed under load. One DATA_DIR and as few starts as the
 * cases allow (the machine is shared): the cases run in order on it.
 */
describe('operations: processes, signals, ports and the embedded database', () => {
  let dataDir: string;
  let portA: number;
  let portB: number;
  const procs: Spawned[] = [];
  let first: Spawned;
  let second: Spawned;
  let databaseUrl: string;
  let databasePort: number;
  let account: { storeId: string; apiSecret: string };

  const env = (port: number, extra: Record<string, string | undefined> = {}) => ({
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    LOG_FORMAT: undefined,
    NODE_ENV: 'test',
    DATABASE_URL: undefined,
    ADMIN_TOKEN: 'ops-admin-token-0123456789abcdef',
    DEMO_ACCOUNT: 'false',
    HOST: undefined,
    EVENTS_RATE_LIMIT_PER_SECOND: '100000',
    ...extra,
  });
  const node = (port: number, extra: Record<string, string | undefined> = {}) => {
    const spawned = spawnNode(['dist/server/main.js', 'all'], env(port, extra));
    procs.push(spawned);
    return spawned;
  };
  const cli = (...args: string[]) => run('node', ['dist/server/cli/admin-cli.js', ...args], env(portA));
  const stopped = async (spawned: Spawned) => {
    if (spawned.child.exitCode === null && spawned.child.signalCode === null) spawned.child.kill('SIGTERM');
    return spawned.exited;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'operations-test-'));
    portA = await freePort();
    portB = await freePort();
  });

  afterAll(async () => {
    for (const spawned of procs) if (spawned.child.exitCode === null && spawned.child.signalCode === null) spawned.child.kill('SIGKILL');
    const pid = postgresPid(dataDir);
    if (pid && alive(pid)) process.kill(pid, 'SIGINT');
    await eventually(async () => !pid || !alive(pid), 'postgres to stop', { timeoutMs: 10_000 }).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('npm start listens on loopback by default and logs the URL it serves', { timeout: 120_000 }, async () => {
    // --ignore-scripts skips the prestart build (done above) and nothing else: still npm, its shell line, node.
    first = spawnCommand('npm', ['start', '--ignore-scripts'], env(portA));
    procs.push(first);
    await waitReady(`http://127.0.0.1:${portA}`, first);
    expect(first.output()).toContain(`"url":"http://127.0.0.1:${portA}/"`);
    const created = await fetch(`http://127.0.0.1:${portA}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ops-admin-token-0123456789abcdef' },
      body: JSON.stringify({ query: 'mutation { createAccount(input: {name: "Ops"}) { storeId apiSecret } }' }),
    });
    account = ((await created.json()) as { data: { createAccount: { storeId: string; apiSecret: string } } }).data.createAccount;
    expect(account.storeId).toMatch(/^sto_/);
  });

  it('prints the embedded database URL (admin CLI database-url) that psql or DATABASE_URL can use', async () => {
    const out = await cli('database-url', '--json');
    expect(out.code, out.stderr).toBe(0);
    databaseUrl = (JSON.parse(out.stdout) as { databaseUrl: string }).databaseUrl;
    databasePort = Number(new URL(databaseUrl).port);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query('select count(*)::int as n from platform.store where id = $1', [account.storeId]);
    await client.end();
    expect(rows).toEqual([{ n: 1 }]);
    const plain = await cli('database-url');
    expect(plain.stdout.trim()).toBe(databaseUrl);
  });

  it('on a port already taken: one line saying which port and how to choose another, exit 1, nothing left running', { timeout: 60_000 }, async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'operations-port-'));
    try {
      const taken = spawnNode(['dist/server/main.js', 'all'], { ...env(portA), DATA_DIR: otherDir, LOG_LEVEL: 'warn' });
      const { code } = await taken.exited;
      expect(code).toBe(1);
      const lines = taken.output().trim().split('\n');
      expect(lines, taken.output()).toHaveLength(1);
      expect(lines[0]).toContain(`Port ${portA} on 127.0.0.1 is already in use`);
      expect(lines[0]).toContain('PORT=');
      // The port is checked before anything starts: no embedded PostgreSQL of its own was started.
      expect(postgresPid(otherDir)).toBeUndefined();
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('a second instance on the same DATA_DIR keeps the database alive when the first stops', { timeout: 120_000 }, async () => {
    second = node(portB);
    await waitReady(`http://127.0.0.1:${portB}`, second);
    const pg1 = postgresPid(dataDir)!;
    expect(alive(pg1)).toBe(true);

    // SIGTERM to the process `npm start` created (what Docker and systemd send): the whole tree stops, gracefully.
    first.child.kill('SIGTERM');
    await first.exited;
    await eventually(async () => !(await fetch(`http://127.0.0.1:${portA}/healthz`).then(() => true, () => false)), 'the first instance to stop serving', { timeoutMs: 20_000 });
    expect(first.output()).toContain('"msg":"shutting down"');
    expect(first.output()).toContain('leaving the embedded PostgreSQL running');

    // The second answers as before, on the same database server.
    expect(postgresPid(dataDir)).toBe(pg1);
    expect(alive(pg1)).toBe(true);
    const res = await fetch(`http://127.0.0.1:${portB}/v2.2/stores/${account.storeId}/returns`, { headers: { authorization: `Bearer ${account.apiSecret}` } });
    expect(res.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${portB}/readyz`)).status).toBe(200);
  });

  it('the embedded PostgreSQL killed under event load: not ready meanwhile, back by itself, every 202 stored exactly once', { timeout: 180_000 }, async () => {
    const base = `http://127.0.0.1:${portB}`;
    const acknowledged: string[] = [];
    const statuses = new Map<string, number>();
    let running = true;
    let sent = 0;
    const client = async (c: number) => {
      for (let i = 0; running; i++) {
        const uniqueId = `load-${c}-${i}`;
        // A client that follows the advice: the same event again (same uniqueId) until it is accepted.
        for (;;) {
          const status = await fetch(`${base}/v2.2/stores/${account.storeId}/events`, {
            method: 'POST',
            headers: { authorization: `Bearer ${account.apiSecret}`, 'content-type': 'application/json' },
            body: JSON.stringify({ eventName: 'Load', uniqueId, customer: { email: `c${c}@example.com` }, data: { i } }),
          }).then(
            (r) => r.status,
            () => 0,
          );
          sent++;
          statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1);
          if (status === 202) {
            acknowledged.push(uniqueId);
            break;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    const clients = Array.from({ length: 16 }, (_, c) => client(c));
    let sawNotReady = false;
    let watching = true;
    const readiness = (async () => {
      while (watching) {
        const status = await fetch(`${base}/readyz`).then((r) => r.status, () => 0);
        if (status === 503) sawNotReady = true;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    await eventually(async () => acknowledged.length >= 100, 'load to be under way', { timeoutMs: 60_000 });
    // Make sure the crash interrupts a job: hold one customer's row so a worker's batch waits inside its transaction.
    const blocker = new pg.Client({ connectionString: databaseUrl });
    blocker.on('error', () => undefined); // its connection dies with the server
    await blocker.connect();
    await blocker.query('begin');
    await eventually(
      async () => (await blocker.query(`select 1 from events.customer where store_id = $1 and email = 'c0@example.com' for update`, [account.storeId])).rowCount === 1,
      'the first customer to exist',
    );
    const waiting = async () => {
      const probe = new pg.Client({ connectionString: databaseUrl });
      await probe.connect();
      try {
        // A worker's transaction holds the jobs it claimed (row locks) and waits for the customer.
        const { rows } = await probe.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and backend_type = 'client backend' and datname = current_database()`,
        );
        return rows[0]!.n > 0;
      } finally {
        await probe.end();
      }
    };
    await eventually(waiting, 'a worker to wait on the held customer with its jobs claimed');
    const killed = postgresPid(dataDir)!;
    // The whole process group: the postmaster and every backend, as an OOM killer or a crash would.
    process.kill(-killed, 'SIGKILL');
    await eventually(async () => sawNotReady, '/readyz to say not ready', { timeoutMs: 20_000 });
    await eventually(async () => (await fetch(`${base}/readyz`)).status === 200, `/readyz to be ready again (output: ${second.output().slice(-1500)})`, { timeoutMs: 60_000 });
    const after = acknowledged.length;
    await eventually(async () => acknowledged.length >= after + 100, 'load to go on after recovery', { timeoutMs: 60_000 });
    running = false;
    await Promise.all(clients);
    watching = false;
    await readiness;

    const restarted = postgresPid(dataDir)!;
    expect(restarted).not.toBe(killed);
    expect(alive(restarted)).toBe(true);
    expect(second.output()).toContain('database reachable again');
    await blocker.end().catch(() => undefined);
    // The same port: URLs handed out before the crash still work.
    expect(Number(new URL(embeddedUrl(dataDir)!).port)).toBe(databasePort);

    const ids = [...new Set(acknowledged)];
    expect(ids).toHaveLength(acknowledged.length);
    const counts = async () => {
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const { rows } = await db.query<{ unique_id: string; n: number }>(
          'select unique_id, count(*)::int as n from events.custom_event where store_id = $1 group by unique_id',
          [account.storeId],
        );
        return new Map(rows.map((r) => [r.unique_id, r.n]));
      } finally {
        await db.end();
      }
    };
    // Within 30 s: the jobs the crash interrupted were claimed by transactions the crash rolled back,
    // so they are due again at once (no claim to expire).
    await eventually(
      async () => {
        const now = await counts();
        return ids.every((id) => now.has(id));
      },
      'every acknowledged event to be stored',
      { timeoutMs: 30_000 },
    );
    const stored = await counts();
    const missing = ids.filter((id) => stored.get(id) !== 1);
    // Requests cut off by the crash answer 503 (retry) like those that came during it, never a masked 500.
    expect(statuses.get('500'), `answers: ${JSON.stringify(Object.fromEntries(statuses))}`).toBeUndefined();
    expect(statuses.get('503')).toBeGreaterThan(0);
    expect(missing, `answers: ${JSON.stringify(Object.fromEntries(statuses))} of ${sent}`).toEqual([]);
  });

  it('the last process to stop stops the database; the next start reuses its port', { timeout: 120_000 }, async () => {
    const pid = postgresPid(dataDir)!;
    expect((await stopped(second)).code).toBe(0);
    await eventually(async () => !alive(pid), 'postgres to stop with its last user', { timeoutMs: 20_000 });
    const again = spawnCommand('npm', ['start', '--ignore-scripts'], env(portA));
    procs.push(again);
    await waitReady(`http://127.0.0.1:${portA}`, again);
    expect(Number(new URL(embeddedUrl(dataDir)!).port)).toBe(databasePort);
  });

  it('a process on DATABASE_URL whose database goes away: 503 and not ready, then exits 1 with a message for its supervisor', { timeout: 120_000 }, async () => {
    const owner = procs[procs.length - 1]!;
    const remote = node(portB, { DATABASE_URL: databaseUrl, DATABASE_LOST_EXIT_MS: '3000', SHUTDOWN_TIMEOUT_MS: '2000', LOG_FORMAT: 'pretty' });
    await waitReady(`http://127.0.0.1:${portB}`, remote);
    // npm killed outright (no signal passed on): the service it started notices and stops gracefully, and
    // with it the database, since a process on DATABASE_URL is not counted as a user of the embedded server.
    const pid = postgresPid(dataDir)!;
    owner.child.kill('SIGKILL');
    await eventually(async () => !(await fetch(`http://127.0.0.1:${portA}/healthz`).then(() => true, () => false)), 'the orphaned service to stop', { timeoutMs: 20_000 });
    await eventually(async () => !alive(pid), 'postgres to stop with the service', { timeoutMs: 20_000 });
    expect(owner.output()).toContain('"reason":"npm exited"');
    await eventually(async () => (await fetch(`http://127.0.0.1:${portB}/readyz`)).status === 503, 'not ready', { timeoutMs: 20_000 });
    const res = await fetch(`http://127.0.0.1:${portB}/v2.2/stores/${account.storeId}/returns`, { headers: { authorization: `Bearer ${account.apiSecret}` } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect(((await res.json()) as { type: string }).type).toBe('/problems/service-unavailable');
    const { code } = await remote.exited;
    expect(code).toBe(1);
    expect(remote.output()).toContain('DATABASE_LOST_EXIT_MS');
    // LOG_FORMAT=pretty: readable lines, not JSON.
    expect(remote.output()).toMatch(/INFO.*: listening/);
    expect(remote.output()).not.toContain('"msg":');
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  });

  it.runIf(existsSync('/usr/bin/script'))('in a terminal: readable logs and a line with the URL; closing the terminal (SIGHUP) stops it', { timeout: 120_000 }, async () => {
    // `script` gives the service a pseudo-terminal, as a developer's shell does.
    const terminal = spawnCommand('script', ['-qefc', 'node dist/server/main.js all', '/dev/null'], env(portA, { LOG_LEVEL: 'info' }));
    procs.push(terminal);
    await waitReady(`http://127.0.0.1:${portA}`, terminal);
    await eventually(async () => terminal.output().includes('Serving on'), 'the line with the URL', { timeoutMs: 10_000 });
    expect(terminal.output()).toContain(`Serving on http://127.0.0.1:${portA}/`);
    expect(terminal.output()).toMatch(/INFO.*listening/); // coloured on a terminal
    expect(terminal.output()).not.toContain('"msg":');
    const pid = postgresPid(dataDir)!;
    terminal.child.kill('SIGTERM');
    await terminal.exited;
    await eventually(async () => !(await fetch(`http://127.0.0.1:${portA}/healthz`).then(() => true, () => false)), 'the service to stop', { timeoutMs: 30_000 });
    await eventually(async () => !alive(pid), 'postgres to stop with it', { timeoutMs: 20_000 });
  });
});
