import { sql, type EntityManager, type Orm } from '../db/orm.js';
import { QUEUE_SCHEMA } from '../jobs/queue.js';
import type { ErasureLedger, ErasureParticipant, ErasureWork } from './participants.js';
import { PRIVACY_BATCH } from './participants.js';
import { scanStore } from './batches.js';
import { identifierPattern, scrubJson, type ErasureSubject } from './subject.js';

interface JobCopy {
  id: string;
  name: string;
  data: Record<string, unknown>;
  output: unknown;
  sourceOutput: unknown;
}

/** A custom event job (`custom-events`, or its dead letter) or a processed event's outbox copy (any queue) of one of the erased customers. */
function aboutErasedCustomer(job: JobCopy, subject: ErasureSubject, eventQueues: readonly string[]): boolean {
  const data = job.data as { type?: string; event?: { customer?: { id?: string; email?: string; phoneNumber?: string } }; data?: { customer?: { id?: string } } };
  if (eventQueues.includes(job.name)) {
    const c = data.event?.customer ?? {};
    return (!!c.id && subject.customerIds.includes(c.id)) || (!!c.email && subject.emails.includes(c.email.toLowerCase())) || (!!c.phoneNumber && subject.phones.includes(c.phoneNumber));
  }
  return data.type === 'custom_event.created' && subject.customerIds.includes(data.data?.customer?.id ?? '');
}

/**
 * The person's copies in pg-boss's jobs of the store (queued, running, finished and dead-lettered
 * alike: a finished job keeps its data for a week): the accepted events and processed-event copies
 * of the erased customers are deleted (nothing is to be done with them any more), every other job
 * that mentions an identifier (a return's event, say) is kept with the person scrubbed from its
 * data and outputs. Runs after the customer data parts, so no new copy can mention the person.
 */
export function queueErasure(orm: Orm, eventQueues: readonly string[]): ErasureParticipant {
  return {
    part: 'queue',
    collect: async () => ({}),
    async erase(work: ErasureWork, subject: ErasureSubject, ledger: ErasureLedger): Promise<void> {
      const pattern = identifierPattern(subject);
      const jobs = pattern
        ? await scanStore<JobCopy>(
            orm,
            `select id, name, data, output, source_output as "sourceOutput" from ${QUEUE_SCHEMA}.job
              where data->>'storeId' = $1 and (data::text ~* $2 or coalesce(output::text, '') ~* $2 or coalesce(source_output::text, '') ~* $2)`,
            [work.storeId, pattern],
          )
        : [];
      for (let i = 0; i === 0 || i < jobs.length; i += PRIVACY_BATCH) {
        const chunk = jobs.slice(i, i + PRIVACY_BATCH);
        await orm.em.fork().transactional(async (em) => {
          const doomed = chunk.filter((j) => aboutErasedCustomer(j, subject, eventQueues));
          const kept = chunk.filter((j) => !doomed.includes(j));
          await remove(em, doomed);
          await scrub(em, kept, subject);
          await ledger.count(em, work.id, [
            { kind: 'job', action: 'REMOVED', count: doomed.length },
            { kind: 'job', action: 'ANONYMISED', count: kept.length },
          ]);
          if (i + PRIVACY_BATCH >= jobs.length) await ledger.finish(em, work.id, 'queue');
        });
      }
    },
  };
}

async function remove(em: EntityManager, jobs: readonly JobCopy[]): Promise<void> {
  if (!jobs.length) return;
  await sql(em, `delete from ${QUEUE_SCHEMA}.job j using unnest($1::text[], $2::uuid[]) as d(name, id) where j.name = d.name and j.id = d.id`, [jobs.map((j) => j.name), jobs.map((j) => j.id)]);
}

async function scrub(em: EntityManager, jobs: readonly JobCopy[], subject: ErasureSubject): Promise<void> {
  if (!jobs.length) return;
  await sql(
    em,
    `update ${QUEUE_SCHEMA}.job j set data = v.data, output = v.output, source_output = v.source_output
       from jsonb_to_recordset($1::jsonb) as v(name text, id uuid, data jsonb, output jsonb, source_output jsonb)
      where j.name = v.name and j.id = v.id`,
    [JSON.stringify(jobs.map((j) => ({ name: j.name, id: j.id, data: scrubJson(j.data, subject), output: scrubJson(j.output, subject), source_output: scrubJson(j.sourceOutput, subject) })))],
  );
}
