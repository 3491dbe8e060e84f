import { register as registerModuleHooks } from 'node:module';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { register as registerSyncHooks, supportsSyncHooks } from 'import-in-the-middle/register-hooks.mjs';
import { deferTracingStart } from '../platform/tracing.js';

/** Probes and scrapes: a trace each would bury the requests worth looking at. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The packages the instrumentations patch: only these go through the ESM hooks. */
const INSTRUMENTED_MODULES = ['http', 'https', 'node:http', 'node:https', 'express', 'router', 'graphql', 'pg', 'pg-pool'];

export function instrumentations() {
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!),
      // A request sent outside any traced operation (none is, today) would start a trace of one span.
      requireParentforOutgoingSpans: true,
    }),
    // Route and handler spans; one span per middleware (body parsing, request id, ...) says little and costs.
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    // Field resolvers that only read a property are left out.
    new GraphQLInstrumentation({ ignoreTrivialResolveSpans: true, mergeItems: true }),
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
  registerInstrumentations({ instrumentations: instrumentations() });
  const sdk = new NodeSDK({ metricReaders: [], logRecordProcessors: [], ...options, instrumentations: [] });
  deferTracingStart(() => {
    sdk.start();
    return () => sdk.shutdown();
  });
}
