import { sql, type Orm } from '../../platform/db/orm.js';
import { ensureQueue, RETRIES, type PgBoss } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/observability/logger.js';
import { affected } from '../../platform/privacy/batches.js';
import type { RetentionPolicy } from '../../platform/privacy/participants.js';

/** The daily job that keeps the custom events' monthly partitions made ahead of time. */
const EVENT_PARTITIONS_QUEUE = 'events-partitions';

/** Months made ahead of the current one: a missed day or week of the job never leaves an event without its month. */
const PARTITION_MONTHS_AHEAD = 3;

export async function createPartitionQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, EVENT_PARTITIONS_QUEUE, { ...RETRIES.housekeeping, deadLetters: true });
}

/** Makes the months that are missing, from the current one to PARTITION_MONTHS_AHEAD ahead; how many it made. */
async function ensurePartitions(orm: Orm): Promise<number> {
  const [row] = await sql<{ made: number }>(orm.em.fork(), 'select ensure_custom_event_partitions($1) as made', [PARTITION_MONTHS_AHEAD]);
  return row!.made;
}

/**
 * The month of `at`, made when missing: an event retried long after it was received (a dead letter
 * retried by the admin) belongs to a month retention may have dropped.
 */
export async function ensurePartitionOf(orm: Orm, at: string | Date): Promise<void> {
  await sql(orm.em.fork(), 'select ensure_custom_event_partition($1::timestamptz)', [at]);
}

/** Runs at start (in every worker process, idempotent) and every day at 03:07 UTC. */
export async function startPartitionMaintenance(orm: Orm, boss: PgBoss, logger: Logger): Promise<void> {
  const made = await ensurePartitions(orm);
  if (made) logger.info({ made }, 'custom event partitions made');
  await boss.schedule(EVENT_PARTITIONS_QUEUE, '7 3 * * *');
  await boss.work(EVENT_PARTITIONS_QUEUE, { pollingIntervalSeconds: 60 }, async () => {
    const n = await ensurePartitions(orm);
    if (n) logger.info({ made: n }, 'custom event partitions made');
  });
}

/** A monthly partition of `custom_event` (custom_event_yYYYYmMM) and the instants it holds [from, until). */
interface Partition {
  name: string;
  until: Date;
}

/** The partitions, oldest first, with their upper bound (read from their names, which the partition maker gives them). */
async function partitions(orm: Orm): Promise<Partition[]> {
  const rows = await sql<{ name: string }>(
    orm.em.fork(),
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'events.custom_event'::regclass order by c.relname`,
  );
  return rows.flatMap(({ name }) => {
    const m = /^custom_event_y(\d{4})m(\d{2})$/.exec(name);
    return m ? [{ name, until: new Date(Date.UTC(Number(m[1]), Number(m[2]), 1)) }] : [];
  });
}

/** The days a store keeps its events (null: until erased). */
function daysOf(policy: RetentionPolicy, storeId: string): number | null {
  return (policy.stores.find((s) => s.storeId === storeId)?.days ?? policy.defaults).customEventDays;
}

/**
 * Retention by whole months: a partition all of whose stores keep events for fewer days than its
 * newest possible event is old, and none of whose events a flow still runs for, goes at once: its
 * rollup counts are taken out, the uniqueIds and finished runs of its events deleted, and the table
 * detached and dropped, instead of deleting its rows one batch at a time. Returns how many events
 * went. A partition a store still keeps (or one with an event a flow waits on) is left to the
 * row-by-row pass, which then deletes only inside the months at the edge of each store's window.
 */
export async function dropExpiredPartitions(orm: Orm, policy: RetentionPolicy, now = new Date()): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const partition of await partitions(orm)) {
    if (partition.until.getTime() > now.getTime()) break;
    const stores = await sql<{ storeId: string }>(orm.em.fork(), `select distinct store_id as "storeId" from ${partition.name}`);
    const expired = stores.every(({ storeId }) => {
      const days = daysOf(policy, storeId);
      return days !== null && partition.until.getTime() <= now.getTime() - days * 86_400_000;
    });
    if (!expired) continue;
    await orm.em.fork().transactional(async (em) => {
      // Locks the partition first: no insert or delete meets the drop halfway.
      await sql(em, `lock table ${partition.name} in access exclusive mode`);
      const [waiting] = await sql(em, `select 1 from flow_run r join ${partition.name} e on e.id = r.event_id where r.status in ('RUNNING', 'WAITING') limit 1`);
      if (waiting) return;
      // The rollup, as the delete trigger would have changed it.
      await sql(
        em,
        `insert into event_stat (store_id, event_name, slot, customer_id, events)
           select store_id, event_name, date_bin('1 hour', event_timestamp, timestamptz '1970-01-01 00:00:00+00'), customer_id, -count(*)
             from ${partition.name} group by 1, 2, 3, 4 order by 1, 2, 3, 4
         on conflict (store_id, event_name, slot, customer_id) do update set events = event_stat.events + excluded.events`,
      );
      await sql(em, 'delete from event_stat where events = 0');
      // And the day rollup of the stores it is kept for (event-stats.rows.ts).
      await sql(
        em,
        `insert into event_stat_day (store_id, event_name, day, customer_id, events)
           select e.store_id, e.event_name, (e.event_timestamp at time zone z.time_zone)::date, e.customer_id, -count(*)
             from ${partition.name} e join event_stat_day_zone z on z.store_id = e.store_id group by 1, 2, 3, 4 order by 1, 2, 3, 4
         on conflict (store_id, event_name, day, customer_id) do update set events = event_stat_day.events + excluded.events`,
      );
      await sql(em, 'delete from event_stat_day where events = 0');
      const counts = {
        flow_run_step: await affected(em, `delete from flow_run_step s using flow_run r, ${partition.name} e where r.id = s.run_id and r.event_id = e.id`, []),
        flow_run: await affected(em, `delete from flow_run r using ${partition.name} e where r.event_id = e.id`, []),
        unique_id: await affected(em, `delete from custom_event_unique_id u using ${partition.name} e where u.event_id = e.id`, []),
        custom_event: Number((await sql<{ n: string }>(em, `select count(*) as n from ${partition.name}`))[0]!.n),
      };
      await sql(em, `alter table custom_event detach partition ${partition.name}`);
      await sql(em, `drop table ${partition.name}`);
      for (const [kind, n] of Object.entries(counts)) removed[kind] = (removed[kind] ?? 0) + n;
    });
  }
  return removed;
}
