import { sql, type Orm } from '../platform/db/orm.js';
import { enqueueMessages } from './webhook.consumer.js';

/**
 * A replay: the subscription's original messages since `start`, queued again as new messages (new
 * webhook-ids: a receiver that deduplicates must not drop what it asked for again), in their
 * original order and after whatever is owed now.
 */
export async function replay(orm: Orm, subscriptionId: string, start: string): Promise<number> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await sql<{ id: string; event_id: string; lane: string; subject_id: string; type: string; body: string }>(
      em,
      `select id, event_id, lane, subject_id, type, body from message
        where subscription_id = $1 and replay_of is null and created_at >= $2::timestamptz order by sequence`,
      [subscriptionId, start],
    );
    await enqueueMessages(
      em,
      rows.map((r) => ({ subscriptionId, eventId: r.event_id, lane: r.lane, subjectId: r.subject_id, type: r.type, body: r.body, replayOf: r.id })),
    );
    return rows.length;
  });
}
