import { context, INVALID_SPAN_CONTEXT, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Link, type Span, type SpanOptions } from '@opentelemetry/api';
import { getRPCMetadata, RPCType, suppressTracing } from '@opentelemetry/core';

/**
 * Traces across the queue (docs/observability.md). Work queued for later (a
 * job, an outbox event, a webhook message) stores the trace context it was
 * queued in as a carrier: the propagator's fields, W3C `traceparent` (and
 * `tracestate`). Whatever takes it off the queue continues from there:
 *
 * - a batch (many items in one transaction) runs in one span of its own,
 *   linked to each item's trace (`inBatchSpan`);
 * - one item's work (a webhook delivery, a flow run's steps) is a span of
 *   the very trace it was queued in (`inQueuedSpan`), so the trace of a
 *   request shows what it caused, and it is sampled when that request was.
 *
 * Work the sampler leaves out runs with tracing suppressed and carries nothing.
 *
 * This module only uses the OpenTelemetry API (and the SDK core's
 * suppression flag): with tracing off (no SDK started, `server/telemetry/telemetry.ts`)
 * nothing is carried and each helper just runs the work.
 */
export type TraceCarrier = Record<string, string>;

const tracer = trace.getTracer('returns-platform');

let enabled = false;
let startsTraces = true;
let pendingStart: (() => () => Promise<void>) | undefined;
let shutdown: (() => Promise<void>) | undefined;
/** What batch work gets for a span while tracing is off. */
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Whether this process was started with tracing (server/telemetry/telemetry.ts). */
export function tracingEnabled(): boolean {
  return enabled;
}

/** server/telemetry/telemetry.ts: how to start recording (returning how to stop), once the process serves. */
export function deferTracingStart(start: () => () => Promise<void>): void {
  enabled = true;
  pendingStart = start;
}

/**
 * Starts recording spans, when this process was started with tracing; called once it serves.
 * `requestsStartTraces: false` (a split-mode subgraph, only ever called by the gateway): a request
 * is traced when its caller's trace is, and never starts one of its own.
 */
export function startTracing(options: { requestsStartTraces?: boolean } = {}): void {
  startsTraces = options.requestsStartTraces ?? true;
  shutdown ??= pendingStart?.();
}

/** Whether a request without a caller's trace may start one here (server/telemetry/telemetry.ts). */
export function requestsStartTraces(): boolean {
  return startsTraces;
}

/** Exports the spans still buffered and stops recording (the last step of a graceful stop). */
export async function shutdownTracing(): Promise<void> {
  const stop = shutdown;
  shutdown = pendingStart = undefined;
  await stop?.();
}

/**
 * The active trace context as a carrier to store beside queued work, or to
 * send as HTTP headers (`traceparent`); undefined when there is none (an
 * unsampled request or batch runs without one).
 */
export function currentTrace(): TraceCarrier | undefined {
  if (!enabled) return undefined;
  const active = context.active();
  if (!trace.getSpanContext(active)) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(active, carrier);
  return carrier;
}

function spanContextOf(carrier: TraceCarrier | undefined) {
  return carrier ? trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier)) : undefined;
}

/** Marks a span as failed (an error status) without an exception: an outcome such as a refused delivery. */
export function markFailed(span: Span, message?: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

async function run<T>(span: Span, work: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await work(span);
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    markFailed(span);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs `work` in a span, or, when the sampler leaves it out, with tracing
 * suppressed: the instrumentations below then make no spans either (unsampled
 * spans of every query would cost as much as recorded ones), and nothing
 * carries an unsampled trace on.
 */
function inSpan<T>(name: string, options: SpanOptions, parent: Context, work: (span: Span) => Promise<T>): Promise<T> {
  const span = tracer.startSpan(name, options, parent);
  if (!span.isRecording()) return context.with(suppressTracing(ROOT_CONTEXT), () => work(NO_SPAN));
  return context.with(trace.setSpan(parent, span), () => run(span, work));
}

/**
 * Runs a batch of queued items in one consumer span that starts a trace of
 * its own, linked to the sampled traces the items were queued in (a link to
 * a span that was never recorded would lead nowhere).
 */
export function inBatchSpan<T>(name: string, carriers: Iterable<TraceCarrier | undefined>, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  if (!enabled) return work(NO_SPAN);
  const links: Link[] = [];
  for (const carrier of carriers) {
    const linked = spanContextOf(carrier);
    if (linked && linked.traceFlags & TraceFlags.SAMPLED) links.push({ context: linked });
  }
  return inSpan(name, { kind: SpanKind.CONSUMER, root: true, links, attributes }, ROOT_CONTEXT, work);
}

/**
 * Runs one queued item's work as a span of the trace it was queued in. With
 * no carrier (tracing off, an unsampled request, or queued before tracing was) the work runs as it is.
 */
export function inQueuedSpan<T>(name: string, carrier: TraceCarrier | null | undefined, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = enabled && carrier ? propagation.extract(ROOT_CONTEXT, carrier) : undefined;
  if (!parent || !trace.getSpanContext(parent)) return work(NO_SPAN);
  return inSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent, work);
}

/** Queued data that carries the trace it was queued in (`withTrace`). */
export interface Traced {
  trace?: TraceCarrier;
}

/** `data` to queue, with the active trace beside it unless it carries one already. */
export function withTrace<T extends object>(data: T): T {
  if ((data as Traced).trace) return data;
  const carrier = currentTrace();
  return carrier ? { ...data, trace: carrier } : data;
}

/** A pg-boss worker's batch of jobs as one span, linked to the traces they were queued in (their data's `trace`). */
export function inJobBatchSpan<T>(queue: string, jobs: readonly { data: unknown }[], work: (span: Span) => Promise<T>): Promise<T> {
  if (!enabled) return work(NO_SPAN);
  const attributes = { 'messaging.system': 'pg-boss', 'messaging.operation.type': 'process', 'messaging.destination.name': queue, 'messaging.batch.message_count': jobs.length };
  return inBatchSpan(`${queue} process`, jobs.map((job) => (job.data as Traced | null)?.trace), attributes, work);
}

/**
 * For the request being served: a function that names its server span by the route template once
 * the route is known (the HTTP instrumentation names the span `METHOD route` and sets `http.route`
 * from it when the response ends). Undefined when the request is not traced. This replaces the
 * Express instrumentation, whose wrapper around every router layer ran for untraced requests too.
 */
export function requestSpanNamer(): ((route: string) => void) | undefined {
  if (!enabled) return undefined;
  const active = context.active();
  const rpc = getRPCMetadata(active);
  if (rpc?.type !== RPCType.HTTP || !trace.getSpan(active)?.isRecording()) return undefined;
  return (route) => {
    rpc.route = route;
  };
}

/** What a log line written inside a traced operation carries (pino's mixin): its trace and span ids. */
export function traceLogFields(): { trace_id: string; span_id: string; trace_flags: string } | undefined {
  if (!enabled) return undefined;
  const span = trace.getSpanContext(context.active());
  if (!span) return undefined;
  return { trace_id: span.traceId, span_id: span.spanId, trace_flags: span.traceFlags & TraceFlags.SAMPLED ? '01' : '00' };
}
