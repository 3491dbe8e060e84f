import { Agent, request } from 'node:http';

/** Latency and throughput figures of one measured run. */
export interface Figures {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Median of a list of numbers (the middle one, or the mean of the two middle ones). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function summarise(latencies: number[], errors: number, seconds: number): Figures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { requests: latencies.length, errors, seconds, rps: latencies.length / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

export interface HttpTarget {
  port: number;
  headers: Record<string, string>;
}

// node:http with keep-alive rather than fetch: a load generator should cost as little CPU as it can,
// since it shares the machine with the server it measures (fetch's per-request objects kept the
// client's thread in major garbage collections every few seconds).
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

export interface HttpResponse {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One request on loopback; resolves with the status and the body (read fully, as a client would). */
export function send(target: HttpTarget, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: target.port, path, method, headers: { ...target.headers, ...headers }, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function get(target: HttpTarget, path: string): Promise<HttpResponse> {
  return send(target, 'GET', path);
}

/** As many requests as `concurrency` clients can make back to back for `seconds`: maximum throughput. */
export async function closedLoop(next: () => Promise<{ status: number }>, concurrency: number, seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const { status } = await next().catch(() => ({ status: 0 }));
        if (status !== 200) errors++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return summarise(latencies, errors, (performance.now() - started) / 1000);
}

/** Requests started at a fixed rate whatever the answers do (no coordinated omission): latency at that load. */
export async function openLoop(next: () => Promise<{ status: number }>, ratePerSecond: number, seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.round(ratePerSecond * seconds);
  const interval = 1000 / ratePerSecond;
  const started = performance.now();
  if (process.env.BENCH_SPIKES) console.log(`  open loop starts (client clock ${started.toFixed(0)} ms)`);
  const inflight: Promise<void>[] = [];
  const spikes: [number, number][] = [];
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (process.env.BENCH_SPIKES && -wait > 10) console.log(`  client ${(-wait).toFixed(1)} ms late at ${((due - started) / 1000).toFixed(2)} s`);
    inflight.push(
      next().then(
        ({ status }) => {
          if (status !== 200) errors++;
          latencies.push(performance.now() - due);
          if (process.env.BENCH_SPIKES) spikes.push([due - started, performance.now() - due]);
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(inflight);
  if (spikes.length) {
    // BENCH_SPIKES=1: when the slowest requests were sent, to tell periodic pauses from load.
    const worst = spikes.sort((a, b) => b[1] - a[1]).slice(0, 15);
    console.log(worst.map(([at, ms]) => `  sent at ${(at / 1000).toFixed(2)} s: ${ms.toFixed(1)} ms`).join('\n'));
  }
  return summarise(latencies, errors, (performance.now() - started) / 1000);
}

export function formatRow(name: string, f: Figures): string {
  return `${name.padEnd(34)} ${f.rps.toFixed(0).padStart(7)} req/s   p50 ${f.p50.toFixed(2).padStart(7)} ms   p99 ${f.p99.toFixed(2).padStart(7)} ms   errors ${f.errors}`;
}
