import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, type ClusterStatus } from '../../scripts/ha/cluster.ts';
import { type NodeName } from '../../scripts/ha/config.ts';
import { isAlive, portOpen } from '../../scripts/ha/processes.ts';
import { cli, eventually, outcome, query, sleep, TEST_DIR, TEST_PORT_BASE } from './support.ts';

/**
 * The cluster tool against a real cluster: three PostgreSQL 15 nodes under
 * Patroni (synchronous mode), one etcd, HAProxy. The tests run in order and
 * share one cluster; each leaves it healthy (three nodes) or says otherwise.
 */

const report = (line: string): void => {
  process.stderr.write(`[ha test] ${line}\n`);
};

const cluster = new Cluster({ portBase: TEST_PORT_BASE, dir: TEST_DIR, log: (line) => process.stderr.write(line + '\n') });
let databaseUrl = '';
let replicaUrl = '';

function roles(status: ClusterStatus): Record<string, string> {
  return Object.fromEntries(status.members.map((m) => [m.name, m.role]));
}

function expectHealthy(status: ClusterStatus): void {
  expect(status.members).toHaveLength(3);
  expect(status.members.filter((m) => m.role === 'leader')).toHaveLength(1);
  expect(status.members.every((m) => m.state === 'running')).toBe(true);
  const streaming = status.replication.filter((r) => r.state === 'streaming');
  expect(streaming).toHaveLength(2);
  expect(streaming.filter((r) => r.sync_state === 'sync')).toHaveLength(1);
  const sync = status.members.find((m) => m.role === 'sync_standby');
  expect(sync?.name).toBe(streaming.find((r) => r.sync_state === 'sync')?.application_name);
}

/** A write through the primary port as the service makes it; resolves when committed (synchronously replicated). */
async function writeMarker(label: string): Promise<number> {
  const rows = await query<{ port: number }>(databaseUrl, 'insert into ha_test (label) values ($1) returning inet_server_port() as port', [label]);
  return Number(rows[0].port);
}

async function markerCount(url: string, label: string): Promise<number> {
  const rows = await query<{ n: string }>(url, 'select count(*) as n from ha_test where label = $1', [label]);
  return Number(rows[0].n);
}

beforeAll(async () => {
  // Whatever an interrupted earlier run left in the test directory goes first.
  await cluster.down();
});

afterAll(async () => {
  if (process.env.HA_TEST_KEEP) return;
  await cluster.down();
});

describe('npm run ha', () => {
  it('up (through the CLI) starts a leader and two streaming replicas, one synchronous, and prints only the two URLs on stdout', async () => {
    const t0 = Date.now();
    const up = await cli(['up']);
    report(`up: ${((Date.now() - t0) / 1000).toFixed(1)} s (cli exit ${up.code})`);
    expect(up.code, up.stderr).toBe(0);
    const lines = up.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^DATABASE_URL=postgres://returns:[\\w-]+@127\\.0\\.0\\.1:${cluster.ports.primary}/returns$`));
    expect(lines[1]).toMatch(new RegExp(`^DATABASE_REPLICA_URL=postgres://returns:[\\w-]+@127\\.0\\.0\\.1:${cluster.ports.replica}/returns$`));
    databaseUrl = lines[0].slice('DATABASE_URL='.length);
    replicaUrl = lines[1].slice('DATABASE_REPLICA_URL='.length);
    expect(databaseUrl).toBe(cluster.databaseUrl);
    expect(replicaUrl).toBe(cluster.replicaUrl);

    expectHealthy(await cluster.status());
    // Everything runs unprivileged and listens on 127.0.0.1 only.
    const settings = await query<{ listen: string; sync: string; fsync: string; max: string; level: string }>(
      cluster.superuserUrl(),
      "select current_setting('listen_addresses') as listen, current_setting('synchronous_commit') as sync, current_setting('fsync') as fsync, current_setting('max_connections') as max, current_setting('wal_level') as level",
    );
    expect(settings[0]).toEqual({ listen: '127.0.0.1', sync: 'on', fsync: 'on', max: '300', level: 'replica' });
  });

  it('up again on the same directory says so and prints the same URLs', async () => {
    const again = await cli(['up']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already up/);
    expect(again.stdout).toBe(`DATABASE_URL=${databaseUrl}\nDATABASE_REPLICA_URL=${replicaUrl}\n`);
  });

  it('status (through the CLI) lists the members with role, state, lag and timeline', async () => {
    const status = await cli(['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/member\s+role\s+state\s+port\s+timeline\s+lag/);
    for (const name of cluster.nodes) expect(status.stdout).toMatch(new RegExp(`^${name}\\s+(leader|sync_standby|replica)\\s+running`, 'm'));
  });

  it('a write through the primary port can be read through the replica port; the replica port refuses writes', async () => {
    await query(databaseUrl, 'create table if not exists ha_test (id bigserial primary key, label text not null, at timestamptz not null default now())');
    const port = await writeMarker('first');
    const status = await cluster.status();
    expect(cluster.nodeOfPort(port)).toBe(status.leader?.name);

    await eventually(async () => (await markerCount(replicaUrl, 'first')) === 1, 'the row on a replica', 10_000);
    const onReplica = await query<{ recovery: boolean; port: number }>(replicaUrl, 'select pg_is_in_recovery() as recovery, inet_server_port() as port');
    expect(onReplica[0].recovery).toBe(true);
    expect(Number(onReplica[0].port)).not.toBe(port);
    expect(await outcome(() => query(replicaUrl, "insert into ha_test (label) values ('on a replica')"))).toBe('25006');
  });

  let killed: NodeName;

  it('kill-primary: a new leader takes writes; an acknowledged write survives', async () => {
    await writeMarker('before-kill');
    const before = await cluster.status();
    const result = await cluster.killPrimary({ wait: true });
    killed = result.node;
    expect(killed).toBe(before.leader?.name);
    expect(result.newLeader).toBeDefined();
    expect(result.newLeader).not.toBe(killed);
    // Synchronous mode: only the synchronous standby may take over.
    expect(result.newLeader).toBe(before.members.find((m) => m.role === 'sync_standby')?.name);
    report(`kill-primary: new leader after ${((result.leaderAfterMs ?? 0) / 1000).toFixed(1)} s, writable after ${((result.writableAfterMs ?? 0) / 1000).toFixed(1)} s`);
    expect(result.writableAfterMs).toBeLessThan(90_000);
    for (const pid of result.pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(await portOpen(cluster.ports.pg[killed])).toBe(false);

    const port = await writeMarker('after-kill');
    expect(cluster.nodeOfPort(port)).toBe(result.newLeader);
    expect(await markerCount(databaseUrl, 'before-kill')).toBe(1);
    // Not restarted by the tool: the caller decides.
    await sleep(3_000);
    expect(cluster.nodePids(killed).all).toEqual([]);
    expect((await cluster.status()).nodes.find((n) => n.name === killed)?.state).toBe('down');
  });

  it('restart-node brings the killed node back as a streaming replica', async () => {
    const t0 = Date.now();
    const result = await cluster.restartNode(killed);
    report(`restart-node ${killed}: ${(result.ms / 1000).toFixed(1)} s`);
    expect(result.action).toBe('started');
    const status = await cluster.status();
    expectHealthy(status);
    expect(status.leader?.name).not.toBe(killed);
    expect(roles(status)[killed]).toMatch(/^(replica|sync_standby)$/);
    const direct = await query<{ recovery: boolean }>(cluster.superuserUrl(cluster.ports.pg[killed]), 'select pg_is_in_recovery() as recovery');
    expect(direct[0].recovery).toBe(true);
    await eventually(async () => (await markerCount(cluster.nodeUrl(killed), 'after-kill')) === 1, `the write made while ${killed} was down, on ${killed}`, 20_000);
    expect(Date.now() - t0).toBeLessThan(180_000);
  });

  it('switchover: the synchronous standby becomes leader; writes go there', async () => {
    const before = await cluster.waitForHealthy();
    const result = await cluster.switchover();
    report(`switchover ${result.from} -> ${result.to}: writable on the new leader ${(result.ms / 1000).toFixed(1)} s after the request`);
    expect(result.from).toBe(before.leader?.name);
    expect(result.to).toBe(before.members.find((m) => m.role === 'sync_standby')?.name);
    const port = await writeMarker('after-switchover');
    expect(cluster.nodeOfPort(port)).toBe(result.to);
    const after = await cluster.waitForHealthy({ timeoutMs: 60_000 });
    expectHealthy(after);
    expect(after.leader?.name).toBe(result.to);
    expect(roles(after)[result.from]).toMatch(/^(replica|sync_standby)$/);
  });

  it('freeze-primary longer than ttl: a new leader takes over; the resumed old primary takes no write and follows', async () => {
    const before = await cluster.waitForHealthy();
    const frozen = before.leader!.name as NodeName;
    const frozenPort = cluster.ports.pg[frozen];
    const seconds = 35;
    const t0 = Date.now();
    const freezing = cluster.freezePrimary(seconds);

    // While it is frozen: a new leader, writable through the primary port, takes an acknowledged write.
    const writable = await cluster.waitForWritable({ timeoutMs: 90_000, notPort: frozenPort });
    report(`freeze-primary ${seconds} s: writable on ${writable.node} after ${((Date.now() - t0) / 1000).toFixed(1)} s of freeze`);
    expect(Date.now() - t0).toBeLessThan(seconds * 1000);
    expect(await writeMarker('during-freeze')).not.toBe(frozenPort);

    const result = await freezing;
    expect(result.node).toBe(frozen);
    expect(result.frozenMs).toBeGreaterThanOrEqual(seconds * 1000 - 100);

    // Right after the resume: a write straight to the old primary's own port is not acknowledged
    // (refused, cut, read-only, or left waiting for a synchronous standby it no longer has).
    const direct = await outcome(() => query(cluster.superuserUrl(frozenPort), "insert into ha_probe (id, at) values (2, now()) on conflict (id) do update set at = excluded.at", [], 3_000));
    report(`freeze-primary: a write straight to ${frozen} right after the resume: ${direct}`);
    expect(direct).not.toBe('ok');

    // For the next 10 s, every write through the primary port lands on the new leader.
    const until = Date.now() + 10_000;
    let writes = 0;
    while (Date.now() < until) {
      const port = await writeMarker('after-resume').catch(() => undefined);
      if (port !== undefined) {
        expect(port).not.toBe(frozenPort);
        writes++;
      }
      await sleep(100);
    }
    expect(writes).toBeGreaterThan(10);

    // The old primary ends up a replica that refuses writes; the write taken during the freeze is kept.
    await eventually(
      async () => (await query<{ recovery: boolean }>(cluster.superuserUrl(frozenPort), 'select pg_is_in_recovery() as recovery', [], 2_000))[0].recovery,
      `${frozen} in recovery`,
      90_000,
    );
    expect(await outcome(() => query(cluster.nodeUrl(frozen), "insert into ha_test (label) values ('direct')"))).toBe('25006');
    expect(await markerCount(databaseUrl, 'during-freeze')).toBe(1);
    expect(await markerCount(databaseUrl, 'direct')).toBe(0);
    const after = await cluster.waitForHealthy({ timeoutMs: 90_000 });
    expectHealthy(after);
    expect(after.leader?.name).toBe(writable.node);
    await eventually(async () => (await markerCount(cluster.nodeUrl(frozen), 'during-freeze')) === 1, `the freeze-time write on ${frozen}`, 30_000);
  });

  it('down (through the CLI) leaves no process, no listening port and no directory', async () => {
    const pids = cluster.pids();
    expect(pids.length).toBeGreaterThan(10);
    const result = await cli(['down']);
    expect(result.code, result.stderr).toBe(0);
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(cluster.pids()).toEqual([]);
    for (const port of cluster.allPorts()) expect(await portOpen(port), `port ${port}`).toBe(false);
    expect(existsSync(TEST_DIR)).toBe(false);
    const status = await cli(['status']);
    expect(status.code).toBe(1);
  });
});
