import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The programs the cluster needs, the Debian package each comes from, and the service that package may start. */
export const BINARIES = {
  postgres: { path: '/usr/lib/postgresql/15/bin/postgres', pkg: 'postgresql-15', service: 'postgresql' },
  patroni: { path: '/usr/bin/patroni', pkg: 'patroni', service: 'patroni' },
  etcd: { path: '/usr/bin/etcd', pkg: 'etcd-server', service: 'etcd' },
  haproxy: { path: '/usr/sbin/haproxy', pkg: 'haproxy', service: 'haproxy' },
} as const;

export type Program = keyof typeof BINARIES;

function run(command: string, args: string[], env: Record<string, string> = {}): number {
  const result = spawnSync(command, args, { stdio: ['ignore', 2, 2], env: { ...process.env, ...env } });
  return result.status ?? 1;
}

function apt(args: string[]): number {
  const root = process.getuid?.() === 0;
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  // sudo keeps VAR=value arguments given before the command.
  return root ? run('apt-get', args, env) : run('sudo', ['DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args]);
}

function asRoot(command: string, args: string[]): number {
  return process.getuid?.() === 0 ? run(command, args) : run('sudo', [command, ...args]);
}

/**
 * A freshly installed package may have started its own service (Debian's etcd
 * on 2379, HAProxy with its default configuration, a `main` PostgreSQL cluster on
 * 5432). The cluster runs its own copies, so those are stopped and disabled.
 */
function stopPackagedServices(services: string[], log: (line: string) => void): void {
  const systemd = existsSync('/run/systemd/system');
  for (const service of services) {
    if (systemd) {
      asRoot('systemctl', ['disable', '--now', '--quiet', service]);
    } else if (existsSync(`/etc/init.d/${service}`)) {
      asRoot('/etc/init.d/' + service, ['stop']);
      if (existsSync('/usr/sbin/update-rc.d')) asRoot('update-rc.d', [service, 'disable']);
    }
    log(`ha: ${service}: the package's own service is stopped and disabled (the cluster runs its own)`);
  }
}

/** Installs whichever of `programs` (all four by default) is missing: apt-get, with sudo when not root. */
export function ensureInstalled(
  log: (line: string) => void = (line) => process.stderr.write(line + '\n'),
  programs: Program[] = Object.keys(BINARIES) as Program[],
): void {
  const missing = programs.map((p) => BINARIES[p]).filter((b) => !existsSync(b.path));
  if (missing.length === 0) return;
  const pkgs = missing.map((b) => b.pkg);
  log(`ha: installing ${pkgs.join(', ')} (apt-get)`);
  const install = ['install', '-y', '-q', '--no-install-recommends', ...pkgs];
  if (apt(install) !== 0) {
    log('ha: apt-get install failed; apt-get update, then again');
    if (apt(['update', '-q']) !== 0 || apt(install) !== 0) {
      throw new Error(`could not install ${pkgs.join(', ')} with apt-get: install them (sudo apt-get install ${pkgs.join(' ')}) and run again`);
    }
  }
  stopPackagedServices(
    missing.map((b) => b.service),
    log,
  );
  const still = missing.filter((b) => !existsSync(b.path));
  if (still.length > 0) throw new Error(`still missing after apt-get: ${still.map((b) => b.path).join(', ')}`);
}
