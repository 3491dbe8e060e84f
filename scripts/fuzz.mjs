#!/usr/bin/env node
// Long fuzz runs: `npm run fuzz -- --runs 20000 [--seed N]`. Runs the fuzz suites (test/fuzz/)
// with that many generated requests per route and per GraphQL field; each suite prints its
// responses counted by target and status.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1000' }, seed: { type: 'string' } }, strict: true });
if (!/^\d+$/.test(values.runs)) {
  console.error('--runs takes a whole number');
  process.exit(2);
}
const env = { ...process.env, FUZZ_RUNS: values.runs, ...(values.seed ? { FUZZ_SEED: values.seed } : {}) };
const result = spawnSync('npx', ['vitest', 'run', 'test/fuzz/'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
