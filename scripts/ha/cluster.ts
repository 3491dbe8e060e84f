import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import pg from 'pg';
import {
  allPorts,
  etcdArgs,
  haproxyConfig,
  layout,
  NODES,
  patroniConfig,
  portsFor,
  resolveDir,
  resolvePortBase,
  type Layout,
  type NodeName,
  type Ports,
  type Secrets,
} from './config.ts';
import { BINARIES, ensureInstalled } from './install.ts';
import {
  allProcs,
  childEnv,
  descendants,
  isStopped,
  portOpen,
  postmasterPid,
  readRunFile,
  runAsUser,
  signal,
  sleep,
  spawnDetached,
  startedAlive,
  tail,
  waitGone,
  type RunAs,
  type Started,
} from './processes.ts';

/**
 * A three-node PostgreSQL 15 cluster under Patroni (synchronous mode), one etcd
 * member and HAProxy (a primary port and a replica port), all on 127.0.0.1, all
 * as an unprivileged user, all state in one directory. `npm run ha` drives it
 * (scripts/ha/cli.ts); tests use this class directly.
 */

export interface ClusterOptions {
  /** State directory (default: HA_DIR, else <tmpdir>/returns-ha-<portBase>). */
  dir?: string;
  /** First port (default: HA_PORT_BASE, else 25400); the cluster uses portBase .. portBase+23. */
  portBase?: number;
  /** Progress and timings (default: stderr). */
  log?: (line: string) => void;
}

export interface Member {
  name: string;
  /** `leader`, `sync_standby` or `replica` (Patroni's names). */
  role: string;
  /** `running`, `starting`, `stopped`, `crashed`, `creating replica`, ... */
  state: string;
  host: string;
  port: number;
  timeline?: number;
  /** Bytes behind the leader (a replica), or `unknown`. */
  lag?: number | string;
  apiUrl?: string;
}

export interface Replication {
  application_name: string;
  state: string;
  sync_state: string;
}

export interface NodeProcesses {
  name: NodeName;
  /** Patroni's pid when it runs (stopped included). */
  patroni?: number;
  postmaster?: number;
  /** `running`, `stopped` (SIGSTOP), or `down` (no Patroni). */
  state: 'running' | 'stopped' | 'down';
}

export interface ClusterStatus {
  members: Member[];
  leader?: Member;
  /** Walsenders on the leader: who streams, who is synchronous. */
  replication: Replication[];
  nodes: NodeProcesses[];
}

export interface Writable {
  /** Time from the call until a write through the primary port succeeded. */
  ms: number;
  /** The PostgreSQL port that took the write (tells which node is primary). */
  port: number;
  node?: NodeName;
}

export interface KillResult {
  node: NodeName;
  pids: number[];
  /** Date.now() when the signals went out. */
  at: number;
  newLeader?: string;
  /** From the kill until a new leader held the lock (Patroni says it is primary). */
  leaderAfterMs?: number;
  /** From the kill until a write through the primary port succeeded. */
  writableAfterMs?: number;
}

export interface SwitchoverResult {
  from: NodeName;
  to: NodeName;
  /** From the request until a write through the primary port landed on the new leader. */
  ms: number;
}

export interface FreezeResult {
  node: NodeName;
  pids: number[];
  /** How long the processes were stopped. */
  frozenMs: number;
  /** Date.now() when they were resumed. */
  resumedAt: number;
  newLeader?: string;
  writableAfterMs?: number;
}

export const APP_USER = 'returns';
export const APP_DATABASE = 'returns';
const PROBE = 'ha_probe';

const stderrLog = (line: string): void => {
  process.stderr.write(line + '\n');
};

function secret(): string {
  return randomBytes(18).toString('base64url');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

async function getJson<T>(url: string, timeoutMs = 1500): Promise<{ status: number; body: T } | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.status, body: body as T };
  } catch {
    return undefined;
  }
}

/** Runs `fn` with a fresh client; never hangs longer than the timeouts say. */
async function withClient<T>(connectionString: string, fn: (client: pg.Client) => Promise<T>, timeoutMs = 3000): Promise<T> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, keepAlive: true });
  // A connection cut while idle emits 'error' on the client: it is handled by the caller's retry.
  client.on('error', () => {});
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await Promise.race([client.end().catch(() => {}), sleep(500)]);
  }
}

export class Cluster {
  readonly dir: string;
  readonly portBase: number;
  readonly ports: Ports;
  readonly nodes: readonly NodeName[] = NODES;
  private readonly files: Layout;
  private readonly log: (line: string) => void;
  private cachedSecrets: Secrets | undefined;

  constructor(options: ClusterOptions = {}) {
    this.portBase = resolvePortBase(options.portBase);
    this.dir = resolveDir(this.portBase, options.dir);
    this.ports = portsFor(this.portBase);
    this.files = layout(this.dir);
    this.log = options.log ?? stderrLog;
  }

  // ---------------------------------------------------------------- addresses

  private get secrets(): Secrets {
    if (!this.cachedSecrets) {
      if (!existsSync(this.files.secretsFile)) throw new Error(`no cluster in ${this.dir} (run: npm run ha -- up)`);
      this.cachedSecrets = JSON.parse(readFileSync(this.files.secretsFile, 'utf8')) as Secrets;
    }
    return this.cachedSecrets;
  }

  /** The service's URL: its own user and database, through HAProxy's primary port. */
  get databaseUrl(): string {
    const { app } = this.secrets;
    return `postgres://${app.username}:${app.password}@127.0.0.1:${this.ports.primary}/${app.database}`;
  }

  /** The same user and database through HAProxy's replica port. */
  get replicaUrl(): string {
    const { app } = this.secrets;
    return `postgres://${app.username}:${app.password}@127.0.0.1:${this.ports.replica}/${app.database}`;
  }

  /** The superuser through the primary port (or straight to a port: a node's own). */
  superuserUrl(port = this.ports.primary, database = 'postgres'): string {
    const { superuser } = this.secrets;
    return `postgres://${superuser.username}:${superuser.password}@127.0.0.1:${port}/${database}`;
  }

  /** The service's user and database straight on one node's port, bypassing HAProxy (tests only: the service never does this). */
  nodeUrl(name: NodeName, database = APP_DATABASE): string {
    const { app } = this.secrets;
    return `postgres://${app.username}:${app.password}@127.0.0.1:${this.ports.pg[name]}/${database}`;
  }

  nodeOfPort(port: number): NodeName | undefined {
    return NODES.find((name) => this.ports.pg[name] === port);
  }

  /** Every port the cluster listens on. */
  allPorts(): number[] {
    return allPorts(this.ports);
  }

  // ---------------------------------------------------------------- processes

  private runFile(name: string): string {
    return join(this.files.run, `${name}.json`);
  }

  private started(name: string): Started | undefined {
    return readRunFile(this.runFile(name));
  }

  /** The processes of one node right now: Patroni, the postmaster, and everything under them. */
  nodePids(name: NodeName): { patroni?: number; postmaster?: number; all: number[] } {
    const patroniRun = this.started(name);
    const patroni = startedAlive(patroniRun) ? patroniRun.pid : undefined;
    const postmaster = postmasterPid(this.files.node(name).data);
    const roots = [patroni, postmaster].filter((pid): pid is number => pid !== undefined);
    const all = [...roots, ...descendants(roots)];
    return { patroni, postmaster, all: [...new Set(all)] };
  }

  /**
   * Every live process that belongs to this cluster: the ones it started, the
   * postmasters and their children, and any other cluster program (PostgreSQL
   * and its tools, Patroni, etcd, HAProxy) whose command line names the state
   * directory (a pg_basebackup, a pg_rewind, a postmaster whose Patroni is
   * gone). Anything else that merely mentions the directory (a shell, a pager on
   * a log) is left alone.
   */
  pids(): number[] {
    const procs = allProcs();
    const roots = new Set<number>();
    for (const name of ['etcd', 'haproxy', ...NODES]) {
      const s = this.started(name);
      if (startedAlive(s)) roots.add(s.pid);
    }
    for (const name of NODES) {
      const pm = postmasterPid(this.files.node(name).data);
      if (pm) roots.add(pm);
    }
    const prefix = this.dir.endsWith('/') ? this.dir : this.dir + '/';
    for (const p of procs) {
      if (p.pid === process.pid || p.state === 'Z' || p.state === 'X') continue;
      if (isClusterProgram(p.cmdline) && p.cmdline.some((arg) => arg === this.dir || arg.includes(prefix))) roots.add(p.pid);
    }
    return [...new Set([...roots, ...descendants([...roots], procs)])].filter((pid) => pid !== process.pid && pid !== process.ppid);
  }

  private nodeProcesses(): NodeProcesses[] {
    return NODES.map((name) => {
      const { patroni, postmaster } = this.nodePids(name);
      const state = patroni === undefined ? 'down' : isStopped(patroni) ? 'stopped' : 'running';
      return { name, patroni, postmaster, state };
    });
  }

  /** Is a cluster started from this directory (etcd alive)? */
  isUp(): boolean {
    return existsSync(this.files.stateFile) && startedAlive(this.started('etcd'));
  }

  // ---------------------------------------------------------------- Patroni views

  private restUrl(name: NodeName, path: string): string {
    return `http://127.0.0.1:${this.ports.rest[name]}${path}`;
  }

  /** Patroni's `/cluster` from the first node that answers (the DCS view: same from every node). */
  async members(): Promise<Member[] | undefined> {
    for (const name of NODES) {
      const answer = await getJson<{ members?: Array<Member & { api_url?: string }> }>(this.restUrl(name, '/cluster'));
      if (answer?.status === 200 && typeof answer.body === 'object' && Array.isArray(answer.body.members)) {
        return answer.body.members.map((m) => ({ ...m, apiUrl: m.api_url }));
      }
    }
    return undefined;
  }

  /** The walsenders on `leader` (from its `/patroni`). */
  private async replication(leader: string): Promise<Replication[]> {
    if (!(NODES as readonly string[]).includes(leader)) return [];
    const answer = await getJson<{ replication?: Replication[] }>(this.restUrl(leader as NodeName, '/patroni'));
    return answer?.status === 200 && typeof answer.body === 'object' ? (answer.body.replication ?? []) : [];
  }

  async status(): Promise<ClusterStatus> {
    const members = (await this.members()) ?? [];
    const leader = members.find((m) => m.role === 'leader');
    const replication = leader ? await this.replication(leader.name) : [];
    return { members, leader, replication, nodes: this.nodeProcesses() };
  }

  /** The member that holds the leader key (as etcd says: a killed leader stays leader until its key expires). */
  async leader(): Promise<Member | undefined> {
    return (await this.members())?.find((m) => m.role === 'leader');
  }

  /** Does Patroni on `name` itself answer `/primary` with 200 (what HAProxy asks)? */
  async isPrimary(name: NodeName): Promise<boolean> {
    return (await getJson(this.restUrl(name, '/primary'), 1000))?.status === 200;
  }

  /** Waits for a leader that answers `/primary` (another than `not` when given). */
  async waitForLeader(options: { timeoutMs?: number; not?: string } = {}): Promise<Member> {
    const deadline = Date.now() + (options.timeoutMs ?? 90_000);
    let last = 'no answer from Patroni';
    for (;;) {
      const members = await this.members();
      const leader = members?.find((m) => m.role === 'leader');
      if (leader && leader.name !== options.not && leader.state === 'running' && (await this.isPrimary(leader.name as NodeName))) return leader;
      if (members) last = members.map((m) => `${m.name}:${m.role}/${m.state}`).join(' ');
      if (Date.now() >= deadline) throw new Error(`no leader${options.not ? ` other than ${options.not}` : ''} within ${options.timeoutMs ?? 90_000} ms (${last})`);
      await sleep(200);
    }
  }

  /**
   * A leader, every other member a running replica streaming from it, and one
   * of them synchronous. `only` limits the replicas waited for (the others may be down).
   */
  async waitForHealthy(options: { timeoutMs?: number; only?: NodeName[]; failIfDead?: boolean } = {}): Promise<ClusterStatus> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer from Patroni';
    for (;;) {
      const status = await this.status();
      const leader = status.leader;
      if (leader && leader.state === 'running') {
        const expected = (options.only ?? NODES.filter((n) => status.nodes.find((p) => p.name === n)?.state !== 'down')).filter((n) => n !== leader.name);
        const streaming = status.replication.filter((r) => r.state === 'streaming');
        const allStreaming = expected.every(
          (name) => streaming.some((r) => r.application_name === name) && status.members.some((m) => m.name === name && m.state === 'running'),
        );
        // Synchronous in PostgreSQL and named in etcd's /sync key (Patroni's `sync_standby` role): only
        // then may it be promoted. Between the two (about 2 s after a new leader assigns it) no node
        // is eligible, and a leader lost in that window is not replaced until it comes back.
        const syncMember = status.members.find((m) => m.role === 'sync_standby');
        const sync = syncMember !== undefined && streaming.some((r) => r.application_name === syncMember.name && (r.sync_state === 'sync' || r.sync_state === 'quorum'));
        if (allStreaming && (expected.length === 0 || sync) && (await this.isPrimary(leader.name as NodeName))) return status;
        last = `leader ${leader.name}; streaming: ${streaming.map((r) => `${r.application_name}(${r.sync_state})`).join(', ') || 'none'}; members: ${status.members.map((m) => `${m.name}:${m.role}/${m.state}`).join(' ')}`;
      } else if (status.members.length > 0) {
        last = `no leader; members: ${status.members.map((m) => `${m.name}:${m.role}/${m.state}`).join(' ')}`;
      }
      if (options.failIfDead) {
        const dead = NODES.filter((n) => !startedAlive(this.started(n)));
        if (dead.length > 0) throw new Error(`Patroni on ${dead.join(', ')} exited:\n${dead.map((n) => tail(join(this.files.logs, `${n}.log`), 15)).join('\n')}`);
      }
      if (Date.now() >= deadline) throw new Error(`cluster not healthy within ${timeoutMs} ms: ${last}`);
      await sleep(250);
    }
  }

  /**
   * Waits until a write through HAProxy's primary port commits (synchronously
   * replicated, as every write of the service). `notPort` skips a node: a write
   * that lands there does not count.
   */
  async waitForWritable(options: { timeoutMs?: number; notPort?: number } = {}): Promise<Writable> {
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? 90_000;
    let last: unknown;
    for (;;) {
      try {
        const port = await withClient(this.superuserUrl(), async (client) => {
          const result = await client.query<{ port: number }>(
            `insert into ${PROBE} (id, at) values (1, now()) on conflict (id) do update set at = excluded.at returning inet_server_port() as port`,
          );
          return Number(result.rows[0].port);
        });
        if (port !== options.notPort) return { ms: Date.now() - started, port, node: this.nodeOfPort(port) };
        last = new Error(`the write landed on port ${port}`);
      } catch (err) {
        last = err;
      }
      if (Date.now() - started >= timeoutMs) throw new Error(`no write through the primary port within ${timeoutMs} ms: ${(last as Error)?.message ?? String(last)}`);
      await sleep(200);
    }
  }

  // ---------------------------------------------------------------- up / down

  /**
   * Starts the cluster (installing what is missing) and waits until it is
   * healthy; creates the service's user and database. When a cluster already
   * runs from this directory, waits for it and returns its URLs.
   */
  async up(options: { timeoutMs?: number; keepOnFailure?: boolean } = {}): Promise<{ databaseUrl: string; replicaUrl: string; ms: number; existing: boolean }> {
    const t0 = Date.now();
    if (existsSync(this.files.stateFile)) {
      const alive = ['etcd', 'haproxy', ...NODES].filter((n) => startedAlive(this.started(n)));
      if (alive.includes('etcd') && alive.includes('haproxy')) {
        const down = NODES.filter((n) => !alive.includes(n));
        this.log(`ha: a cluster is already up in ${this.dir}${down.length ? ` (Patroni not running on ${down.join(', ')}: npm run ha -- restart-node NAME)` : ''}`);
        await this.waitForWritable({ timeoutMs: options.timeoutMs ?? 120_000 });
        return { databaseUrl: this.databaseUrl, replicaUrl: this.replicaUrl, ms: Date.now() - t0, existing: true };
      }
      if (alive.length > 0 || this.pids().length > 0) {
        throw new Error(`a cluster in ${this.dir} is partly running (${alive.join(', ') || 'orphan processes'}): run npm run ha -- down first`);
      }
      this.log(`ha: ${this.dir} holds a cluster whose processes are gone: removing it and starting afresh`);
      rmSync(this.dir, { recursive: true, force: true });
    } else if (existsSync(this.dir) && readdirSync(this.dir).length > 0) {
      if (this.pids().length > 0) throw new Error(`${this.dir} has running processes but no cluster state: run npm run ha -- down first`);
      this.log(`ha: ${this.dir} holds an unfinished cluster: removing it`);
      rmSync(this.dir, { recursive: true, force: true });
    }

    ensureInstalled(this.log);
    const taken: number[] = [];
    for (const port of this.allPorts()) if (await portOpen(port, 300)) taken.push(port);
    if (taken.length > 0) throw new Error(`ports in use: ${taken.join(', ')} (another cluster? choose another HA_PORT_BASE)`);

    try {
      const runAs = runAsUser();
      this.prepareDirectory(runAs);
      const t1 = Date.now();
      this.startEtcd(runAs);
      await this.waitForEtcd(30_000);
      this.log(`ha: etcd up on 127.0.0.1:${this.ports.etcdClient} (${seconds(Date.now() - t1)})`);
      for (const name of NODES) this.startPatroni(name, runAs);
      this.startHaproxy(runAs);
      const status = await this.waitForHealthy({ timeoutMs: options.timeoutMs ?? 180_000, failIfDead: true });
      const sync = status.replication.find((r) => r.sync_state === 'sync')?.application_name;
      this.log(`ha: leader ${status.leader!.name}, synchronous standby ${sync}, both replicas streaming (${seconds(Date.now() - t1)})`);
      await this.createServiceDatabase();
      const writable = await this.waitForWritable({ timeoutMs: 30_000 });
      const state = { portBase: this.portBase, dir: this.dir, user: runAs?.user ?? null, startedAt: new Date(t0).toISOString(), upMs: Date.now() - t0 };
      writeFileSync(this.files.stateFile, JSON.stringify(state, null, 2) + '\n');
      this.log(`ha: up in ${seconds(Date.now() - t0)}; primary 127.0.0.1:${this.ports.primary} (${writable.node}), replicas 127.0.0.1:${this.ports.replica}, HAProxy stats http://127.0.0.1:${this.ports.stats}/`);
      return { databaseUrl: this.databaseUrl, replicaUrl: this.replicaUrl, ms: Date.now() - t0, existing: false };
    } catch (err) {
      for (const name of ['etcd', 'haproxy', ...NODES]) {
        const text = tail(join(this.files.logs, `${name}.log`), 12);
        if (text) this.log(`--- ${name}.log (last lines)\n${text}`);
      }
      if (options.keepOnFailure) this.log(`ha: up failed; processes and ${this.dir} kept for inspection (npm run ha -- down removes them)`);
      else await this.down().catch((e: Error) => this.log(`ha: cleaning up after the failure: ${e.message}`));
      throw err;
    }
  }

  private prepareDirectory(runAs: RunAs | undefined): void {
    const files = this.files;
    mkdirSync(files.dir, { recursive: true, mode: 0o700 });
    for (const d of [files.logs, files.run, ...NODES.map((n) => files.node(n).dir), ...NODES.map((n) => files.node(n).pglog)]) mkdirSync(d, { recursive: true, mode: 0o700 });
    const secrets: Secrets = {
      superuser: { username: 'postgres', password: secret() },
      replication: { username: 'replicator', password: secret() },
      rewind: { username: 'rewinder', password: secret() },
      app: { username: APP_USER, password: secret(), database: APP_DATABASE },
    };
    writeFileSync(files.secretsFile, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
    this.cachedSecrets = secrets;
    for (const name of NODES) {
      // JSON is YAML: Patroni reads it as is.
      writeFileSync(files.node(name).config, JSON.stringify(patroniConfig({ name, ports: this.ports, layout: files, secrets }), null, 2) + '\n', { mode: 0o600 });
    }
    writeFileSync(files.haproxyConfig, haproxyConfig(this.ports), { mode: 0o600 });
    if (runAs) chownTree(files.dir, runAs);
    chmodSync(files.dir, 0o700);
    const check = spawnSync(BINARIES.haproxy.path, ['-c', '-q', '-f', files.haproxyConfig], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`HAProxy rejects its configuration:\n${check.stdout}${check.stderr}`);
  }

  private startEtcd(runAs: RunAs | undefined): void {
    spawnDetached({
      name: 'etcd',
      command: BINARIES.etcd.path,
      args: etcdArgs({ ports: this.ports, layout: this.files }),
      logFile: join(this.files.logs, 'etcd.log'),
      runFile: this.runFile('etcd'),
      cwd: this.dir,
      env: childEnv(this.dir),
      runAs,
    });
  }

  private async waitForEtcd(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await getJson<{ health?: string }>(`http://127.0.0.1:${this.ports.etcdClient}/health`, 1000);
      if (answer?.status === 200 && typeof answer.body === 'object' && String(answer.body.health) === 'true') return;
      if (!startedAlive(this.started('etcd'))) throw new Error(`etcd exited:\n${tail(join(this.files.logs, 'etcd.log'))}`);
      if (Date.now() >= deadline) throw new Error(`etcd not healthy within ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  private startPatroni(name: NodeName, runAs: RunAs | undefined): Started {
    return spawnDetached({
      name,
      command: BINARIES.patroni.path,
      args: [this.files.node(name).config],
      logFile: join(this.files.logs, `${name}.log`),
      runFile: this.runFile(name),
      cwd: this.files.node(name).dir,
      env: childEnv(this.files.node(name).dir),
      runAs,
    });
  }

  private startHaproxy(runAs: RunAs | undefined): void {
    spawnDetached({
      name: 'haproxy',
      command: BINARIES.haproxy.path,
      args: ['-db', '-f', this.files.haproxyConfig],
      logFile: join(this.files.logs, 'haproxy.log'),
      runFile: this.runFile('haproxy'),
      cwd: this.dir,
      env: childEnv(this.dir),
      runAs,
    });
  }

  /** The service's login and database (it owns them, and the public schema with them), and the write probe. */
  private async createServiceDatabase(): Promise<void> {
    const { app } = this.secrets;
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await withClient(
          this.superuserUrl(),
          async (client) => {
            const role = await client.query('select 1 from pg_roles where rolname = $1', [app.username]);
            const quotedPassword = `'${app.password.replace(/'/g, "''")}'`;
            if (role.rowCount === 0) await client.query(`create role "${app.username}" login password ${quotedPassword}`);
            else await client.query(`alter role "${app.username}" login password ${quotedPassword}`);
            const db = await client.query('select 1 from pg_database where datname = $1', [app.database]);
            if (db.rowCount === 0) await client.query(`create database "${app.database}" owner "${app.username}"`);
            await client.query(`create table if not exists ${PROBE} (id int primary key, at timestamptz not null)`);
          },
          15_000,
        );
        await withClient(this.superuserUrl(this.ports.primary, app.database), async (client) => {
          await client.query('create extension if not exists pg_stat_statements');
        });
        return;
      } catch (err) {
        if (Date.now() >= deadline) throw err;
        await sleep(500);
      }
    }
  }

  /**
   * Stops everything this cluster started and removes its directory. The data
   * goes with the directory, so there is nothing to shut down gracefully: every
   * process (frozen ones included) gets SIGKILL, until a scan of /proc finds
   * none left; then every pid is checked gone and every port closed.
   */
  async down(): Promise<{ ms: number; pids: number[] }> {
    const t0 = Date.now();
    const seen = new Set<number>();
    for (let pass = 0; pass < 50; pass++) {
      const pids = this.pids();
      if (pids.length === 0) break;
      for (const pid of pids) {
        seen.add(pid);
        signal(pid, 'SIGKILL');
      }
      await waitGone(pids, 2_000);
    }
    if (seen.size === 0 && !existsSync(this.dir)) {
      this.log(`ha: nothing to stop (no cluster in ${this.dir})`);
      return { ms: Date.now() - t0, pids: [] };
    }
    const stuck = await waitGone([...seen], 5_000);
    if (stuck.length > 0) throw new Error(`processes of the cluster still alive: ${stuck.join(', ')}`);
    const open: number[] = [];
    for (const port of this.allPorts()) if (await portOpen(port, 300)) open.push(port);
    rmSync(this.dir, { recursive: true, force: true });
    this.cachedSecrets = undefined;
    this.log(`ha: down in ${seconds(Date.now() - t0)}: ${seen.size} processes stopped, ${this.dir} removed`);
    if (open.length > 0) this.log(`ha: warning: something else listens on ${open.join(', ')}`);
    return { ms: Date.now() - t0, pids: [...seen] };
  }

  // ---------------------------------------------------------------- failures

  /**
   * The leader to act on. Unless `now`, first waits (up to 60 s) until the
   * cluster can fail over: a synchronous standby streams and etcd names it.
   */
  private async requireLeader(now = false): Promise<NodeName> {
    if (!now) {
      const t0 = Date.now();
      const status = await this.waitForHealthy({ timeoutMs: 60_000 });
      if (Date.now() - t0 > 500) this.log(`ha: waited ${seconds(Date.now() - t0)} for a synchronous standby before acting`);
      return status.leader!.name as NodeName;
    }
    const leader = await this.leader();
    if (!leader) throw new Error('no leader right now (npm run ha -- status)');
    return leader.name as NodeName;
  }

  /**
   * SIGKILL of the leader's Patroni and postmaster together (and every process
   * under them, as a crashed machine would lose them). The node stays down until
   * restartNode. With `wait`, also waits for a new leader and a write through
   * the primary port, and measures both from the kill.
   */
  async killPrimary(options: { wait?: boolean; timeoutMs?: number; now?: boolean } = {}): Promise<KillResult> {
    const node = await this.requireLeader(options.now);
    const { patroni, postmaster, all } = this.nodePids(node);
    if (patroni === undefined && postmaster === undefined) throw new Error(`${node} is leader in etcd but has no process: it is already down`);
    const at = Date.now();
    for (const pid of [postmaster, patroni]) if (pid !== undefined) signal(pid, 'SIGKILL');
    for (const pid of all) signal(pid, 'SIGKILL');
    // Anything forked in between.
    const late = descendants(all);
    for (const pid of late) signal(pid, 'SIGKILL');
    const left = await waitGone([...all, ...late], 5_000);
    if (left.length > 0) throw new Error(`still alive after SIGKILL: ${left.join(', ')}`);
    this.log(`ha: killed ${node} (leader): Patroni ${patroni ?? '-'}, postmaster ${postmaster ?? '-'} and ${all.length - (patroni ? 1 : 0) - (postmaster ? 1 : 0)} processes under them`);
    const result: KillResult = { node, pids: all, at };
    if (options.wait) await this.measureRecovery(result, at, node, options.timeoutMs);
    return result;
  }

  private async measureRecovery(result: { newLeader?: string; leaderAfterMs?: number; writableAfterMs?: number }, since: number, old: NodeName, timeoutMs = 90_000): Promise<void> {
    const leader = await this.waitForLeader({ not: old, timeoutMs });
    result.newLeader = leader.name;
    result.leaderAfterMs = Date.now() - since;
    await this.waitForWritable({ timeoutMs, notPort: this.ports.pg[old] });
    result.writableAfterMs = Date.now() - since;
    this.log(`ha: new leader ${leader.name} after ${seconds(result.leaderAfterMs)}; writable through the primary port after ${seconds(result.writableAfterMs)}`);
  }

  /**
   * A planned switchover (Patroni's REST `POST /switchover`) to the
   * synchronous standby (or `candidate`); returns when a write through the
   * primary port lands on the new leader.
   */
  async switchover(options: { candidate?: NodeName; timeoutMs?: number } = {}): Promise<SwitchoverResult> {
    const status = await this.waitForHealthy({ timeoutMs: 30_000 });
    const from = status.leader!.name as NodeName;
    const to = (options.candidate ?? status.replication.find((r) => r.sync_state === 'sync')?.application_name) as NodeName | undefined;
    if (!to) throw new Error('no synchronous standby to switch over to');
    const t0 = Date.now();
    const response = await fetch(this.restUrl(from, '/switchover'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ leader: from, candidate: to }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`switchover refused (${response.status}): ${text.trim()}`);
    this.log(`ha: switchover ${from} -> ${to}: ${text.trim()} (${seconds(Date.now() - t0)})`);
    const writable = await this.waitForWritable({ timeoutMs: options.timeoutMs ?? 60_000, notPort: this.ports.pg[from] });
    const ms = Date.now() - t0;
    this.log(`ha: writable through the primary port on ${writable.node} ${seconds(ms)} after the request`);
    return { from, to, ms };
  }

  /**
   * SIGSTOP of the leader's Patroni, its postmaster and every backend and
   * auxiliary process under it (each PostgreSQL child is its own process group,
   * so stopping the postmaster's group alone would leave backends serving and
   * walsenders streaming), for `seconds`; then SIGCONT to all of them. Returns
   * after the resume.
   */
  async freezePrimary(seconds_: number, options: { wait?: boolean; timeoutMs?: number; now?: boolean } = {}): Promise<FreezeResult> {
    if (!(seconds_ > 0)) throw new Error('freeze-primary needs a number of seconds > 0');
    const node = await this.requireLeader(options.now);
    const { patroni, postmaster } = this.nodePids(node);
    const roots = [patroni, postmaster].filter((pid): pid is number => pid !== undefined);
    if (roots.length === 0) throw new Error(`${node} is leader in etcd but has no process`);
    const stopped = new Set<number>();
    const t0 = Date.now();
    // The postmaster first (it then forks nothing new), then Patroni, then until no unstopped child is left.
    for (const pid of [postmaster, patroni]) if (pid !== undefined && signal(pid, 'SIGSTOP')) stopped.add(pid);
    for (let pass = 0; pass < 20; pass++) {
      const fresh = descendants(roots).filter((pid) => !stopped.has(pid));
      if (fresh.length === 0) break;
      for (const pid of fresh) if (signal(pid, 'SIGSTOP')) stopped.add(pid);
    }
    this.log(`ha: froze ${node} (leader): ${stopped.size} processes stopped for ${seconds_} s`);
    // Measured while frozen: a new leader may take over before the resume.
    const recovery: { newLeader?: string; leaderAfterMs?: number; writableAfterMs?: number } = {};
    const measuring = options.wait
      ? this.measureRecovery(recovery, t0, node, Math.max(options.timeoutMs ?? 90_000, seconds_ * 1000 + 60_000)).then(
          () => undefined,
          (err: Error) => err,
        )
      : undefined;
    await sleep(Math.max(0, seconds_ * 1000 - (Date.now() - t0)));
    for (const pid of [...stopped].reverse()) signal(pid, 'SIGCONT');
    // Anything that was stopped meanwhile (a child forked during the stop passes).
    for (const pid of descendants(roots)) if (isStopped(pid)) signal(pid, 'SIGCONT');
    const resumedAt = Date.now();
    const result: FreezeResult = { node, pids: [...stopped], frozenMs: resumedAt - t0, resumedAt };
    this.log(`ha: resumed ${node} after ${(result.frozenMs / 1000).toFixed(1)} s`);
    if (measuring) {
      const demoted = await this.waitForDemoted(node, options.timeoutMs ?? 90_000);
      this.log(`ha: ${node} after the resume: ${demoted}`);
      const failed = await measuring;
      if (failed) throw failed;
      Object.assign(result, recovery);
    }
    return result;
  }

  /** After a resume: how the old primary ended up (in recovery, or refusing connections). */
  async waitForDemoted(name: NodeName, timeoutMs = 90_000): Promise<string> {
    const t0 = Date.now();
    for (;;) {
      try {
        const inRecovery = await withClient(
          this.superuserUrl(this.ports.pg[name]),
          async (client) => (await client.query<{ r: boolean }>('select pg_is_in_recovery() as r')).rows[0].r,
          2000,
        );
        if (inRecovery) return `in recovery (a replica) after ${seconds(Date.now() - t0)}`;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'ECONNREFUSED' || code === '57P03') return `refuses connections (${code}) after ${seconds(Date.now() - t0)}`;
      }
      if (Date.now() - t0 >= timeoutMs) throw new Error(`${name} still a primary ${timeoutMs} ms after resuming`);
      await sleep(100);
    }
  }

  /**
   * Brings a node back: SIGCONT when it is frozen, else starts its Patroni
   * again, which rejoins as a replica (pg_rewind when its timeline diverged; a
   * fresh clone when that fails). Waits until it streams from the leader.
   */
  async restartNode(name: string, options: { timeoutMs?: number } = {}): Promise<{ ms: number; action: 'resumed' | 'started' | 'running' }> {
    if (!(NODES as readonly string[]).includes(name)) throw new Error(`unknown node ${name} (one of ${NODES.join(', ')})`);
    const node = name as NodeName;
    if (!this.isUp()) throw new Error(`no cluster up in ${this.dir}`);
    const t0 = Date.now();
    const { patroni, all } = this.nodePids(node);
    let action: 'resumed' | 'started' | 'running';
    if (patroni !== undefined) {
      const frozen = all.filter(isStopped);
      for (const pid of frozen) signal(pid, 'SIGCONT');
      action = frozen.length > 0 ? 'resumed' : 'running';
      this.log(`ha: ${node}: ${action === 'resumed' ? `resumed ${frozen.length} stopped processes` : 'Patroni already runs'}`);
    } else {
      const runAs = runAsUser();
      this.startPatroni(node, runAs);
      action = 'started';
      this.log(`ha: ${node}: Patroni started again`);
    }
    const others = NODES.filter((n) => n === node || this.nodeProcesses().find((p) => p.name === n)?.state !== 'down');
    await this.waitForHealthy({ timeoutMs: options.timeoutMs ?? 180_000, only: others });
    const ms = Date.now() - t0;
    this.log(`ha: ${node} streams from the leader again after ${seconds(ms)}`);
    return { ms, action };
  }
}

const PROGRAMS = new Set(['postgres', 'postmaster', 'pg_ctl', 'pg_basebackup', 'pg_rewind', 'initdb', 'patroni', 'etcd', 'haproxy']);

/** PostgreSQL, its tools, Patroni (a Python script), etcd or HAProxy. */
function isClusterProgram(cmdline: string[]): boolean {
  const exe = basename(cmdline[0] ?? '');
  if (PROGRAMS.has(exe)) return true;
  return exe.startsWith('python') && cmdline.length > 1 && basename(cmdline[1]) === 'patroni';
}

function chownTree(path: string, runAs: RunAs): void {
  chownSync(path, runAs.uid, runAs.gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child, runAs);
    else chownSync(child, runAs.uid, runAs.gid);
  }
}

