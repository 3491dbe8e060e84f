import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../platform/project-root.js';
import { eventually } from './support/eventually.js';
import { alive, freePort, postgresPid, run, spawnNode, waitReady, type Spawned } from './support/processes.js';

/**
 * The README's examples, as a reader runs them: every `sh` block of "Using it"
 * (up to "Configuration"), in order, in one bash, against a fresh service with
 * its demo account. The reader's one edit is the first `export` line, where
 * the printed credentials replace the `..._...` placeholders; no other
 * placeholder may be left. A curl answer of 400 or more fails the run, except
 * in the examples that show an error (`curl -i`, which prints the status
 * line); so does a GraphQL answer with errors. The test's curl ends each
 * answer with a newline, nothing more.
 */
const SECTION = /^## Using it$([\s\S]*?)^## Configuration$/m;
const SH_BLOCK = /^```sh\n([\s\S]*?)^```$/gm;

export function readmeScript(readme: string): string {
  const section = SECTION.exec(readme)?.[1];
  if (!section) throw new Error('README has no "Using it" section before "Configuration"');
  return [...section.matchAll(SH_BLOCK)].map((m) => m[1]).join('\n');
}

describe('README examples', () => {
  let dataDir: string;
  let port: number;
  let service: Spawned;
  let credentials: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'readme-test-'));
    port = await freePort();
    service = spawnNode(['dist/server/main.js', 'all'], { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: undefined, ADMIN_TOKEN: undefined, DEMO_ACCOUNT: undefined, HOST: undefined });
    await waitReady(`http://127.0.0.1:${port}`, service);
    await eventually(async () => service.output().includes('Try it:'), 'the demo account', { timeoutMs: 10_000 });
    const field = (label: string) => service.output().match(new RegExp(`${label}\\s+(\\S+)`))?.[1] ?? '';
    credentials = { acc: field('account id'), sto: field('store id'), sk: field('API secret'), ck: field('compat key'), adm: field('admin token') };
  });

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    const pid = postgresPid(dataDir);
    if (pid && alive(pid)) process.kill(pid, 'SIGINT');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('run as written, in order, on the demo store', { timeout: 300_000 }, async () => {
    let script = readmeScript(readFileSync(join(projectRoot(), 'README.md'), 'utf8'));
    const exportLine = script.split('\n').find((line) => line.startsWith('export BASE='))!;
    expect(exportLine).toBeDefined();
    let filled = exportLine.replace('http://localhost:4000', `http://localhost:${port}`);
    for (const [prefix, value] of Object.entries(credentials)) {
      expect(value.startsWith(`${prefix}_`), `${prefix} in the start output`).toBe(true);
      filled = filled.replace(`${prefix}_...`, value);
    }
    script = script.replace(exportLine, filled);
    expect(script.match(/\b[a-z]{2,4}_\.\.\./g) ?? [], 'placeholders left for the reader to fill').toEqual([]);

    const prelude = [
      'set -eo pipefail',
      // Errors shown on purpose use -i (status line printed); every other call must succeed.
      // Each answer on its own line, so the checks below can find them.
      'curl() { if [[ " $* " == *" -i "* ]]; then command curl "$@" && echo; else command curl --fail-with-body "$@" && echo; fi; }',
    ].join('\n');
    // About 20 s on a quiet two-core machine (each admin command starts in about a second from the built
    // checkout); the bound leaves room for a loaded one, inside the test's own.
    const out = await run('bash', ['-c', `${prelude}\n${script}`], { DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: undefined, LOG_LEVEL: 'warn' }, projectRoot(), 240_000);
    expect(out.code, `${out.stderr}\n--- stdout ---\n${out.stdout.slice(-3000)}\n--- service log ---\n${service.output().slice(-4000)}`).toBe(0);
    // GraphQL reports errors in a 200 body (Loop's refusals are {"errors":{...}}, an object: expected there).
    expect(out.stdout).not.toContain('"errors":[');
    expect(out.stdout).toContain('HTTP/1.1 401');
    expect(out.stdout).toContain('HTTP/1.1 202');
    // The replay of the first return, then the completion.
    expect(out.stdout).toMatch(/^200$/m);
    expect(out.stdout).toMatch(/^204$/m);
    // The product existed before the return was completed, so the restocked unit is kind RETURN.
    expect(out.stdout).toContain('"kind":"RETURN"');
    // The embedded database's URL.
    expect(out.stdout).toMatch(/^postgres:\/\/postgres:\S+@127\.0\.0\.1:\d+\/postgres$/m);
  });
});
