import type { AccountsService } from '../platform/accounts/accounts.service.js';
import { BulkInsert } from '../platform/db/bulk-insert.js';
import { sql, type EntityManager, type Orm } from '../platform/db/orm.js';
import { newId } from '../platform/ids.js';
import { transactionDb, type OutboxEvent } from '../platform/outbox.js';
import { QUEUE_SCHEMA, type PgBoss } from '../platform/queue.js';
import { inJobBatchSpan, type Traced } from '../platform/tracing.js';
import { payload, route } from './payloads.js';

/** Outbox events turned into messages per pass (one transaction). */
const FAN_OUT_BATCH = 1000;

/** `trace`: its event's, which its deliveries continue (replays and backfills have none). */
export interface NewMessage extends Traced {
  subscriptionId: string;
  eventId: string;
  lane: string;
  subjectId: string;
  type: string;
  body: string;
  replayOf?: string;
  /** Taken from the outbox event; replays and backfills draw new ones. */
  sequence?: number;
}

// Inserted in the order given: the sequence numbers drawn for replays and backfills follow it.
const MESSAGES = new BulkInsert<NewMessage>(
  'message',
  [
    { name: 'id', type: 'text', value: () => newId('webhookMessage') },
    { name: 'subscription_id', type: 'text', value: (m) => m.subscriptionId },
    { name: 'event_id', type: 'text', value: (m) => m.eventId },
    { name: 'sequence', type: 'bigint', value: (m) => m.sequence ?? null, select: (seq) => `coalesce(${seq}, nextval('platform.outbox_sequence'))` },
    { name: 'lane', type: 'text', value: (m) => m.lane },
    { name: 'subject_id', type: 'text', value: (m) => m.subjectId },
    { name: 'type', type: 'text', value: (m) => m.type },
    { name: 'body', type: 'text', value: (m) => m.body },
    { name: 'replay_of', type: 'text', value: (m) => m.replayOf ?? null },
    { name: 'trace', type: 'jsonb', value: (m) => m.trace ?? null },
  ],
  { ordered: true },
);

const DUE_LANES = new BulkInsert<NewMessage>(
  'lane',
  [
    { name: 'subscription_id', type: 'text', value: (m) => m.subscriptionId },
    { name: 'lane', type: 'text', value: (m) => m.lane },
    { name: 'ready_at', sql: 'now()' },
  ],
  { tail: 'on conflict (subscription_id, lane) do update set ready_at = coalesce(lane.ready_at, excluded.ready_at)' },
);

/**
 * Stores messages and makes their lanes due, in the caller's transaction. Rows are written in the
 * order given, which is the order they must go out per lane; a lane that already waits (a retry's
 * back-off) keeps its time, since its head has not changed.
 */
export async function enqueueMessages(em: EntityManager, messages: readonly NewMessage[]): Promise<void> {
  if (!messages.length) return;
  await MESSAGES.run(em, messages);
  const lanes = new Map(messages.map((m) => [`${m.subscriptionId}\u0000${m.lane}`, m]));
  // Sorted so two transactions never take the same lane rows in opposite orders (no deadlock).
  await DUE_LANES.run(em, [...lanes.values()].sort((a, b) => (a.subscriptionId + a.lane < b.subscriptionId + b.lane ? -1 : 1)));
}

interface SubscriptionMatch {
  id: string;
  store_id: string;
  topic: string;
  created_at: Date;
}

/**
 * Turns the outbox events kept for webhooks into messages, one per matching subscription. One
 * process at a time fans out (an advisory lock), reading the queue in the outbox's commit order
 * (`sequence`), and the events leave the queue in the transaction that stores their messages: a
 * crash in between loses nothing and duplicates nothing.
 */
export class FanOut {
  constructor(
    private readonly orm: Orm,
    private readonly boss: PgBoss,
    private readonly accounts: AccountsService,
    private readonly queue: string,
  ) {}

  /** Store names (`merchantName`) seen in the last minute: a rename shows within a minute, and a pass saves a query. */
  private readonly names = new Map<string, { name: string; until: number }>();

  private async storeNames(storeIds: string[]): Promise<Map<string, { name: string }>> {
    const now = Date.now();
    const missing = storeIds.filter((id) => !((this.names.get(id)?.until ?? 0) > now));
    if (missing.length) {
      if (this.names.size > 10_000) this.names.clear();
      for (const [id, store] of await this.accounts.stores(missing)) this.names.set(id, { name: store.name, until: now + 60_000 });
    }
    return this.names;
  }

  /**
   * The index a pass reads through: the queue's waiting jobs in sequence order. Without it every
   * pass sorted the whole waiting backlog (a JSON field of each job), so a pass got slower as the
   * backlog grew and a burst could leave the fan-out behind for good. pg-boss owns the job table, so
   * the index is added here, once, under a lock (several processes start at once).
   */
  async ensureIndex(): Promise<void> {
    await this.orm.em.fork().transactional(async (em) => {
      await sql(em, `select pg_advisory_xact_lock(hashtext('webhooks:outbox-index'))`, []);
      const [queue] = await sql<{ table_name: string }>(em, `select table_name from ${QUEUE_SCHEMA}.queue where name = $1`, [this.queue]);
      if (!queue || !/^\w+$/.test(queue.table_name) || !/^[\w-]+$/.test(this.queue)) throw new Error(`no job table for the queue ${this.queue}`);
      await sql(
        em,
        `create index if not exists webhooks_outbox_by_sequence on ${QUEUE_SCHEMA}.${queue.table_name} (((data->>'sequence')::bigint) nulls first, created_on)
          where name = '${this.queue}' and state = 'created'`,
        [],
      );
    });
  }

  /** One pass; returns how many outbox events it consumed (0: nothing to do, or another process holds the lock). */
  async pass(): Promise<number> {
    return this.orm.em.fork().transactional(async (em) => {
      // The lock and the read in one round trip (a pass's fixed cost bounds the fan-out's rate). Read
      // directly rather than through fetch(): fetch orders by created_on (when a transaction began),
      // which is not commit order; the sequence is, per subject.
      const jobs = await sql<{ id: string; data: OutboxEvent }>(
        em,
        `with lock as materialized (select pg_try_advisory_xact_lock(hashtext('webhooks:fan-out')) as ok)
         select id, data from ${QUEUE_SCHEMA}.job, lock where lock.ok and name = $1 and state = 'created'
          order by (data->>'sequence')::bigint nulls first, created_on limit ${FAN_OUT_BATCH}`,
        [this.queue],
      );
      if (!jobs.length) return 0;
      // Found work: the rest of the pass is a span linked to the events' traces (an idle pass makes none).
      return inJobBatchSpan(this.queue, jobs, async () => {
        const events = jobs.map((j) => j.data);
        const routed = events.map((e) => ({ event: e, routed: route(e) })).filter((x) => x.routed !== null);
        const pairs = [...new Set(routed.map((x) => `${x.event.storeId}\u0000${x.routed!.topic}`))].map((k) => k.split('\u0000'));
        const subscriptions = pairs.length
          ? await sql<SubscriptionMatch>(
              em,
              `select s.id, s.store_id, s.topic, s.created_at from subscription s
                 join unnest($1::text[], $2::text[]) as p(store_id, topic) on s.store_id = p.store_id and s.topic = p.topic`,
              [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
            )
          : [];
        const byKey = new Map<string, SubscriptionMatch[]>();
        for (const s of subscriptions) {
          const key = `${s.store_id}\u0000${s.topic}`;
          byKey.set(key, [...(byKey.get(key) ?? []), s]);
        }
        const storeIds = [...new Set(subscriptions.filter((s) => s.topic === 'return').map((s) => s.store_id))];
        const stores = await this.storeNames(storeIds);
        const messages: NewMessage[] = [];
        for (const { event, routed: r } of routed) {
          const matches = byKey.get(`${event.storeId}\u0000${r!.topic}`);
          if (!matches) continue;
          const occurred = Date.parse(event.occurredAt);
          let body: string | undefined;
          for (const s of matches) {
            // A subscription gets the changes committed after it was created.
            if (s.created_at.getTime() > occurred) continue;
            body ??= payload(r!.topic, r!.type, event.occurredAt, event.data, stores.get(event.storeId)?.name ?? '');
            messages.push({ subscriptionId: s.id, eventId: event.id, lane: r!.lane, subjectId: r!.subjectId, type: r!.type, body, sequence: event.sequence, trace: event.trace });
          }
        }
        await enqueueMessages(em, messages);
        // Completed (not deleted): the queue keeps what was published for a while, like any worked queue.
        await this.boss.complete(this.queue, jobs.map((j) => j.id), null, { db: transactionDb(em), includeQueued: true });
        return jobs.length;
      });
    });
  }
}
