import { sql, type Orm } from '../db/orm.js';
import type { ErasureLedger, ErasureParticipant, ErasureWork } from './participants.js';
import { PRIVACY_BATCH } from './participants.js';
import { scanStore } from './batches.js';
import { identifierPattern, scrubJson, type ErasureSubject } from './subject.js';

interface OutboxCopy {
  sequence: string;
  data: unknown;
  /** A custom event of an erased customer: nothing is to be done with it any more. */
  erased: boolean;
}

/**
 * The person's copies in the outbox (`platform.outbox_event`, kept until every consumer has read
 * them and `OUTBOX_KEEP_SECONDS` passed): the processed events of the erased customers are deleted
 * (a consumer that has not read one yet then never does: the erased customer's events start no
 * flow and owe no delivery), every other event that mentions an identifier (a return's, say) is
 * kept with the person scrubbed from its data, so its consumers still get it. Runs after the
 * customer data parts, so no new event can mention the person.
 */
export function outboxErasure(orm: Orm): ErasureParticipant {
  return {
    part: 'outbox',
    collect: async () => ({}),
    async erase(work: ErasureWork, subject: ErasureSubject, ledger: ErasureLedger): Promise<void> {
      const pattern = identifierPattern(subject);
      const rows = await scanStore<OutboxCopy>(
        orm,
        `select sequence::text, data, (type = 'custom_event.created' and data->'customer'->>'id' = any($2)) as erased from platform.outbox_event
          where store_id = $1 and ((type = 'custom_event.created' and data->'customer'->>'id' = any($2)) or ($3::text is not null and data::text ~* $3))`,
        [work.storeId, subject.customerIds, pattern],
      );
      for (let i = 0; i === 0 || i < rows.length; i += PRIVACY_BATCH) {
        const chunk = rows.slice(i, i + PRIVACY_BATCH);
        await orm.em.fork().transactional(async (em) => {
          const gone = chunk.filter((r) => r.erased).map((r) => r.sequence);
          const kept = chunk.filter((r) => !r.erased).map((r) => ({ sequence: r.sequence, data: scrubJson(r.data, subject) }));
          if (gone.length) await sql(em, 'delete from platform.outbox_event where sequence = any($1::bigint[])', [gone]);
          if (kept.length) {
            await sql(em, 'update platform.outbox_event e set data = v.data from jsonb_to_recordset($1::jsonb) as v(sequence bigint, data json) where e.sequence = v.sequence', [
              JSON.stringify(kept),
            ]);
          }
          await ledger.count(em, work.id, [
            { kind: 'outbox_event', action: 'REMOVED', count: gone.length },
            { kind: 'outbox_event', action: 'ANONYMISED', count: kept.length },
          ]);
          if (i + PRIVACY_BATCH >= rows.length) await ledger.finish(em, work.id, 'outbox');
        });
      }
    },
  };
}
