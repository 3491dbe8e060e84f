import { findJobRows } from '../../platform/jobs/queue-tables.js';
import { DEAD_LETTER_SUFFIX } from '../../platform/jobs/queue.js';
import pg from 'pg';
import { OUTBOX_CONSUMERS } from '../../server/modules.js';
import { CONSUMED } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { seedFrom } from '../support/random.js';

/**
 * What every fuzz suite shares: the run settings (a fixed seed and a modest
 * number of runs in `npm test`; `npm run fuzz -- --runs N [--seed S]` for long
 * runs), the per-target status counts it prints, and the check that a refused
 * request changed nothing. A failure names its seed (fast-check's message);
 * FUZZ_SEED and FUZZ_RUNS replay it (docs/testing.md).
 */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 20);
export const FUZZ_SEED = seedFrom('FUZZ_SEED', () => 20261124);
/** Per test of `targets` targets: a long run needs time; vitest's own limit stays for the rest. */
export const fuzzTimeout = (targets = 1): number => Math.max(60_000, FUZZ_RUNS * 400 * targets);

export class StatusCounts {
  private readonly counts = new Map<string, Map<string, number>>();

  record(target: string, status: number | string): void {
    const byStatus = this.counts.get(target) ?? new Map<string, number>();
    byStatus.set(String(status), (byStatus.get(String(status)) ?? 0) + 1);
    this.counts.set(target, byStatus);
  }

  /** One line per target: `GET /returns/:returnId  200=12 400=30 404=8`. */
  report(title: string): string {
    const width = Math.max(...[...this.counts.keys()].map((k) => k.length), 10);
    const lines = [...this.counts.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([target, byStatus]) => `${target.padEnd(width)}  ${[...byStatus.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([s, n]) => `${s}=${n}`).join(' ')}`);
    const totals = new Map<string, number>();
    for (const byStatus of this.counts.values()) for (const [s, n] of byStatus) totals.set(s, (totals.get(s) ?? 0) + n);
    return [`${title} (${FUZZ_RUNS} runs per target, seed ${FUZZ_SEED})`, ...lines, `${'total'.padEnd(width)}  ${[...totals.entries()].sort().map(([s, n]) => `${s}=${n}`).join(' ')}`].join('\n');
  }
}

/**
 * A fingerprint of everything a request can change synchronously: row counts
 * and latest updates of the tables REST and GraphQL writes touch, and the
 * accepted-event jobs. Equal before and after a refused request, or the
 * request changed something it should not have.
 */
const FINGERPRINT = `select json_build_array(
  (select count(*) from returns."order"), (select max(updated_at) from returns."order"), (select count(*) from returns.order_line_item),
  (select count(*) from returns.return), (select max(updated_at) from returns.return), (select count(*) from returns.return_item),
  (select count(*) from returns.return_comment), (select max(updated_at) from returns.store_settings), (select count(*) from returns.idempotency_key),
  (select count(*) from inventory.location), (select count(*) from inventory.product), (select max(updated_at) from inventory.product),
  (select count(*) from inventory.inventory_item), (select max(updated_at) from inventory.inventory_item),
  (select count(*) from inventory.inbound_shipment), (select max(updated_at) from inventory.inbound_shipment),
  (select count(*) from events.segment), (select count(*) from events.event_inbox), (select count(*) from events.custom_event),
  (select count(*) from webhooks.subscription where deleted_at is null),
  -- What requests change in a subscription, not its health (failing since, last error, disabled by the deliverer, its updated_at then).
  (select md5(string_agg(concat_ws('|', id, url, auth_token_sealed, external_id, topics::text, event_types::text, max_deliveries_per_second, signing_secret_sealed, previous_secret_sealed, loop_topic, loop_trigger), ',' order by id)) from webhooks.subscription where deleted_at is null),
  (select count(*) from returns.fulfillment), (select max(updated_at) from returns.fulfillment), (select count(*) from returns.fulfillment_event),
  (select count(*) from returns.return_tag), (select max(updated_at) from returns.return_tag), (select count(*) from returns.return_tag_link),
  (select count(*) from returns.return_import_key), (select count(*) from events.customer), (select max(updated_at) from events.customer),
  (select count(*) from events.storefront_identity), (select count(*) from events.storefront_pending_event)
)::text as print`;

/**
 * Work that changes state later (processing, restock, flows): jobs of the work queues, and outbox
 * events a consumer has not read yet (of the types it reads); waited for after a success, so it
 * does not look like a refused request's change. Webhook deliveries change nothing fingerprinted (a
 * subscription's health is left out of it).
 */
const READERS = OUTBOX_CONSUMERS.filter((c) => c.name !== 'webhooks-outbox');
const SETTLE = `select ((select count(*) from events.event_inbox where ready_at < now() + interval '5 seconds')
  + (select count(*) from platform.outbox_consumer c join unnest($1::text[], $2::text[]) as d(name, types) on d.name = c.name, platform.outbox_event e
      where e.tx >= pg_snapshot_xmin(c.snapshot) and e.type = any(string_to_array(d.types, ',')) and not ${CONSUMED}))::int as n`;
const SETTLE_PARAMS = [READERS.map((c) => c.name), READERS.map((c) => [...new Set(c.contracts.map((k) => k.type))].join(','))];

export class StateProbe {
  private readonly pool: pg.Pool;
  private dirty = false;

  constructor(databaseUrl: string) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  }

  /** A request that may have changed state succeeded: its background work must finish before the next comparison. */
  changed(): void {
    this.dirty = true;
  }

  async fingerprint(): Promise<string> {
    if (this.dirty) {
      // Unsettled after 10 s, the comparison goes ahead and tells whether it mattered.
      await eventually(async () => (await this.pool.query<{ n: number }>(SETTLE, SETTLE_PARAMS)).rows[0]!.n + (await this.dueJobs()) === 0, 'background jobs to settle', { timeoutMs: 10_000, intervalMs: 100 }).catch(
        () => undefined,
      );
      this.dirty = false;
    }
    const { rows } = await this.pool.query<{ print: string }>(FINGERPRINT);
    return rows[0]!.print;
  }

  /** Jobs of the work queues due within 5 s (dead letters and the webhook fan-out's queue change nothing fingerprinted). */
  private async dueJobs(): Promise<number> {
    const soon = Date.now() + 5_000;
    const jobs = await findJobRows({ executeSql: (text, values) => this.pool.query(text, values) }, { unfinished: true });
    return jobs.filter((j) => !j.name.endsWith(DEAD_LETTER_SUFFIX) && j.name !== 'webhooks-outbox' && new Date(j.startAfter).getTime() < soon).length;
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
