import type { AccountsService } from '../platform/accounts/accounts.service.js';
import { BulkInsert } from '../platform/db/bulk-insert.js';
import { sql, type EntityManager } from '../platform/db/orm.js';
import { newId } from '../platform/ids.js';
import { outboxConsumer } from '../platform/jobs/outbox-consumers.js';
import type { OutboxEvent } from '../platform/jobs/outbox.js';
import type { Traced } from '../platform/observability/tracing.js';
import { labelOf, loopBody, recordOf, returnTriggers } from './loop-webhook.json.js';
import { eventTypeName, payload, route, WEBHOOK_CONTRACTS } from './webhook.json.js';
import type { LoopTopic, LoopTrigger } from './webhook.service.js';

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
  topics: string[];
  event_types: string[] | null;
  kind: 'redo' | 'loop';
  loop_topic: LoopTopic | null;
  loop_trigger: LoopTrigger | null;
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
      `select distinct on (s.id) s.id, s.store_id, s.topics, s.event_types, s.kind, s.loop_topic, s.loop_trigger, s.created_at from subscription s
         join unnest($1::text[], $2::text[]) as p(store_id, topic) on s.store_id = p.store_id and s.topics @> array[p.topic]
        where s.deleted_at is null`,
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    if (!subscriptions.length) return;
    const byKey = new Map<string, SubscriptionMatch[]>();
    for (const s of subscriptions) {
      for (const t of s.topics) {
        const key = `${s.store_id}\u0000${t}`;
        byKey.set(key, [...(byKey.get(key) ?? []), s]);
      }
    }
    const storeIds = [...new Set(subscriptions.filter((s) => s.topics.includes('return')).map((s) => s.store_id))];
    const stores = await this.storeNames(storeIds);
    const labels = await this.labels(em, routed, subscriptions);
    const messages: NewMessage[] = [];
    for (const { event, routed: r } of routed) {
      const matches = byKey.get(`${event.storeId}\u0000${r!.topic}`);
      if (!matches) continue;
      const occurred = Date.parse(event.occurredAt);
      let body: string | undefined;
      const typeName = eventTypeName(r!.topic, r!.type);
      for (const s of matches) {
        // A subscription gets the changes committed after it was created.
        if (s.created_at.getTime() > occurred) continue;
        const base = { subscriptionId: s.id, eventId: event.id, lane: r!.lane, subjectId: r!.subjectId, sequence: event.sequence, trace: event.trace };
        if (s.kind === 'loop') {
          const loop = this.loopMessage(event, s, labels);
          if (loop) messages.push({ ...base, ...loop });
          continue;
        }
        if (s.event_types && !s.event_types.includes(typeName)) continue;
        body ??= payload(r!.topic, r!.type, event.occurredAt, event.data, stores.get(event.storeId)?.name ?? '');
        messages.push({ ...base, type: r!.type, body });
      }
    }
    await labels.save();
    await enqueueMessages(em, messages);
  }

  /** A Loop subscription's message for a return event, when the event fires its trigger. */
  private loopMessage(event: OutboxEvent, s: SubscriptionMatch, labels: LabelState): { type: string; body: string } | null {
    const record = event.subjectType === 'return' ? recordOf(event) : null;
    if (!record) return null;
    const trigger = s.loop_trigger!;
    let fired: boolean;
    if (trigger === 'label.created' || trigger === 'label.updated') {
      const label = labelOf(record);
      const previous = labels.get(s.id, record.id);
      if (label === null || label === previous) return null;
      labels.set(s.id, record.id, label);
      fired = (previous === undefined ? 'label.created' : 'label.updated') === trigger;
    } else {
      fired = returnTriggers(event, record).includes(trigger);
    }
    return fired ? { type: trigger, body: loopBody(record, event.occurredAt, s.loop_topic!, trigger) } : null;
  }

  /** The labels Loop label subscriptions last heard of, for the returns of this batch; `save` stores what changed. */
  private async labels(em: EntityManager, routed: { event: OutboxEvent }[], subscriptions: SubscriptionMatch[]): Promise<LabelState> {
    const watching = subscriptions.filter((s) => s.kind === 'loop' && s.loop_trigger?.startsWith('label.'));
    const known = new Map<string, string>();
    const changed = new Map<string, [string, string, string]>();
    const key = (sub: string, ret: string) => `${sub}\u0000${ret}`;
    if (watching.length) {
      const returns = [...new Set(routed.filter((x) => x.event.subjectType === 'return').map((x) => x.event.subjectId))];
      const rows = await sql<{ subscription_id: string; return_id: string; label: string }>(
        em,
        'select subscription_id, return_id, label from loop_label where subscription_id = any($1) and return_id = any($2)',
        [watching.map((s) => s.id), returns],
      );
      for (const r of rows) known.set(key(r.subscription_id, r.return_id), r.label);
    }
    return {
      get: (sub, ret) => known.get(key(sub, ret)),
      set(sub, ret, label) {
        known.set(key(sub, ret), label);
        changed.set(key(sub, ret), [sub, ret, label]);
      },
      async save() {
        if (!changed.size) return;
        const rows = [...changed.values()].sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
        await sql(
          em,
          `insert into loop_label (subscription_id, return_id, label) select * from unnest($1::text[], $2::text[], $3::text[])
           on conflict (subscription_id, return_id) do update set label = excluded.label`,
          [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
        );
      },
    };
  }
}

interface LabelState {
  get(subscriptionId: string, returnId: string): string | undefined;
  set(subscriptionId: string, returnId: string, label: string): void;
  save(): Promise<void>;
}
