import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

/**
 * The script's commands from its xtrace (`+<epoch seconds> <command>`, one `+` more per level of
 * nesting), each with the time until the next one started: a command substitution's inner commands
 * are traced before the assignment they feed. Empty without bash 5's EPOCHREALTIME.
 */
function stepTimes(trace: string): { ms: number; step: string }[] {
  const lines = trace.split('\n').flatMap((line) => {
    const m = /^(\++)(\d+\.\d+) (.*)$/.exec(line);
    return m ? [{ at: Number(m[2]), step: `${m[1]} ${m[3]!.slice(0, 160)}` }] : [];
  });
  return lines.map((l, i) => ({ ms: Math.round(((lines[i + 1]?.at ?? l.at) - l.at) * 1000), step: l.step }));
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

    const trace = join(dataDir, 'steps.trace');
    const prelude = [
      'set -eo pipefail',
      // Errors shown on purpose use -i (status line printed); every other call must succeed, within 30 s.
      // Each answer on its own line, so the checks below can find them.
      'curl() { if [[ " $* " == *" -i "* ]]; then command curl --max-time 30 "$@" && echo; else command curl --max-time 30 --fail-with-body "$@" && echo; fi; }',
      // When each step started (bash 5), apart from the output: a failure shows where the script was and what took long.
      `exec 9>'${trace}'; BASH_XTRACEFD=9; PS4='+\${EPOCHREALTIME:-} '; set -x`,
    ].join('\n');
    // Measured on a two-core machine shared with other test runs (load 8-10): 14-16 s, of which the six admin
    // commands take about 8 s (npm's start, the stale-build check, about a second of CLI each), the requests
    // about 2 s and waiting for the restock job about 1 s. Every request is bounded (curl --max-time 30) and
    // so is the whole script, at about fifteen times that, inside the test's own bound.
    const out = await run('bash', ['-c', `${prelude}\n${script}`], { DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: undefined, LOG_LEVEL: 'warn' }, projectRoot(), 240_000);
    const steps = stepTimes(existsSync(trace) ? readFileSync(trace, 'utf8') : '');
    const slowest = [...steps].sort((a, b) => b.ms - a.ms).slice(0, 5);
    const where = `last step started: ${steps.at(-1)?.step ?? '(none)'}\nslowest steps: ${slowest.map((s) => `${s.ms} ms ${s.step}`).join('\n  ')}`;
    expect(out.code, `${where}\n--- stderr ---\n${out.stderr.slice(-3000)}\n--- stdout ---\n${out.stdout.slice(-3000)}\n--- service log ---\n${service.output().slice(-4000)}`).toBe(0);
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
