// Builds `dist/` (tsc -p tsconfig.build.json) only when a source changed since the last build, so
// the npm scripts that run the built service (start, admin, bench, ...) start at once from a built
// checkout. `npm run build` (`--always`) builds whatever the stamp says. Plain Node, no dependencies: it runs before anything is built.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
const config = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));

/** What tsc reads from an included folder: TypeScript sources (no JSON is imported, allowJs is off). */
const SOURCE = /\.[mc]?tsx?$/;

/**
 * The newest modification time under a path: the sources the build reads, and its configuration. In
 * a folder only the TypeScript files count (`npm run compose` rewriting `schema/*.graphql` is no
 * reason to build), and the folder itself (a file removed or renamed changes it).
 */
function newest(path, inFolder = false) {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return !inFolder || SOURCE.test(path) ? info.mtimeMs : 0;
  let latest = info.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    latest = Math.max(latest, newest(join(path, entry.name), true));
  }
  return latest;
}

const inputs = [...config.include, 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'].map((p) => join(root, p));
const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
if (!process.argv.includes('--always') && built && inputs.every((path) => newest(path) <= built)) process.exit(0);

// The stamp's time is the build's start: a source saved while tsc runs is built again next time.
const started = new Date();
const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
writeFileSync(stamp, `${started.toISOString()}\n`);
utimesSync(stamp, started, started);
