import type { AccountsService } from '../platform/accounts/accounts.service.js';
import { BulkInsert } from '../platform/db/bulk-insert.js';
import { sql, type EntityManager } from '../platform/db/orm.js';
import { newId } from '../platform/ids.js';
import { outboxConsumer } from '../platform/jobs/outbox-consumers.js';
import type { OutboxEvent } from '../platform/jobs/outbox.js';
import type { Traced } from '../platform/observability/tracing.js';
import { payload, route, WEBHOOK_CONTRACTS } from './webhook.json.js';

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
 * The fan-out's reader of the outbox (its queue, `webhooks-outbox`, takes the events it gave up on
 * and those queued before the outbox was a table). Registered from the first start of any role, so
 * webhook delivery never misses an event.
 */
export const WEBHOOKS_CONSUMER = outboxConsumer('webhooks-outbox', WEBHOOK_CONTRACTS);

/**
 * Turns outbox events into messages, one per matching subscription, in the transaction that moves
 * the fan-out's position on (platform/jobs/outbox-consumers.ts): one process at a time fans out, in
 * commit order, and a crash in between loses nothing and duplicates nothing.
 */
export class FanOut {
  constructor(private readonly accounts: AccountsService) {}

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

  /** Stores the messages of a batch of events in the caller's transaction. */
  async apply(em: EntityManager, events: readonly OutboxEvent[]): Promise<void> {
    const routed = events.map((e) => ({ event: e, routed: route(e) })).filter((x) => x.routed !== null);
    const pairs = [...new Set(routed.map((x) => `${x.event.storeId}\u0000${x.routed!.topic}`))].map((k) => k.split('\u0000'));
    if (!pairs.length) return;
    const subscriptions = await sql<SubscriptionMatch>(
      em,
      `select s.id, s.store_id, s.topic, s.created_at from subscription s
         join unnest($1::text[], $2::text[]) as p(store_id, topic) on s.store_id = p.store_id and s.topic = p.topic
        where s.deleted_at is null`,
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    if (!subscriptions.length) return;
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
  }
}
