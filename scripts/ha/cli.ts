import { Cluster, type ClusterStatus } from './cluster.ts';
import { TIMING } from './config.ts';

/**
 * npm run ha -- up | status | down | kill-primary | switchover | freeze-primary SECONDS | restart-node NAME
 *
 * Only `up` writes to stdout (DATABASE_URL=... and DATABASE_REPLICA_URL=..., for
 * `eval "$(npm run --silent ha -- up)"`) and `status` (the member table);
 * progress and timings go to stderr.
 */

const USAGE = `usage: npm run ha -- <command>

  up                       start the cluster (installs patroni, etcd-server, haproxy when missing);
                           prints DATABASE_URL=... and DATABASE_REPLICA_URL=... on stdout
  status [--json]          members (name, role, state, lag, timeline) and processes
  down                     stop everything and remove the state directory
  kill-primary [--wait]    SIGKILL the leader's Patroni and postmaster (the node stays down)
  switchover               planned switchover to the synchronous standby
  freeze-primary SECONDS [--wait]
                           SIGSTOP the leader's Patroni and PostgreSQL processes, then SIGCONT
  restart-node NAME        bring node1, node2 or node3 back (it rejoins as a replica)

  --wait                   also wait for a new leader and a write through the primary port
  --now                    (kill-primary, freeze-primary) act at once; by default they first wait until
                           a synchronous standby is streaming and registered in etcd (else no failover)
  --keep                   (up) keep processes and files when start-up fails

environment: HA_PORT_BASE (default 25400), HA_DIR (default <tmpdir>/returns-ha-<base>)`;

function printStatus(cluster: Cluster, status: ClusterStatus): void {
  const rows: string[][] = [['member', 'role', 'state', 'port', 'timeline', 'lag (bytes)', 'replication', 'process']];
  const names = new Set([...status.members.map((m) => m.name), ...cluster.nodes]);
  for (const name of names) {
    const m = status.members.find((x) => x.name === name);
    const r = status.replication.find((x) => x.application_name === name);
    const p = status.nodes.find((x) => x.name === name);
    rows.push([
      name,
      m?.role ?? '-',
      m?.state ?? '(not in etcd)',
      String(m?.port ?? cluster.ports.pg[name as keyof typeof cluster.ports.pg] ?? '-'),
      m?.timeline !== undefined ? String(m.timeline) : '-',
      m?.role === 'leader' ? '' : m?.lag !== undefined ? String(m.lag) : '-',
      r ? `${r.state}/${r.sync_state}` : '',
      p ? (p.state === 'down' ? 'down' : `${p.state} (patroni ${p.patroni}${p.postmaster ? `, postgres ${p.postmaster}` : ''})`) : '',
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) process.stdout.write(row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd() + '\n');
  process.stdout.write(
    `\nprimary 127.0.0.1:${cluster.ports.primary}  replicas 127.0.0.1:${cluster.ports.replica}  HAProxy stats http://127.0.0.1:${cluster.ports.stats}/  ` +
      `etcd 127.0.0.1:${cluster.ports.etcdClient}  ttl ${TIMING.ttl} loop_wait ${TIMING.loop_wait} retry_timeout ${TIMING.retry_timeout}\n`,
  );
}

async function main(argv: string[]): Promise<number> {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const args = argv.filter((a) => !a.startsWith('--'));
  const command = args[0];
  if (!command || flags.has('--help') || command === 'help') {
    process.stderr.write(USAGE + '\n');
    return command ? 0 : 2;
  }
  const cluster = new Cluster();
  const t0 = Date.now();
  const done = (what: string): void => {
    process.stderr.write(`ha: ${what} took ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  };
  switch (command) {
    case 'up': {
      const result = await cluster.up({ keepOnFailure: flags.has('--keep') });
      process.stdout.write(`DATABASE_URL=${result.databaseUrl}\nDATABASE_REPLICA_URL=${result.replicaUrl}\n`);
      done('up');
      return 0;
    }
    case 'status': {
      if (!cluster.isUp()) {
        process.stderr.write(`ha: no cluster up in ${cluster.dir}\n`);
        return 1;
      }
      const status = await cluster.status();
      if (flags.has('--json')) process.stdout.write(JSON.stringify(status, null, 2) + '\n');
      else printStatus(cluster, status);
      return status.leader ? 0 : 1;
    }
    case 'down':
      await cluster.down();
      return 0;
    case 'kill-primary':
      await cluster.killPrimary({ wait: flags.has('--wait'), now: flags.has('--now') });
      done('kill-primary');
      return 0;
    case 'switchover':
      await cluster.switchover();
      done('switchover');
      return 0;
    case 'freeze-primary': {
      const seconds = Number(args[1]);
      if (!(seconds > 0)) {
        process.stderr.write('usage: npm run ha -- freeze-primary SECONDS [--wait]\n');
        return 2;
      }
      await cluster.freezePrimary(seconds, { wait: flags.has('--wait'), now: flags.has('--now') });
      done('freeze-primary');
      return 0;
    }
    case 'restart-node': {
      if (!args[1]) {
        process.stderr.write(`usage: npm run ha -- restart-node NAME (${cluster.nodes.join(', ')})\n`);
        return 2;
      }
      await cluster.restartNode(args[1]);
      done('restart-node');
      return 0;
    }
    default:
      process.stderr.write(`unknown command: ${command}\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    process.stderr.write(`ha: error: ${err.message}\n`);
    process.exitCode = 1;
  },
);
