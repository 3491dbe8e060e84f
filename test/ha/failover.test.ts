import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../platform/project-root.js';
import { httpBalancer, type HttpBalancer } from '../../scripts/ha/balancer.ts';
import { Cluster } from '../../scripts/ha/cluster.ts';
import { CrashLoad, crashUnderLoad, serviceEnv, stopsCleanly, type Gap } from '../support/crash-load.js';
import { freePort, spawnNode, waitReady, type Spawned } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

/**
 * The service on a real PostgreSQL cluster (three nodes under Patroni in synchronous mode, etcd,
 * HAProxy routing to the primary: `npm run ha`), as decisions section 19 has it: two API processes
 * behind an HTTP load balancer and two worker processes, under load on every part (return creations
 * with Idempotency-Keys, comments, inventory changes, custom events with uniqueIds, a flow with a
 * wait step, webhook deliveries to a local receiver), while the primary fails three ways: killed
 * (Patroni and postmaster together, three times), switched over on purpose, and frozen for longer
 * than Patroni's ttl then resumed. After each: nothing acknowledged lost or doubled, every retried
 * key answered once, webhooks in order per return, readiness 503 during the gap and 200 after, the
 * same processes serving without a restart. Each gap is measured and written to
 * `ha-gaps.json` (kept out of git) for docs/performance.md.
 */
describe('the service across PostgreSQL primary failovers', () => {
  const cluster = new Cluster({ log: (line) => process.stderr.write(`${line}\n`) });
  let receiver: Receiver;
  let balancer: HttpBalancer;
  const apis: { url: string; process: Spawned }[] = [];
  const workers: Spawned[] = [];
  let databaseUrl: string;
  const gaps: Record<string, Gap[]> = {};

  const output = () => [...apis.map((a) => a.process), ...workers].map((s, i) => `--- process ${i}\n${s.output().slice(-1500)}`).join('\n');

  beforeAll(async () => {
    const up = await cluster.up();
    databaseUrl = up.databaseUrl;
    receiver = await startReceiver();
    const env = serviceEnv({
      DATABASE_URL: databaseUrl,
      DATABASE_REPLICA_URL: up.replicaUrl,
      // A failover takes about the ttl (20 s): a process gives up only well past it.
      DATABASE_LOST_EXIT_MS: '120000',
      REQUEST_TIMEOUT_MS: '10000',
      DB_ACQUIRE_TIMEOUT_MS: '5000',
    });
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const api = spawnNode(['dist/server/main.js', 'all'], { ...env, PORT: String(port) });
      apis.push({ url: `http://127.0.0.1:${port}`, process: api });
      await waitReady(`http://127.0.0.1:${port}`, api);
    }
    for (let i = 0; i < 2; i++) workers.push(spawnNode(['dist/server/main.js', 'worker'], env));
    balancer = await httpBalancer(apis.map((a) => Number(new URL(a.url).port)));
  }, 300_000);

  afterAll(async () => {
    for (const s of [...apis.map((a) => a.process), ...workers]) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all([...apis.map((a) => a.process), ...workers].map((s) => s.exited));
    await balancer?.stop();
    await receiver?.close();
    await cluster.down();
    writeFileSync(join(projectRoot(), 'ha-gaps.json'), `${JSON.stringify(gaps, null, 2)}\n`);
    process.stderr.write(`write gaps (ms): ${JSON.stringify(gaps)}\n`);
  }, 120_000);

  const load = (): Promise<CrashLoad> => CrashLoad.prepare(balancer.url, databaseUrl, receiver, { waitSeconds: 2, comments: true });
  const readyUrls = () => apis.map((a) => a.url);

  it('the primary killed (Patroni and postmaster, SIGKILL) three times under load', { timeout: 900_000 }, async () => {
    let killed: string | undefined;
    gaps.kill = await crashUnderLoad(await load(), receiver, readyUrls(), async () => {
      // The node killed before comes back first, as a replica, so each kill meets a whole cluster.
      if (killed) await cluster.restartNode(killed);
      const result = await cluster.killPrimary();
      killed = result.node;
      return result.at;
    }, output);
    if (killed) await cluster.restartNode(killed);
  });

  it('a planned switchover under load', { timeout: 600_000 }, async () => {
    await cluster.waitForHealthy({ timeoutMs: 120_000 });
    gaps.switchover = await crashUnderLoad(
      await load(),
      receiver,
      readyUrls(),
      async () => {
        const requested = Date.now();
        await cluster.switchover();
        return requested;
      },
      output,
      { kills: 1 },
    );
  });

  it('the primary frozen (SIGSTOP) longer than the ttl, then resumed: it takes no write after it resumes', { timeout: 600_000 }, async () => {
    await cluster.waitForHealthy({ timeoutMs: 120_000 });
    let frozen: string | undefined;
    gaps.freeze = await crashUnderLoad(await load(), receiver, readyUrls(), async () => {
      const result = await cluster.freezePrimary(30);
      frozen = result.node;
      // Resumed, it must have stepped down: in recovery or refusing connections, never a second primary.
      expect(await cluster.waitForDemoted(result.node, 90_000)).toMatch(/replica|refuses/);
      return result.resumedAt - result.frozenMs;
    }, output, { kills: 1 });
    expect(frozen).toBeDefined();
    expect(await cluster.isPrimary(frozen as never)).toBe(false);
  });

  it('the same processes still serve, and stop as on any other day', { timeout: 120_000 }, async () => {
    for (const api of apis) expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
    for (const s of [...apis.map((a) => a.process), ...workers]) await stopsCleanly(s);
  });
});
