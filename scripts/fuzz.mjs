#!/usr/bin/env node
// Long fuzz runs: `npm run fuzz -- --runs 600 [--seed N] [rest|graphql]`. Runs the fuzz suites
// (test/fuzz/, or the named ones) with that many generated requests per route and per GraphQL
// field (25 times as many whole GraphQL requests); each suite prints its responses counted by
// target and status.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ options: { runs: { type: 'string', default: '1000' }, seed: { type: 'string' } }, strict: true, allowPositionals: true });
if (!/^\d+$/.test(values.runs)) {
  console.error('--runs takes a whole number');
  process.exit(2);
}
const unknown = positionals.filter((p) => p !== 'rest' && p !== 'graphql');
if (unknown.length) {
  console.error(`unknown suite ${unknown.join(', ')}: name rest, graphql or neither`);
  process.exit(2);
}
const files = positionals.length ? positionals.map((p) => `test/fuzz/${p}.test.ts`) : ['test/fuzz/'];
const env = { ...process.env, FUZZ_RUNS: values.runs, ...(values.seed ? { FUZZ_SEED: values.seed } : {}) };
const result = spawnSync('npx', ['vitest', 'run', ...files], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
