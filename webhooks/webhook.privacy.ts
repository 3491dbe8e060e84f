import { sql, type Orm } from '../platform/db/orm.js';
import { affected, inBatches, retentionScopes, scanStore } from '../platform/privacy/batches.js';
import { PRIVACY_BATCH, type ErasureLedger, type ErasureWork, type PrivacyParticipants, type RetentionPolicy } from '../platform/privacy/participants.js';
import { identifierPattern, scrubJson, scrubText, type ErasureSubject } from '../platform/privacy/subject.js';
import { WEBHOOKS_CONSUMER } from './webhook.consumer.js';

interface MessageCopy {
  id: string;
  body: string;
  /** A custom event of an erased customer: it goes, with its log. */
  erased: boolean;
}

/**
 * The webhooks module's part in privacy requests: the messages owed or sent to subscriptions of the
 * store are copies of the person's records. Those of an erased customer's custom events go, with
 * their delivery log; every other one that mentions the person (a return's) is kept, scrubbed, so
 * the delivery still happens and replays send no personal data. Retention removes the log and sent
 * messages past the store's retention.
 */
export function webhookPrivacy(orm: Orm): PrivacyParticipants {
  return {
    erasure: { part: 'webhooks', collect: async () => ({}), erase: (work, subject, ledger) => erase(orm, work, subject, ledger) },
    retention: { part: 'webhooks', enforce: (policy) => enforce(orm, policy) },
  };
}

async function erase(orm: Orm, work: ErasureWork, subject: ErasureSubject, ledger: ErasureLedger): Promise<void> {
  const pattern = identifierPattern(subject);
  // A fan-out pass that read the outbox before its copies were scrubbed holds its consumer's row
  // until its messages commit: waiting for it (and letting go at once, as a long scan must not stall
  // the fan-out) is enough for the scan to find them. Later passes read scrubbed copies.
  await orm.em.fork().transactional((em) => sql(em, 'select 1 from platform.outbox_consumer where name = $1 for update', [WEBHOOKS_CONSUMER.name]));
  const found = await scanStore<MessageCopy>(
    orm,
    `select m.id, m.body, (s.topic = 'custom_event' and m.lane = any($2)) as erased from message m join subscription s on s.id = m.subscription_id
      where s.store_id = $1 and ((s.topic = 'custom_event' and m.lane = any($2)) or ($3::text is not null and m.body ~* $3))`,
    [work.storeId, subject.customerIds, pattern],
  );
  for (let i = 0; i === 0 || i < found.length; i += PRIVACY_BATCH) {
    const chunk = found.slice(i, i + PRIVACY_BATCH);
    await orm.em.fork().transactional(async (em) => {
      const gone = chunk.filter((m) => m.erased).map((m) => m.id);
      const kept = chunk.filter((m) => !m.erased).map((m) => ({ id: m.id, body: JSON.stringify(scrubJson(JSON.parse(m.body) as unknown, subject)) }));
      const attempts = await affected(em, 'delete from attempt where message_id = any($1)', [gone]);
      const messages = await affected(em, 'delete from message where id = any($1)', [gone]);
      await sql(em, 'update message m set body = v.body from jsonb_to_recordset($1::jsonb) as v(id text, body text) where m.id = v.id', [JSON.stringify(kept)]);
      const last = i + PRIVACY_BATCH >= found.length;
      let logs = 0;
      if (last && pattern) {
        // The log keeps no body, but a receiver's error text may quote one.
        const errors = await scanStore<{ id: string; error: string }>(
          orm,
          'select a.id, a.error from attempt a join subscription s on s.id = a.subscription_id where s.store_id = $1 and a.error ~* $2',
          [work.storeId, pattern],
          em,
        );
        await sql(em, 'update attempt a set error = v.error from jsonb_to_recordset($1::jsonb) as v(id text, error text) where a.id = v.id', [
          JSON.stringify(errors.map((e) => ({ id: e.id, error: scrubText(e.error, subject) }))),
        ]);
        logs = errors.length;
      }
      await ledger.count(em, work.id, [
        { kind: 'webhook_message', action: 'REMOVED', count: messages },
        { kind: 'webhook_message', action: 'ANONYMISED', count: kept.length },
        { kind: 'webhook_attempt', action: 'REMOVED', count: attempts },
        { kind: 'webhook_attempt', action: 'ANONYMISED', count: logs },
      ]);
      if (last) await ledger.finish(em, work.id, 'webhooks');
    });
  }
}

/** The deliveries log and finished messages past their store's retention (owed messages stay until sent or discarded). */
async function enforce(orm: Orm, policy: RetentionPolicy): Promise<Record<string, number>> {
  const total = { webhook_attempt: 0, webhook_message: 0 };
  const before = 'now() - make_interval(days => $2::int)';
  for (const scope of retentionScopes(policy, 'webhookLogDays', 's.store_id')) {
    total.webhook_attempt += await inBatches(orm, (em, limit) =>
      affected(em, `delete from attempt where id in (select a.id from attempt a join subscription s on s.id = a.subscription_id where ${scope.where} and a.created_at < ${before} limit ${limit})`, scope.params),
    );
    total.webhook_message += await inBatches(orm, (em, limit) =>
      affected(
        em,
        `delete from message where id in (select m.id from message m join subscription s on s.id = m.subscription_id
          where ${scope.where} and m.state <> 'queued' and m.finished_at < ${before} limit ${limit})`,
        scope.params,
      ),
    );
  }
  return total;
}
