import { createServer, request, Agent } from 'node:http';
import { PgBoss } from 'pg-boss';

/*
 * The webhooks benchmark's baseline, in its own process like the service's workers: a bare pg-boss
 * worker that POSTs each job's body to its URL. No ordering, no signing, no log, no retries.
 * Env: DATABASE_URL, QUEUE, PORT (answers /readyz once working).
 */
const queue = process.env.QUEUE ?? 'bench-baseline';
const boss = new PgBoss({ connectionString: process.env.DATABASE_URL!, schema: 'pgboss', max: 10, useListenNotify: true, supervise: true });
await boss.start();
if (!(await boss.getQueue(queue))) await boss.createQueue(queue);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const post = (target: string, body: string) =>
  new Promise<void>((resolve) => {
    const req = request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', () => resolve());
    req.end(body);
  });
await boss.work<{ url: string; body: string }>(queue, { batchSize: 500, localConcurrency: 4, pollingIntervalSeconds: 0.5 }, async (jobs) => {
  await Promise.all(jobs.map((j) => post(j.data.url, j.data.body)));
});
createServer((_req, res) => res.writeHead(200).end('ok')).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => void boss.stop({ graceful: true, close: true }).then(() => process.exit(0)));
