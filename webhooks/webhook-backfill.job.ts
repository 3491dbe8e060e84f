import type { AccountsService } from '../platform/accounts/accounts.service.js';
import { sql, type Orm } from '../platform/db/orm.js';
import { newId } from '../platform/ids.js';
import type { Contributions } from '../platform/module.js';
import { enqueueMessages, type NewMessage } from './webhook.consumer.js';
import { payload } from './webhook.json.js';
import type { WebhookTopic } from './webhook.schemas.js';

/** Pages of a store's subjects by topic, as their current REST documents: the owning modules' reads (`ModuleDefinition.subjects`). */
export type BackfillSources = Contributions['subjects'];

const PAGE = 500;

/**
 * One `backfill` message per existing subject of the subscription's topic (custom events have
 * none: they are history, not state). Stored in one transaction, so a retried job adds nothing twice.
 * Every backfill message shares one sequence number drawn before the subjects are read: changes
 * committed earlier are owed before it, changes that commit after it come after it.
 */
export async function backfill(orm: Orm, accounts: AccountsService, sources: BackfillSources, subscriptionId: string): Promise<number> {
  const em = orm.em.fork();
  const [sub] = await sql<{ store_id: string; topics: WebhookTopic[]; event_types: string[] | null; kind: string }>(
    em,
    'select store_id, topics, event_types, kind from subscription where id = $1 and deleted_at is null',
    [subscriptionId],
  );
  if (!sub || sub.kind !== 'redo') return 0;
  // Each of its topics whose subjects are state, unless it chose event types without that topic's backfill.
  const topics = sub.topics.filter((t) => sources[t] && (!sub.event_types || sub.event_types.includes(`${t}.backfill`)));
  if (!topics.length) return 0;
  // Drawn before the subjects are read (a sequence is not transactional).
  const [seq] = await sql<{ n: string }>(em, `select nextval('platform.outbox_sequence') as n`);
  const merchantName = (await accounts.stores([sub.store_id])).get(sub.store_id)?.name ?? '';
  const at = new Date().toISOString();
  // Read outside the transaction below: the owning subgraph's reads run on its own pool.
  const messages: NewMessage[] = [];
  for (const topic of topics) {
    const source = sources[topic]!;
    for (let after: string | null = null; ; ) {
      const page = await source(sub.store_id, after, PAGE);
      if (!page.length) break;
      for (const s of page) {
        messages.push({ subscriptionId, eventId: newId('event'), lane: s.subjectId, subjectId: s.subjectId, type: 'backfill', body: payload(topic, 'backfill', at, s.data, merchantName), sequence: Number(seq!.n) });
      }
      after = page[page.length - 1]!.subjectId;
    }
  }
  await orm.em.fork().transactional((tx) => enqueueMessages(tx, messages));
  return messages.length;
}
