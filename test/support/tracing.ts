import { createRequire } from 'node:module';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { instrumentProcess } from '../../server/telemetry/telemetry.js';

/**
 * Tracing for a test file, as `npm start` sets it up (server/telemetry/telemetry.ts),
 * exporting to memory. Import it before anything else: the instrumentations
 * patch express, pg, graphql and http as they load. Spans are recorded once
 * a service started (startService calls startTracing).
 */
const exporter = new InMemorySpanExporter();
instrumentProcess({ spanProcessors: [new SimpleSpanProcessor(exporter)], serviceName: 'returns-platform-test' });
// Vitest imports packages by their resolved path, in which the ESM hook does not recognise `express`;
// required by name, it is patched by the require hook, in the very module object the app imports next.
createRequire(import.meta.url)('express');

export const spans = (): ReadableSpan[] => exporter.getFinishedSpans();

export function spansOf(traceId: string): ReadableSpan[] {
  return spans().filter((s) => s.spanContext().traceId === traceId);
}

/** The span that `span` hangs from in its trace (undefined for a root, or a parent in another process). */
export function parentOf(span: ReadableSpan, among: readonly ReadableSpan[] = spans()): ReadableSpan | undefined {
  const parent = span.parentSpanContext?.spanId;
  return parent ? among.find((s) => s.spanContext().spanId === parent) : undefined;
}

/** The names from `span` up to its trace's root, nearest first. */
export function ancestry(span: ReadableSpan, among: readonly ReadableSpan[] = spans()): string[] {
  const names: string[] = [];
  for (let p = parentOf(span, among); p; p = parentOf(p, among)) names.push(p.name);
  return names;
}

/** The server span of an incoming HTTP request to `route` (its template). */
export function serverSpan(method: string, route: string): ReadableSpan | undefined {
  return spans().find((s) => s.kind === SpanKind.SERVER && s.name === `${method} ${route}`);
}

/** `traceparent`'s trace id and parent (span) id. */
export function parseTraceparent(header: string | string[] | undefined): { traceId: string; spanId: string } | undefined {
  const match = typeof header === 'string' ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(header) : null;
  return match ? { traceId: match[1]!, spanId: match[2]! } : undefined;
}
