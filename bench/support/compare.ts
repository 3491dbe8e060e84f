import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../platform/db/embedded-postgres.js';
import { createLogger } from '../../platform/observability/logger.js';
import { formatRow, type Figures, type HttpTarget } from './load.js';
import { stopProcess } from './processes.js';

/** What a service-against-baseline benchmark holds open: a durable embedded PostgreSQL, a client on it, the measured processes. */
export interface BenchBed {
  db: EmbeddedPostgres;
  client: pg.Client;
  children: ChildProcess[];
}

/** Runs `body` on a fresh durable embedded PostgreSQL, then stops every process it started and removes the files. */
export async function withBenchBed(name: string, body: (bed: BenchBed) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const db = await startEmbeddedPostgres({ dataDir, logger: createLogger('warn'), durable: true });
  const bed: BenchBed = { db, client: new pg.Client({ connectionString: db.url }), children: [] };
  try {
    await body(bed);
  } finally {
    for (const child of bed.children.reverse()) await stopProcess(child);
    await bed.client.end().catch(() => {});
    await db.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A new account through the admin GraphQL mutation. */
export async function createBenchAccount(base: string, adminToken: string): Promise<{ storeId: string; apiSecret: string; compatKey: string }> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ query: 'mutation { createAccount(input: {name: "Bench"}) { storeId apiSecret compatKey } }' }),
  });
  return ((await res.json()) as { data: { createAccount: { storeId: string; apiSecret: string; compatKey: string } } }).data.createAccount;
}

export type Comparison = [name: string, service: Figures, baseline: Figures];

/**
 * Measures one case on the service, then on the baseline, each warmed up
 * right before it is measured (no idle gap between the two). `BENCH_CASES`
 * (comma-separated substrings) picks cases.
 */
export function comparer(service: HttpTarget, baseline: HttpTarget, results: Comparison[]) {
  const only = process.env.BENCH_CASES?.split(',');
  return async (name: string, run: (t: HttpTarget) => Promise<Figures>) => {
    if (only && !only.some((c) => name.includes(c))) return;
    const measure = async (t: HttpTarget) => {
      await run(t);
      return run(t);
    };
    results.push([name, await measure(service), await measure(baseline)]);
  };
}

export function printComparisons(results: readonly Comparison[]): void {
  for (const [name, s, b] of results) {
    console.log(name);
    console.log(`  ${formatRow('service', s)}`);
    console.log(`  ${formatRow('baseline (Express + pg)', b)}`);
    console.log(`  service/baseline throughput ${(s.rps / b.rps).toFixed(2)}x`);
  }
}

/** How much more a later page costs than the first, from their figures. */
export function printPageCost(label: string, results: readonly Comparison[], firstName: string, laterName: string): void {
  const first = results.find(([name]) => name.startsWith(firstName))?.[1];
  const later = results.find(([name]) => name.startsWith(laterName))?.[1];
  if (first && later) console.log(`\n${label} vs page 1 (service): p50 ${(later.p50 / first.p50).toFixed(2)}x, throughput ${(first.rps / later.rps).toFixed(2)}x cost`);
}
