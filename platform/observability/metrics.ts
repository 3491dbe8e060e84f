import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics (prom-client), served at `/metrics`.
 * Code anywhere registers what it counts through `metrics` (get-or-create by
 * name, so two modules naming the same metric share it):
 *
 *   const deliveries = metrics.counter('webhook_deliveries_total', 'Webhook delivery attempts by outcome.', ['outcome']);
 *   deliveries.inc({ outcome: 'succeeded' });
 *
 * Values that live in the database (queue depths, pool use) are read at
 * scrape time by collectors a runtime registers (`metrics.collector`), never
 * on a timer. docs/metrics.md lists every metric with example PromQL.
 */
class Metrics {
  readonly registry = new Registry();
  private readonly collectors = new Set<() => Promise<void>>();
  private defaultsCollected = false;

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return this.getOrCreate(name, () => new Counter<L>({ name, help, labelNames, registers: [this.registry] }));
  }

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
    return this.getOrCreate(name, () => new Histogram<L>({ name, help, labelNames, buckets, registers: [this.registry] }));
  }

  /** A gauge whose values are set by the collectors before each scrape. */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    return this.getOrCreate(name, () => new Gauge<L>({ name, help, labelNames, registers: [this.registry] }));
  }

  /** Runs before every scrape (reads what lives elsewhere); returns the function that removes it. */
  collector(collect: () => Promise<void>): () => void {
    this.collectors.add(collect);
    return () => this.collectors.delete(collect);
  }

  /** The exposition text; a failing collector leaves its metrics as they were and the scrape goes on. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    if (!this.defaultsCollected) {
      // Process metrics (CPU, memory, event-loop lag, GC), once per process.
      collectDefaultMetrics({ register: this.registry });
      this.defaultsCollected = true;
    }
    const failures = this.gauge('metrics_collector_failures', 'Collectors that failed during the last scrape.');
    const results = await Promise.allSettled([...this.collectors].map((collect) => collect()));
    failures.set(results.filter((r) => r.status === 'rejected').length);
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  private getOrCreate<M>(name: string, create: () => M): M {
    return (this.registry.getSingleMetric(name) as M | undefined) ?? create();
  }
}

export const metrics = new Metrics();

/** Seconds, from a millisecond to a minute: request and operation latencies. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequestDuration = metrics.histogram(
  'http_request_duration_seconds',
  'HTTP requests by route template, method and status, and how long they took (its _count is the request count).',
  ['method', 'route', 'status'],
  LATENCY_BUCKETS,
);

export const graphqlOperations = metrics.counter(
  'graphql_operations_total',
  'GraphQL operations by name: source "graphql" for /graphql clients, "rest" for the REST facade\'s own operations.',
  ['source', 'operation', 'type', 'outcome'],
);

export const customEventsAccepted = metrics.counter('custom_events_accepted_total', 'Custom events durably queued (202), by the number of events.');
export const customEventsRejected = metrics.counter('custom_events_rejected_total', 'Custom event requests refused by the per-store rate limit (429).');
export const customEventsProcessed = metrics.counter(
  'custom_events_processed_total',
  'Custom event jobs settled by a worker: completed, failed (retried later) or dead_lettered (moved to custom-events-dead).',
  ['outcome'],
);

/** For the webhook deliveries (decisions section 10): one increment per attempt, by its logged status. */
export const webhookDeliveries = metrics.counter('webhook_deliveries_total', 'Webhook delivery attempts by outcome (succeeded, failed, discarded).', ['outcome']);

/** Flows (docs/flows.md): runs started, and each recorded step by type and status. */
export const flowRunsStarted = metrics.counter('flow_runs_started_total', 'Flow runs started (one per flow and processed event).');
export const flowSteps = metrics.counter('flow_steps_total', 'Flow run steps recorded, by type (wait, condition, send_email, send_sms, webhook) and status (DONE, SKIPPED, FAILED, WAITING).', ['type', 'status']);

/**
 * Distinct client-chosen label values (GraphQL operation names) a process
 * keeps before folding the rest into one: a client sending random names must
 * not grow the scrape without bound.
 */
const MAX_OPERATION_NAMES = 500;
const operationNames = new Set<string>();

export function operationLabel(name: string | null | undefined): string {
  if (!name) return '(anonymous)';
  if (operationNames.has(name)) return name;
  if (operationNames.size >= MAX_OPERATION_NAMES) return '(other)';
  operationNames.add(name);
  return name;
}
