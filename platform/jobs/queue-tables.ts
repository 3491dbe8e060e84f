/**
 * The one place that reads or changes pg-boss's own tables, for what its public API does not offer.
 * pg-boss owns them, and a new version may change them: on an upgrade this file is what to check
 * (`npm run test:pg-boss-upgrade` runs the queue tests on another version, test/queue-tables.test.ts
 * this file's own). Every other part of the project goes through pg-boss's API, or through these
 * functions.
 */

/** Runs SQL where the caller says: pg-boss's pool (`boss.getDb()`), a transaction's (`transactionDb`), a test's connection. */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** pg-boss's schema (given to it at start: platform/jobs/queue.ts). */
export const QUEUE_SCHEMA = 'pgboss';
const JOB = `${QUEUE_SCHEMA}.job`;

const rows = async <T>(db: SqlExecutor, text: string, values: unknown[] = []): Promise<T[]> => (await db.executeSql(text, values)).rows as T[];

export interface QueueDepth {
  name: string;
  /** Due now, not yet picked up. */
  queued: number;
  /** Due later (a retry's delay, a scheduled start). */
  deferred: number;
  active: number;
  /** Age in seconds of the oldest queued job (null when none). */
  oldest: number | null;
}

/**
 * Every queue with its unfinished jobs by state and the age of its oldest due job, exact (pg-boss's
 * own statistics are a cache only supervising processes refresh). Jobs are indexed by queue and
 * state, and only unfinished ones are read.
 */
export function queueDepths(db: SqlExecutor): Promise<QueueDepth[]> {
  return rows<QueueDepth>(
    db,
    `select q.name,
            coalesce(j.queued, 0)::int as queued, coalesce(j.deferred, 0)::int as deferred, coalesce(j.active, 0)::int as active,
            extract(epoch from now() - j.oldest)::float8 as oldest
       from ${QUEUE_SCHEMA}.queue q
       left join (
         select name,
                count(*) filter (where state in ('created', 'retry') and start_after <= now()) as queued,
                count(*) filter (where state in ('created', 'retry') and start_after > now()) as deferred,
                count(*) filter (where state = 'active') as active,
                min(created_on) filter (where state in ('created', 'retry') and start_after <= now()) as oldest
           from ${JOB}
          where state in ('created', 'retry', 'active')
          group by name
       ) j on j.name = q.name`,
  );
}

/** Jobs still `active` that started before `before` (held by a worker when the database went away). */
export function activeJobsStartedBefore(db: SqlExecutor, before: Date): Promise<{ name: string; id: string }[]> {
  return rows(db, `select name, id from ${JOB} where state = 'active' and started_on < $1`, [before]);
}

/** A job as the checks of tests and the privacy scan read it. */
export interface JobRow {
  id: string;
  name: string;
  state: string;
  data: unknown;
  output: unknown;
  sourceOutput: unknown;
  startAfter: Date;
}

export interface JobFilter {
  /** Queues (any when omitted). */
  names?: readonly string[];
  /** Unfinished only: created, retry or active. */
  unfinished?: boolean;
  /** Jobs whose `data.storeId` is this store. */
  storeId?: string;
  /** Jobs whose data, output or source output matches this regular expression (case-insensitive). */
  mentioning?: string;
}

/** Jobs matching a filter, in creation order. */
export function findJobRows(db: SqlExecutor, filter: JobFilter = {}): Promise<JobRow[]> {
  const values: unknown[] = [];
  const where: string[] = [];
  if (filter.names) where.push(`name = any($${values.push(filter.names)}::text[])`);
  if (filter.unfinished) where.push(`state in ('created', 'retry', 'active')`);
  if (filter.storeId !== undefined) where.push(`data->>'storeId' = $${values.push(filter.storeId)}`);
  if (filter.mentioning !== undefined) {
    const p = `$${values.push(filter.mentioning)}`;
    where.push(`(data::text ~* ${p} or coalesce(output::text, '') ~* ${p} or coalesce(source_output::text, '') ~* ${p})`);
  }
  return rows<JobRow>(
    db,
    `select id, name, state, data, output, source_output as "sourceOutput", start_after as "startAfter" from ${JOB}${where.length ? ` where ${where.join(' and ')}` : ''} order by created_on, id`,
    values,
  );
}

/** Deletes jobs outright, whatever their state (a customer's erasure: nothing is to be done with them). */
export async function deleteJobRows(db: SqlExecutor, jobs: readonly { name: string; id: string }[]): Promise<void> {
  if (!jobs.length) return;
  await db.executeSql(`delete from ${JOB} j using unnest($1::text[], $2::uuid[]) as d(name, id) where j.name = d.name and j.id = d.id`, [jobs.map((j) => j.name), jobs.map((j) => j.id)]);
}

/** Replaces jobs' data and outputs, whatever their state (a customer's erasure scrubs the person from them). */
export async function rewriteJobRows(db: SqlExecutor, jobs: readonly { name: string; id: string; data: unknown; output: unknown; sourceOutput: unknown }[]): Promise<void> {
  if (!jobs.length) return;
  await db.executeSql(
    `update ${JOB} j set data = v.data, output = v.output, source_output = v.source_output
       from jsonb_to_recordset($1::jsonb) as v(name text, id uuid, data jsonb, output jsonb, source_output jsonb)
      where j.name = v.name and j.id = v.id`,
    [JSON.stringify(jobs.map((j) => ({ name: j.name, id: j.id, data: j.data, output: j.output, source_output: j.sourceOutput })))],
  );
}

/** Autovacuum per job table: after a fixed number of dead rows, at full speed (see below). */
const JOB_TABLE_VACUUM = ['autovacuum_vacuum_scale_factor=0', 'autovacuum_vacuum_threshold=20000', 'autovacuum_vacuum_cost_delay=0'];

/**
 * Every job fetched, completed or deleted leaves a dead entry in the job table's fetch index, and
 * a fetch that plans a bitmap scan visits each of them in the heap until a vacuum removes them: at
 * thousands of jobs a second (flow steps in a burst), with autovacuum's default trigger (20 % of the table dead), the
 * custom-event drain (when accepted events were jobs) slowed from about 4,000 to 2,300 events/s within four backlogs. So the job
 * tables are vacuumed after a fixed 20,000 dead rows, unthrottled. pg-boss owns the tables; storage
 * parameters are not part of its schema, so it leaves them alone. Checked first, so a restart takes
 * no lock when they are set.
 */
export async function vacuumJobTablesEarly(db: SqlExecutor): Promise<void> {
  const { rows } = (await db.executeSql(
    `select c.oid::regclass::text as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = '${QUEUE_SCHEMA}.job'::regclass and not (coalesce(c.reloptions, '{}') @> $1::text[])`,
    [JOB_TABLE_VACUUM],
  )) as { rows: { name: string }[] };
  for (const { name } of rows) await db.executeSql(`alter table ${name} set (${JOB_TABLE_VACUUM.join(', ')})`);
}

/** The storage options of pg-boss's shared job table (what `vacuumJobTablesEarly` set). */
export async function jobTableOptions(db: SqlExecutor): Promise<string[]> {
  const [row] = await rows<{ options: string[] | null }>(db, `select reloptions as options from pg_class where oid = '${QUEUE_SCHEMA}.job_common'::regclass`);
  return row?.options ?? [];
}
