import type { IncomingMessage } from 'node:http';
import { register as registerModuleHooks } from 'node:module';
import { propagation, ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace-base';
import { register as registerSyncHooks, supportsSyncHooks } from 'import-in-the-middle/register-hooks.mjs';
import { deferTracingStart, requestsStartTraces } from '../../platform/observability/tracing.js';

/** Probes and scrapes: a trace each would bury the requests worth looking at. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The packages the instrumentations patch: only these go through the ESM hooks. */
const INSTRUMENTED_MODULES = ['http', 'https', 'node:http', 'node:https', 'graphql', 'pg', 'pg-pool'];

/**
 * Head sampling at the edge, for the parent-based samplers (`OTEL_TRACES_SAMPLER` `parentbased_*`,
 * the default): the share of requests without a sampled caller that are traced. Undefined for the
 * other samplers, which the SDK applies as they are.
 */
export function edgeSampling(env: NodeJS.ProcessEnv = process.env): { ratio: number } | undefined {
  const sampler = env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on';
  if (sampler === 'parentbased_always_on') return { ratio: 1 };
  if (sampler === 'parentbased_always_off') return { ratio: 0 };
  if (sampler !== 'parentbased_traceidratio') return undefined;
  // As the SDK reads it: a ratio outside 0..1 (or none) is 1.
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG?.trim() || 1);
  return { ratio: ratio >= 0 && ratio <= 1 ? ratio : 1 };
}

/**
 * Whether a request is traced, decided before the HTTP instrumentation makes a span of it: as its
 * caller decided (a `traceparent`), else at `ratio` where requests start traces. A request left out
 * runs with tracing suppressed, so no instrumentation below does any work for it: unsampled, a
 * request would pay for a span per layer, resolver and query all the same (docs/observability.md#overhead).
 */
function tracedAtEdge(req: IncomingMessage, ratio: number): boolean {
  const caller = req.headers.traceparent ? trace.getSpanContext(propagation.extract(ROOT_CONTEXT, req.headers)) : undefined;
  if (caller) return (caller.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
  return requestsStartTraces() && Math.random() < ratio;
}

/**
 * The SDK's sampler with edge sampling: a request's server span was sampled at the edge already;
 * other roots (a worker's batch) at the ratio; every other span as its parent.
 */
function edgeSampler(ratio: number): Sampler {
  const batches = new TraceIdRatioBasedSampler(ratio);
  const root: Sampler = {
    shouldSample: (context, traceId, _name, kind) =>
      kind === SpanKind.SERVER ? { decision: SamplingDecision.RECORD_AND_SAMPLED } : batches.shouldSample(context, traceId),
    toString: () => `EdgeSampler{${ratio}}`,
  };
  return new ParentBasedSampler({ root });
}

function instrumentations(sampling: { ratio: number } | undefined) {
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!) || (sampling !== undefined && !tracedAtEdge(req, sampling.ratio)),
      // A request sent outside any traced operation (none is, today) would start a trace of one span.
      requireParentforOutgoingSpans: true,
    }),
    // No Express instrumentation: its wrapper around every router layer costs every request, traced
    // or not, for router and handler spans that add little to the server span; the server span is
    // named by its route template instead (platform/observability/tracing.ts#requestSpanNamer).
    // Operations (parse, validate, execute) only, no resolver spans: once it has wrapped a schema's
    // resolvers, the instrumentation makes a span per field resolved in every execution, sampled or
    // not (it does not look at the sampling decision), which cost an unsampled list page of 100
    // returns about as much CPU as a recorded one. The SQL spans still hang from the operation.
    new GraphQLInstrumentation({ ignoreResolveSpans: true }),
    // SQL outside a traced operation (the queue's polling, the webhook loops' idle claims) makes no trace of its own.
    new PgInstrumentation({ requireParentSpan: true }),
  ];
}

/**
 * The ESM loader hooks the instrumentations need to patch modules imported
 * with `import`: in-thread (`module.registerHooks`) where Node supports it,
 * else on the loader thread. Must run before the instrumented modules load.
 */
function registerHooks(): void {
  if (supportsSyncHooks()) registerSyncHooks({ include: INSTRUMENTED_MODULES });
  else registerModuleHooks('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: INSTRUMENTED_MODULES } });
}

/**
 * Prepares OpenTelemetry tracing: the loader hooks and the instrumentations,
 * which patch modules as they load, and the Node SDK (traces only: the
 * service's metrics are Prometheus, its logs pino), configured by the
 * standard `OTEL_*` variables (exporter, endpoint, sampler, resource).
 * `options` replace what tests need to (an in-memory exporter). Called by
 * `telemetry-register.ts` before anything else loads.
 *
 * Spans are recorded from `startTracing()` on, which `startService` calls
 * once the process serves: start-up (migrations, schema building: hundreds
 * of GraphQL parses) makes no traces.
 */
export function instrumentProcess(options: Partial<NodeSDKConfiguration> = {}): void {
  registerHooks();
  const sampling = edgeSampling();
  registerInstrumentations({ instrumentations: instrumentations(sampling) });
  const sdk = new NodeSDK({ metricReaders: [], logRecordProcessors: [], ...(sampling && { sampler: edgeSampler(sampling.ratio) }), ...options, instrumentations: [] });
  deferTracingStart(() => {
    sdk.start();
    return () => sdk.shutdown();
  });
}
