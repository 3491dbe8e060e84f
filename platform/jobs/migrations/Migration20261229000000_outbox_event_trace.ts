import { Migration } from '@mikro-orm/migrations';

/**
 * The trace of the change an outbox event describes (W3C `traceparent`/`tracestate` as a JSON
 * object, platform/observability/tracing.ts), written by `publish` only when the change was traced (sampled):
 * consumers link their spans to it, and webhook deliveries continue it. Null otherwise, and on
 * the events published before tracing existed.
 */
export class Migration20261229000000_outbox_event_trace extends Migration {
  override name = 'Migration20261229000000_outbox_event_trace';

  override up(): void {
    this.addSql('alter table platform.outbox_event add column trace json');
  }
}
