import { sql, type EntityManager, type Orm } from '../db/orm.js';
import { newId } from '../ids.js';
import { enqueueInTransaction, publish } from '../jobs/outbox.js';
import type { PgBoss } from '../jobs/queue.js';
import type { SecretBox } from '../secret-box.js';
import type { ErasureWork, SuppressionMode } from './participants.js';
import { CustomerErased } from './privacy.events.js';
import type { ErasureDocument, ErasureStatus } from './privacy.schemas.js';
import { subjectOf, type CustomerIdentifier, type ErasureSubject } from './subject.js';

/** The queue of erasures to run: one job per request, carrying only its id. */
export const ERASURE_QUEUE = 'privacy-erasure';

const DOCUMENT_COLUMNS = `r.id, r.store_id as "storeId", r.status, r.requested_by as "requestedBy", r.suppression, r.customer_ids as "customerIds",
  r.requested_at as "requestedAt", r.completed_at as "completedAt",
  coalesce((select json_agg(json_build_object('kind', c.kind, 'action', c.action, 'count', c.count) order by c.kind, c.action)
              from erasure_count c where c.erasure_id = r.id), '[]') as counts`;

type DocumentRow = Omit<ErasureDocument, 'requestedAt' | 'completedAt'> & { requestedAt: Date; completedAt: Date | null };

const toDocument = (row: DocumentRow): ErasureDocument => ({ ...row, requestedAt: row.requestedAt.toISOString(), completedAt: row.completedAt?.toISOString() ?? null });

/** What the worker needs to run (or resume) an erasure. */
export interface ErasureState {
  work: ErasureWork;
  status: ErasureStatus;
  /** Null once completed: the identifiers are gone. */
  subject: ErasureSubject | null;
  finished: Set<string>;
}

/**
 * Erasure requests: recorded with their job in one transaction (a request is never lost nor run
 * without its record), then driven by the worker (erasure.job.ts). The identifiers are kept sealed
 * while the request runs and cleared when it completes; what stays is the status, the counts and
 * the erased customer ids.
 */
export class ErasureRequests {
  constructor(
    private readonly orm: Orm,
    private readonly boss: PgBoss,
    private readonly box: () => Promise<SecretBox>,
  ) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  async request(storeId: string, by: CustomerIdentifier, suppression: SuppressionMode): Promise<ErasureDocument> {
    const id = newId('erasure');
    const sealed = (await this.box()).seal(JSON.stringify(subjectOf(by)));
    const requestedBy = by.customerId !== undefined ? 'customerId' : by.email !== undefined ? 'email' : 'phoneNumber';
    return this.em().transactional(async (em) => {
      await sql(em, `insert into erasure_request (id, store_id, requested_by, suppression, status, subject_sealed) values ($1, $2, $3, $4, 'PENDING', $5)`, [
        id,
        storeId,
        requestedBy,
        suppression,
        sealed,
      ]);
      await enqueueInTransaction(this.boss, em, ERASURE_QUEUE, [{ erasureId: id }]);
      return (await this.documents([id], em))[0]!;
    });
  }

  async documents(ids: readonly string[], em: EntityManager = this.em()): Promise<ErasureDocument[]> {
    const rows = await sql<DocumentRow>(em, `select ${DOCUMENT_COLUMNS} from erasure_request r where r.id = any($1)`, [ids]);
    return rows.map(toDocument);
  }

  async state(id: string): Promise<ErasureState | null> {
    const [row] = await sql<{ id: string; storeId: string; suppression: SuppressionMode; status: ErasureStatus; subjectSealed: string | null; finished: string[] }>(
      this.em(),
      `select r.id, r.store_id as "storeId", r.suppression, r.status, r.subject_sealed as "subjectSealed",
              array(select part from erasure_step s where s.erasure_id = r.id) as finished
         from erasure_request r where r.id = $1`,
      [id],
    );
    if (!row) return null;
    const subject = row.subjectSealed ? (JSON.parse((await this.box()).open(row.subjectSealed)) as ErasureSubject) : null;
    return { work: { id: row.id, storeId: row.storeId, suppression: row.suppression }, status: row.status, subject, finished: new Set(row.finished) };
  }

  async markRunning(id: string): Promise<void> {
    await sql(this.em(), `update erasure_request set status = 'RUNNING', started_at = coalesce(started_at, now()) where id = $1 and status <> 'COMPLETED'`, [id]);
  }

  async markFailed(id: string): Promise<void> {
    await sql(this.em(), `update erasure_request set status = 'FAILED' where id = $1 and status <> 'COMPLETED'`, [id]);
  }

  /** Keeps what the parts found so far, so a resumed erasure scrubs with all of it. */
  async saveSubject(id: string, subject: ErasureSubject): Promise<void> {
    await sql(this.em(), `update erasure_request set subject_sealed = $2 where id = $1 and status <> 'COMPLETED'`, [id, (await this.box()).seal(JSON.stringify(subject))]);
  }

  /**
   * Every part finished: the request completes, its identifiers are cleared and `customer.erased`
   * is published, in one transaction (once, whatever retries do).
   */
  async complete(id: string, subject: ErasureSubject): Promise<void> {
    await this.em().transactional(async (em) => {
      const [row] = await sql<{ status: ErasureStatus }>(em, 'select status from erasure_request where id = $1 for update', [id]);
      if (!row || row.status === 'COMPLETED') return;
      await sql(em, `update erasure_request set status = 'COMPLETED', completed_at = now(), subject_sealed = null, customer_ids = $2 where id = $1`, [id, subject.customerIds]);
      const [erasure] = await this.documents([id], em);
      await publish(em, CustomerErased, [{ storeId: erasure!.storeId, subjectId: id, data: { erasure: erasure! } }]);
    });
  }
}
