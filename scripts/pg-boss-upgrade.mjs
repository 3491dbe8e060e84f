// `npm run test:pg-boss-upgrade [-- <version>]`: installs another pg-boss version (by default the
// newest published one of the installed major) in a scratch directory and runs the queue tests on it
// (vitest.pg-boss-upgrade.config.ts): what a new version changes in pg-boss's tables or API shows
// there before the project upgrades. Needs the npm registry, like `npm ci`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const installed = JSON.parse(readFileSync(join(root, 'node_modules', 'pg-boss', 'package.json'), 'utf8')).version;

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function newestOfMajor() {
  const result = spawnSync(npm, ['view', 'pg-boss', 'versions', '--json'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm view pg-boss failed:\n${result.stderr}`);
  const major = installed.split('.')[0];
  const versions = JSON.parse(result.stdout).filter((v) => /^\d+\.\d+\.\d+$/.test(v) && v.split('.')[0] === major);
  return versions.at(-1);
}

const version = process.argv[2] ?? newestOfMajor();
if (version === installed && !process.argv[2]) {
  console.log(`pg-boss ${installed} is already the newest of its major: nothing to try`);
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'pg-boss-upgrade-'));
try {
  console.log(`pg-boss upgrade check: installed ${installed}, trying ${version}`);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'pg-boss-upgrade', private: true }));
  run(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--engine-strict=false', `pg-boss@${version}`], { cwd: dir });
  run(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.pg-boss-upgrade.config.ts'], {
    cwd: root,
    env: { ...process.env, PG_BOSS_UPGRADE_DIR: dir, PG_BOSS_UPGRADE_VERSION: version },
  });
  console.log(`pg-boss ${version}: the queue tests pass without a change to the project`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
