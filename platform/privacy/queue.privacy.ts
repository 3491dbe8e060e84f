import type { Orm } from '../db/orm.js';
import { transactionDb } from '../jobs/outbox.js';
import { deleteJobRows, findJobRows, rewriteJobRows, type SqlExecutor } from '../jobs/queue-tables.js';
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

/** A custom event (a dead letter of `custom-events`, or a job queued before the inbox) or a processed event's outbox copy (any queue) of one of the erased customers. */
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
 * alike: a finished job keeps its data for a week): a dead-lettered custom event and a processed
 * event's outbox copy (a consumer's failed work) of the erased customers are deleted (nothing is to
 * be done with them any more), every other job that mentions an identifier (a return's event, say)
 * is kept with the person scrubbed from its data and outputs. Runs after the customer data parts,
 * so no new copy can mention the person. pg-boss's tables through platform/jobs/queue-tables.ts.
 */
export function queueErasure(orm: Orm, eventQueues: readonly string[]): ErasureParticipant {
  return {
    part: 'queue',
    collect: async () => ({}),
    async erase(work: ErasureWork, subject: ErasureSubject, ledger: ErasureLedger): Promise<void> {
      const pattern = identifierPattern(subject);
      // Read across the store with the scans' own bound (batches.ts#scanStore).
      const scan: SqlExecutor = { executeSql: async (text, values) => ({ rows: await scanStore(orm, text, values ?? []) }) };
      const jobs = pattern ? ((await findJobRows(scan, { storeId: work.storeId, mentioning: pattern })) as JobCopy[]) : [];
      for (let i = 0; i === 0 || i < jobs.length; i += PRIVACY_BATCH) {
        const chunk = jobs.slice(i, i + PRIVACY_BATCH);
        await orm.em.fork().transactional(async (em) => {
          const doomed = chunk.filter((j) => aboutErasedCustomer(j, subject, eventQueues));
          const kept = chunk.filter((j) => !doomed.includes(j));
          await deleteJobRows(transactionDb(em), doomed);
          await rewriteJobRows(
            transactionDb(em),
            kept.map((j) => ({ ...j, data: scrubJson(j.data, subject), output: scrubJson(j.output, subject), sourceOutput: scrubJson(j.sourceOutput, subject) })),
          );
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
