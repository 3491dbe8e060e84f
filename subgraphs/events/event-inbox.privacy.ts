import { sql, type Orm } from '../../platform/db/orm.js';
import { scanStore } from '../../platform/privacy/batches.js';
import { PRIVACY_BATCH, type ErasureLedger, type ErasureParticipant, type ErasureWork } from '../../platform/privacy/participants.js';
import { identifierPattern, scrubJson, type ErasureSubject } from '../../platform/privacy/subject.js';
import type { CustomEventJob } from './event-ingestion.service.js';

interface InboxCopy {
  seq: string;
  job: CustomEventJob;
}

function aboutSubject(job: CustomEventJob, subject: ErasureSubject): boolean {
  const c = job.event.customer as { id?: string; email?: string; phoneNumber?: string };
  return (!!c.id && subject.customerIds.includes(c.id)) || (!!c.email && subject.emails.includes(c.email.toLowerCase())) || (!!c.phoneNumber && subject.phones.includes(c.phoneNumber));
}

/**
 * The person in the events' inbox (accepted, not yet processed): their own events are deleted
 * (nothing is to be done with them any more; later ones are dropped or refused by the
 * suppression), other customers' events that mention an identifier are kept with the person
 * scrubbed. After the customer data parts, before the copies in the queue library and the outbox.
 */
export function inboxErasure(orm: Orm): ErasureParticipant {
  return {
    part: 'inbox',
    collect: async () => ({}),
    async erase(work: ErasureWork, subject: ErasureSubject, ledger: ErasureLedger): Promise<void> {
      const pattern = identifierPattern(subject);
      const rows = pattern ? await scanStore<InboxCopy>(orm, 'select seq::text as seq, job from event_inbox where store_id = $1 and job::text ~* $2 order by seq', [work.storeId, pattern]) : [];
      for (let i = 0; i === 0 || i < rows.length; i += PRIVACY_BATCH) {
        const chunk = rows.slice(i, i + PRIVACY_BATCH);
        await orm.em.fork().transactional(async (em) => {
          const doomed = chunk.filter((r) => aboutSubject(r.job, subject));
          const kept = chunk.filter((r) => !doomed.includes(r));
          if (doomed.length) await sql(em, 'delete from event_inbox where seq = any($1::bigint[])', [doomed.map((r) => r.seq)]);
          if (kept.length) {
            await sql(em, 'update event_inbox i set job = v.job from jsonb_to_recordset($1::jsonb) as v(seq bigint, job jsonb) where i.seq = v.seq', [
              JSON.stringify(kept.map((r) => ({ seq: r.seq, job: scrubJson(r.job, subject) }))),
            ]);
          }
          await ledger.count(em, work.id, [
            { kind: 'event_inbox', action: 'REMOVED', count: doomed.length },
            { kind: 'event_inbox', action: 'ANONYMISED', count: kept.length },
          ]);
          if (i + PRIVACY_BATCH >= rows.length) await ledger.finish(em, work.id, 'inbox');
        });
      }
    },
  };
}
