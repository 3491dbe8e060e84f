import { sql, type Orm } from '../../platform/db/orm.js';
import { ensureQueue, RETRIES, type PgBoss } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/observability/logger.js';

/** Builds (or rebuilds, in another zone) a store's day rollup: one job queued per store at a time. */
const EVENT_STAT_DAYS_QUEUE = 'events-stat-days';

export async function createEventStatDaysQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, EVENT_STAT_DAYS_QUEUE, { ...RETRIES.requested, policy: 'stately', expireInSeconds: 3600, heartbeatSeconds: 30, deadLetters: true });
}

/**
 * A store's day rollup counted again in `zone`, in one transaction: its pin locked `for update`
 * (the triggers of transactions storing its events wait, then count in the new zone), its day rows
 * deleted and counted again from its events, the pin then set to `zone` and ready.
 */
async function rebuildEventStatDays(orm: Orm, storeId: string, zone: string): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    // A large store's events take longer than a request's statement timeout to count.
    await sql(em, 'set local statement_timeout = 0');
    await sql(em, 'insert into event_stat_day_zone (store_id, time_zone) values ($1, $2) on conflict (store_id) do nothing', [storeId, zone]);
    await sql(em, 'select 1 from event_stat_day_zone where store_id = $1 for update', [storeId]);
    await sql(em, 'delete from event_stat_day where store_id = $1', [storeId]);
    await sql(
      em,
      `insert into event_stat_day (store_id, event_name, day, customer_id, events)
         select store_id, event_name, (event_timestamp at time zone $2)::date, customer_id, count(*) from custom_event where store_id = $1 group by 1, 2, 3, 4`,
      [storeId, zone],
    );
    await sql(em, 'update event_stat_day_zone set time_zone = $2, ready = true where store_id = $1', [storeId, zone]);
  });
}

export async function startEventStatDaysWorker(orm: Orm, boss: PgBoss, logger: Logger): Promise<void> {
  await boss.work<{ storeId: string; zone: string }>(EVENT_STAT_DAYS_QUEUE, { pollingIntervalSeconds: 1 }, async ([job]) => {
    const started = Date.now();
    await rebuildEventStatDays(orm, job!.data.storeId, job!.data.zone);
    logger.info({ storeId: job!.data.storeId, zone: job!.data.zone, ms: Date.now() - started }, 'day rollup of event stats built');
  });
}

/**
 * Which zone a store's day rollup can answer in, asked per `eventStats` read: the pinned zone once
 * ready. A store without one (its first daily question, or events from before the day rollup), or
 * pinned in another zone than the store's own (its zone changed), gets a build queued, and the
 * hourly rollup answers meanwhile.
 */
export class EventStatDays {
  /** Builds this process queued lately, by store and zone (the queue keeps one per store anyway). */
  private readonly requested = new Map<string, number>();

  constructor(
    private readonly orm: Orm,
    private readonly boss: PgBoss,
  ) {}

  async readyZone(storeId: string, storeZone: string): Promise<string | null> {
    const [pin] = await sql<{ zone: string; ready: boolean }>(this.orm.em.fork(), 'select time_zone as zone, ready from event_stat_day_zone where store_id = $1', [storeId]);
    if (pin?.ready && pin.zone === storeZone) return pin.zone;
    const key = `${storeId} ${storeZone}`;
    if (Date.now() - (this.requested.get(key) ?? 0) > 60_000) {
      this.requested.set(key, Date.now());
      await this.boss.send(EVENT_STAT_DAYS_QUEUE, { storeId, zone: storeZone }, { singletonKey: storeId });
    }
    return pin?.ready ? pin.zone : null;
  }
}
