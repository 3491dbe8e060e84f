import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort } from '../../platform/db/embedded-postgres.js';
import { formatRow, median, type Figures, type HttpTarget } from './load.js';

/**
 * `BENCH_TRACING=1` (bench:events, bench:returns): the service measured with tracing off, on with
 * every trace sampled, and on with 1 % sampled, in the same run, each started as `npm start` starts
 * it (`--import` of the telemetry register) and exporting over OTLP/HTTP (protobuf, the SDK's
 * default) to a collector that reads and drops what it gets.
 */
export const BENCH_TRACING = process.env.BENCH_TRACING === '1';

export const TELEMETRY_REGISTER = ['--import', './dist/server/telemetry/telemetry-register.js'];

export interface TracingVariant {
  name: string;
  env: Record<string, string>;
}

export function tracingVariants(collectorUrl: string): TracingVariant[] {
  const on = (ratio: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: ratio });
  return [
    // Blank: a variable inherited from the shell must not turn the reference on.
    { name: 'tracing off', env: { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_TRACES_EXPORTER: '' } },
    { name: 'tracing on, 100 % sampled', env: on('1') },
    { name: 'tracing on, 1 % sampled', env: on('0.01') },
  ];
}

/** The collector: its own process (the load generator's event loop stays the load's), answering 200 to every export. */
export async function startCollector(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const script = `require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()); }).listen(${port}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '' });
      return { url: `http://127.0.0.1:${port}`, child };
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error('the OTLP collector did not start');
}

/** A figure of a variant against the reference's, as the summary prints it (+2.1 %, -0.4 %). */
export function change(value: number, reference: number): string {
  const pct = (value / reference - 1) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)} %`;
}

/**
 * CPU time (user and system, ms) a process has used, from /proc (Linux, 100 clock ticks a second);
 * undefined elsewhere. Unlike throughput on a shared machine, a process's own CPU time per request
 * hardly moves with its neighbours' load.
 */
export function cpuTimeMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

export type BenchCase = [name: string, run: (target: HttpTarget) => Promise<Figures>];

/** A started variant: where to send requests, and its process (for its CPU time). */
export interface VariantTarget {
  target: HttpTarget;
  pid: number | undefined;
}

/**
 * Each case on each variant (started by `start`), in rounds whose order of variants rotates, so
 * a neighbour's load or the machine warming up weighs on no variant more than on another; the
 * first round warms each variant up with an unmeasured run. Prints, per case and variant, the
 * median over the rounds and its change against tracing off.
 */
export async function compareTracing(cases: BenchCase[], start: (variant: TracingVariant, collectorUrl: string) => Promise<VariantTarget>, children: ChildProcess[], rounds: number): Promise<void> {
  const collector = await startCollector();
  children.push(collector.child);
  const variants = tracingVariants(collector.url);
  const started: VariantTarget[] = [];
  for (const variant of variants) started.push(await start(variant, collector.url));
  const only = process.env.BENCH_CASES?.split(',');
  console.log(`\ntracing overhead: ${variants.map((v) => v.name).join(' / ')}; ${rounds} rounds, variants in rotating order, medians; CPU: the service process's per request`);
  for (const [name, run] of cases) {
    if (only && !only.some((c) => name.includes(c))) continue;
    const figures: (Figures & { cpuUs: number })[][] = variants.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < variants.length; k++) {
        const v = (k + round) % variants.length;
        const { target, pid } = started[v]!;
        if (round === 0) await run(target);
        const before = cpuTimeMs(pid);
        const f = await run(target);
        figures[v]!.push({ ...f, cpuUs: before === undefined ? NaN : ((cpuTimeMs(pid)! - before) * 1000) / f.requests });
      }
    }
    const medians = figures.map((f) => ({
      rps: median(f.map((x) => x.rps)),
      p50: median(f.map((x) => x.p50)),
      p99: median(f.map((x) => x.p99)),
      cpuUs: median(f.map((x) => x.cpuUs)),
      errors: f.reduce((n, x) => n + x.errors, 0),
    }));
    console.log(name);
    medians.forEach((m, v) => {
      const vs = v ? `   throughput ${change(m.rps, medians[0]!.rps)}, p50 ${change(m.p50, medians[0]!.p50)}, p99 ${change(m.p99, medians[0]!.p99)}, CPU ${change(m.cpuUs, medians[0]!.cpuUs)}` : '';
      console.log(`  ${formatRow(variants[v]!.name, { ...m, requests: 0, seconds: 0 })}   CPU ${m.cpuUs.toFixed(0).padStart(5)} µs${vs}`);
    });
  }
}
