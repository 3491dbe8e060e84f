import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where everything lives and which ports it uses. One base port (HA_PORT_BASE,
 * default 25400, below Linux's ephemeral range and away from 5432, 2379, 2380
 * and 8008); one directory (HA_DIR, default <tmpdir>/returns-ha-<base>), so
 * two clusters with different bases never share files.
 */

export const NODES = ['node1', 'node2', 'node3'] as const;
export type NodeName = (typeof NODES)[number];

export const DEFAULT_PORT_BASE = 25400;
export const SCOPE = 'returns-ha';
export const PG_BIN = '/usr/lib/postgresql/15/bin';

/** Patroni's timing: loop_wait + 2 * retry_timeout <= ttl. */
export const TIMING = { ttl: 20, loop_wait: 2, retry_timeout: 5 } as const;

export interface Ports {
  /** HAProxy: the leader (Patroni `GET /primary`). */
  primary: number;
  /** HAProxy: the replicas, round robin (Patroni `GET /replica`). */
  replica: number;
  /** HAProxy's statistics page (HTTP). */
  stats: number;
  etcdClient: number;
  etcdPeer: number;
  pg: Record<NodeName, number>;
  rest: Record<NodeName, number>;
}

export function portsFor(base: number): Ports {
  const perNode = (offset: number): Record<NodeName, number> => ({ node1: base + offset + 1, node2: base + offset + 2, node3: base + offset + 3 });
  return { primary: base, replica: base + 1, stats: base + 2, etcdClient: base + 3, etcdPeer: base + 4, pg: perNode(10), rest: perNode(20) };
}

export function allPorts(ports: Ports): number[] {
  return [ports.primary, ports.replica, ports.stats, ports.etcdClient, ports.etcdPeer, ...Object.values(ports.pg), ...Object.values(ports.rest)];
}

export function resolvePortBase(explicit?: number): number {
  const raw = explicit ?? (process.env.HA_PORT_BASE ? Number(process.env.HA_PORT_BASE) : DEFAULT_PORT_BASE);
  if (!Number.isInteger(raw) || raw < 1024 || raw > 65_000) throw new Error(`HA_PORT_BASE must be an integer between 1024 and 65000 (got ${String(raw)})`);
  return raw;
}

export function resolveDir(base: number, explicit?: string): string {
  return explicit ?? process.env.HA_DIR ?? join(tmpdir(), `returns-ha-${base}`);
}

export interface Secrets {
  superuser: { username: string; password: string };
  replication: { username: string; password: string };
  rewind: { username: string; password: string };
  /** The service's own user and database. */
  app: { username: string; password: string; database: string };
}

export interface Layout {
  dir: string;
  etcdData: string;
  logs: string;
  run: string;
  haproxyConfig: string;
  secretsFile: string;
  stateFile: string;
  node(name: NodeName): { dir: string; data: string; config: string; pgpass: string; pglog: string };
}

export function layout(dir: string): Layout {
  return {
    dir,
    etcdData: join(dir, 'etcd'),
    logs: join(dir, 'logs'),
    run: join(dir, 'run'),
    haproxyConfig: join(dir, 'haproxy.cfg'),
    secretsFile: join(dir, 'secrets.json'),
    stateFile: join(dir, 'cluster.json'),
    node: (name) => ({
      dir: join(dir, name),
      data: join(dir, name, 'data'),
      config: join(dir, name, 'patroni.yml'),
      pgpass: join(dir, name, 'pgpass'),
      pglog: join(dir, name, 'log'),
    }),
  };
}

/**
 * PostgreSQL settings every node shares (Patroni keeps them in etcd). Test-sized
 * memory, but durability as in production: fsync, full_page_writes and
 * synchronous_commit stay on.
 */
export const PG_PARAMETERS = {
  // Several service processes, each with a few pools, plus pg-boss.
  max_connections: 300,
  // Streaming replicas that serve reads.
  wal_level: 'replica',
  hot_standby: 'on',
  max_wal_senders: 10,
  max_replication_slots: 10,
  wal_keep_size: '256MB',
  // pg_rewind needs hint-bit changes in the WAL (the cluster also has data checksums).
  wal_log_hints: 'on',
  // Durability: an acknowledged commit is on disk on the primary and on the synchronous standby.
  fsync: 'on',
  full_page_writes: 'on',
  synchronous_commit: 'on',
  // Queue tables stay lean on the primary: long replica reads may be cancelled (40001) instead.
  hot_standby_feedback: 'off',
  shared_buffers: '64MB',
  autovacuum_naptime: '5s',
  password_encryption: 'scram-sha-256',
  // Dead clients (a process killed on another host) are noticed within a minute.
  tcp_keepalives_idle: 30,
  tcp_keepalives_interval: 10,
  tcp_keepalives_count: 3,
  shared_preload_libraries: 'pg_stat_statements',
} as const;

export function patroniConfig(options: { name: NodeName; ports: Ports; layout: Layout; secrets: Secrets }): Record<string, unknown> {
  const { name, ports, secrets } = options;
  const node = options.layout.node(name);
  return {
    scope: SCOPE,
    name,
    log: { level: 'INFO' },
    restapi: { listen: `127.0.0.1:${ports.rest[name]}`, connect_address: `127.0.0.1:${ports.rest[name]}` },
    // etcd's v2 API, not etcd3: Patroni 3.0.2's etcd3 client may overwrite another node's leader key
    // when its own lease expired (a leader frozen longer than ttl takes the lock back on resume and the
    // new leader's acknowledged writes are rewound away; fixed upstream after 3.0.2). The v2 client
    // renews the key with a compare-and-swap on its value, so a stale leader can only demote.
    etcd: { hosts: [`127.0.0.1:${ports.etcdClient}`], protocol: 'http' },
    bootstrap: {
      dcs: {
        ...TIMING,
        maximum_lag_on_failover: 1024 * 1024,
        // Only the old leader or the synchronous standby may be promoted: an acknowledged commit survives.
        synchronous_mode: true,
        synchronous_node_count: 1,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          // A node that cannot be rewound (or whose timeline diverged) is cloned again instead of staying down.
          remove_data_directory_on_rewind_failure: true,
          remove_data_directory_on_diverged_timelines: true,
          parameters: PG_PARAMETERS,
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C' }, 'data-checksums'],
    },
    postgresql: {
      listen: `127.0.0.1:${ports.pg[name]}`,
      connect_address: `127.0.0.1:${ports.pg[name]}`,
      data_dir: node.data,
      bin_dir: PG_BIN,
      pgpass: node.pgpass,
      authentication: {
        superuser: secrets.superuser,
        replication: secrets.replication,
        rewind: secrets.rewind,
      },
      // Local to this node (not shared through etcd).
      parameters: {
        unix_socket_directories: node.dir,
        logging_collector: 'on',
        log_directory: node.pglog,
        log_filename: 'postgresql.log',
        log_line_prefix: '%m [%p] %q%u@%d ',
        log_connections: 'off',
      },
      pg_hba: [
        'local all all trust',
        `host replication ${secrets.replication.username} 127.0.0.1/32 scram-sha-256`,
        'host all all 127.0.0.1/32 scram-sha-256',
      ],
      basebackup: [{ checkpoint: 'fast' }],
    },
    // No /dev/watchdog here: without it Patroni warns on every promotion. A production node may want one.
    watchdog: { mode: 'off' },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
}

export function etcdArgs(options: { ports: Ports; layout: Layout }): string[] {
  const { ports } = options;
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  const client = `http://127.0.0.1:${ports.etcdClient}`;
  return [
    '--name',
    'etcd1',
    '--data-dir',
    options.layout.etcdData,
    '--listen-client-urls',
    client,
    '--advertise-client-urls',
    client,
    '--listen-peer-urls',
    peer,
    '--initial-advertise-peer-urls',
    peer,
    '--initial-cluster',
    `etcd1=${peer}`,
    '--initial-cluster-state',
    'new',
    '--initial-cluster-token',
    `${SCOPE}-${ports.primary}`,
    // Patroni talks to it through the v2 API (see patroniConfig).
    '--enable-v2=true',
    '--log-level',
    'warn',
  ];
}

/** HAProxy in front of the cluster: one port for the leader, one for the replicas. */
export function haproxyConfig(ports: Ports): string {
  // No per-server maxconn: PostgreSQL's own max_connections answers with a clear error (53300)
  // instead of connections queueing in HAProxy.
  const servers = NODES.map((name) => `  server ${name} 127.0.0.1:${ports.pg[name]} check port ${ports.rest[name]}`).join('\n');
  return `# Generated by npm run ha: HAProxy in front of a Patroni cluster.
global
  maxconn 4000

defaults
  mode tcp
  timeout connect 3s
  # Pooled connections, LISTEN clients and advisory-lock holders sit idle for long
  # stretches: these close a connection only after an hour without traffic.
  timeout client 1h
  timeout server 1h
  timeout check 2s
  # TCP keepalive on both sides: a peer that vanished is noticed without traffic.
  option clitcpka
  option srvtcpka

listen stats
  mode http
  bind 127.0.0.1:${ports.stats}
  stats enable
  stats uri /
  stats refresh 2s

listen primary
  bind 127.0.0.1:${ports.primary}
  option httpchk
  http-check send meth GET uri /primary
  http-check expect status 200
  # Checked every second, down after two failures, up after one success; the
  # sessions of a server marked down are cut at once (a demoted primary keeps none).
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
${servers}

listen replicas
  bind 127.0.0.1:${ports.replica}
  balance roundrobin
  option httpchk
  http-check send meth GET uri /replica
  http-check expect status 200
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
${servers}
`;
}

/** HAProxy as an HTTP load balancer in front of local API processes (round robin, health by GET /readyz). */
export function httpBalancerConfig(listenPort: number, backendPorts: number[]): string {
  const servers = backendPorts.map((port, i) => `  server api${i + 1} 127.0.0.1:${port} check`).join('\n');
  return `# Generated by npm run ha: HAProxy in front of local HTTP processes.
global
  maxconn 4000

defaults
  mode http
  timeout connect 3s
  timeout client 5m
  timeout server 5m
  timeout http-request 30s
  timeout http-keep-alive 10s
  timeout check 2s
  option http-keep-alive
  # A request whose connection could not be made is sent to another server; a
  # request that reached one is never sent twice.
  option redispatch
  retries 1
  retry-on conn-failure

frontend api
  bind 127.0.0.1:${listenPort}
  default_backend processes

backend processes
  balance roundrobin
  option httpchk
  http-check send meth GET uri /readyz
  http-check expect status 200
  default-server inter 1s fall 2 rise 1
${servers}
`;
}
