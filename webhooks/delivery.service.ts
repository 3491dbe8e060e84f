import type { Config } from '../platform/config.js';
import { BulkInsert } from '../platform/db/bulk-insert.js';
import { sql, type EntityManager, type Orm } from '../platform/db/orm.js';
import { newId } from '../platform/ids.js';
import type { Logger } from '../platform/observability/logger.js';
import { webhookDeliveries } from '../platform/observability/metrics.js';
import { deliver, retryDelayMs, type OutboundResult } from '../platform/outbound/index.js';
import { PollingLoop } from '../platform/jobs/polling-loop.js';
import type { SecretBox } from '../platform/secret-box.js';
import { inQueuedSpan, markFailed, type TraceCarrier } from '../platform/observability/tracing.js';

/** Messages of subscriptions disabled by a 410 wait this long for a PUT, then are discarded. */
export const DISABLED_KEEP_SECONDS = 3 * 24 * 3600;

interface Head {
  id: string;
  subscription_id: string;
  lane: string;
  event_id: string;
  type: string;
  subject_id: string;
  body: string;
  attempts: number;
  attempt_id: string;
  url: string;
  auth_token_sealed: string | null;
  signing_secret_sealed: string;
  /** Position in its lane's claimed run (1: the head). */
  rank: number;
  /** Whether its attempt row was opened (pending) when the lane was leased: the head's is, followers' are written with their outcome. */
  opened: boolean;
  /** The trace of the change it tells of: each attempt is a span of it. */
  trace: TraceCarrier | null;
}

/** The message an attempt is about. */
type AttemptedMessage = Pick<Head, 'id' | 'subscription_id' | 'event_id' | 'type' | 'subject_id'>;

/** A row of the deliveries log: pending when a lease opens it, or written with its outcome. */
interface AttemptRow {
  id: string;
  message: AttemptedMessage;
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed' | 'discarded';
  responseStatus?: number | null;
  durationMs?: number | null;
  error?: string | null;
}

const ATTEMPTS = new BulkInsert<AttemptRow>('attempt', [
  { name: 'id', type: 'text', value: (a) => a.id },
  { name: 'subscription_id', type: 'text', value: (a) => a.message.subscription_id },
  { name: 'message_id', type: 'text', value: (a) => a.message.id },
  { name: 'event_id', type: 'text', value: (a) => a.message.event_id },
  { name: 'type', type: 'text', value: (a) => a.message.type },
  { name: 'subject_id', type: 'text', value: (a) => a.message.subject_id },
  { name: 'attempt', type: 'int', value: (a) => a.attempt },
  { name: 'status', type: 'text', value: (a) => a.status },
  { name: 'response_status', type: 'int', value: (a) => a.responseStatus ?? null },
  { name: 'duration_ms', type: 'int', value: (a) => a.durationMs ?? null },
  { name: 'error', type: 'text', value: (a) => a.error ?? null },
]);

/** How many queued messages of one lane a lease may send, one after the other, each only after the previous one succeeded. */
const RUN_LENGTH = 16;

/**
 * Which subscriptions still exist (not deleted), each answer read after it was asked: the runs in
 * flight share one query at a time, and whoever asks while it runs waits for the next one. A run
 * asks before each message after its head, so a DELETE that committed while the run was out stops
 * it after the request then under way, for one round trip per message that follows a head.
 */
class LiveSubscriptions {
  private waiting: { ids: Set<string>; answer: Promise<Set<string>>; read: () => void } | undefined;
  private reading = false;

  constructor(private readonly orm: Orm) {}

  /** Whether the subscription is there (false too when that could not be read: the run stops, nothing is lost). */
  async has(id: string): Promise<boolean> {
    let batch = this.waiting;
    if (!batch) {
      const ids = new Set<string>();
      let read!: () => void;
      const asked = new Promise<void>((resolve) => (read = resolve));
      batch = this.waiting = { ids, read, answer: asked.then(() => this.live([...ids])) };
    }
    batch.ids.add(id);
    if (!this.reading) this.next();
    return batch.answer.then((live) => live.has(id), () => false);
  }

  private next(): void {
    const batch = this.waiting;
    if (!batch) return;
    this.waiting = undefined;
    this.reading = true;
    batch.read();
    void batch.answer
      .catch(() => undefined)
      .finally(() => {
        this.reading = false;
        this.next();
      });
  }

  private async live(ids: string[]): Promise<Set<string>> {
    const rows = await sql<{ id: string }>(this.orm.em.fork(), 'select id from subscription where id = any($1) and deleted_at is null', [ids]);
    return new Set(rows.map((r) => r.id));
  }
}

export type DeliveryConfig = Pick<Config, 'webhookAllowedHosts' | 'webhookRetrySchedule' | 'webhookTimeoutMs'>;

/**
 * Sends lane heads (docs/webhooks.md). A worker leases due lanes (`lease_until`), sends each
 * lane's lowest-sequence queued message, and records the outcome with the lane locked, so exactly
 * one message per (subscription, subject) is ever in flight and the next is sent only after the
 * previous one succeeded or was discarded. A worker that dies leaves its lanes leased until the
 * lease runs out; another then sends the same message again, under the same webhook-id.
 */
export class Deliverer extends PollingLoop {
  private inFlight = 0;
  private readonly outcomes: { sent: { head: Head; result: OutboundResult }[]; done: () => void }[] = [];
  private flushing = false;
  private readonly leaseMs: number;
  private readonly live: LiveSubscriptions;

  constructor(
    private readonly orm: Orm,
    private readonly secrets: () => Promise<SecretBox>,
    private readonly config: DeliveryConfig,
    private readonly logger: Logger,
    private readonly concurrency = 512,
  ) {
    super();
    // Long enough for the request and the recording of its outcome.
    this.leaseMs = config.webhookTimeoutMs * 2 + 5000;
    this.live = new LiveSubscriptions(orm);
  }

  /** Stops claiming and waits for the deliveries in flight. */
  override async stop(): Promise<void> {
    await super.stop();
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 20));
  }

  protected async run(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      const free = this.concurrency - this.inFlight;
      if (free > 0) {
        try {
          const runs = await this.claim(free);
          claimed = runs.length;
          for (const run of runs) {
            this.inFlight++;
            void this.send(run).finally(() => {
              this.inFlight--;
              this.poke();
            });
          }
        } catch (err) {
          this.logger.error({ err }, 'webhook claim failed');
        }
      }
      if (claimed === 0 || this.inFlight >= this.concurrency) await this.pause(claimed === 0 ? 20 : 1000);
    }
  }

  /**
   * Leases up to `limit` due lanes of enabled subscriptions and opens an attempt on each head. Each
   * lane comes with the messages queued behind its head (up to RUN_LENGTH): under a backlog they go
   * out one after the other within the lease instead of one lease each.
   */
  private async claim(limit: number): Promise<Head[][]> {
    return this.orm.em.fork().transactional(async (em) => {
      const lanes = await sql<{ subscription_id: string; lane: string }>(
        em,
        `with due as (
           select l.subscription_id, l.lane from lane l join subscription s on s.id = l.subscription_id
            where l.ready_at <= now() and (l.lease_until is null or l.lease_until < now()) and s.disabled_at is null and s.deleted_at is null
            order by l.ready_at limit $1 for update of l skip locked)
         -- ready_at moves to the lease's end too: the due index no longer lists a leased lane (claims
         -- do not scan past lanes in flight), and a lease that runs out makes the lane due by itself.
         update lane l set lease_until = now() + make_interval(secs => $2::float8 / 1000), ready_at = now() + make_interval(secs => $2::float8 / 1000) from due
          where l.subscription_id = due.subscription_id and l.lane = due.lane
         returning l.subscription_id, l.lane`,
        [limit, this.leaseMs],
      );
      if (!lanes.length) return [];
      const rows = await sql<Head>(
        em,
        `select m.id, m.rank, m.subscription_id, m.lane, m.event_id, m.type, m.subject_id, m.body, m.attempts, m.trace,
                s.url, s.auth_token_sealed, s.signing_secret_sealed
           from unnest($1::text[], $2::text[]) as c(sid, lane)
           join lateral (select *, row_number() over (order by sequence) as rank from message
                          where subscription_id = c.sid and lane = c.lane and state = 'queued'
                          order by sequence limit ${RUN_LENGTH}) m on true
           join subscription s on s.id = m.subscription_id
          order by m.subscription_id, m.lane, m.rank`,
        [lanes.map((l) => l.subscription_id), lanes.map((l) => l.lane)],
      );
      const runs = new Map<string, Head[]>();
      for (const row of rows) {
        row.rank = Number(row.rank);
        row.opened = row.rank === 1;
        const key = `${row.subscription_id}\u0000${row.lane}`;
        runs.set(key, [...(runs.get(key) ?? []), row]);
      }
      const heads = rows.filter((r) => r.rank === 1);
      const withHead = new Set(heads.map((h) => `${h.subscription_id}\u0000${h.lane}`));
      const empty = lanes.filter((l) => !withHead.has(`${l.subscription_id}\u0000${l.lane}`));
      if (empty.length) await this.releaseEmpty(em, empty);
      if (!heads.length) return [];
      for (const h of rows) h.attempt_id = newId('webhookAttempt');
      // An attempt left pending by a worker that died is recorded as failed; this one counts as the next.
      await sql(
        em,
        `update attempt set status = 'failed', error = 'interrupted: the sending process stopped during the attempt'
          where message_id = any($1) and status = 'pending'`,
        [heads.map((h) => h.id)],
      );
      await sql(em, `update message set attempts = attempts + 1 where id = any($1)`, [heads.map((h) => h.id)]);
      await ATTEMPTS.run(em, heads.map((h) => ({ id: h.attempt_id, message: h, attempt: h.attempts + 1, status: 'pending' })));
      for (const h of rows) h.attempts += 1;
      return [...runs.values()];
    });
  }

  /** Lanes whose messages are all gone (sent, discarded): idle until the fan-out queues another. */
  private async releaseEmpty(em: EntityManager, lanes: { subscription_id: string; lane: string }[]): Promise<void> {
    await sql(
      em,
      `update lane l set lease_until = null,
              ready_at = case when exists (select 1 from message m where m.subscription_id = l.subscription_id and m.lane = l.lane and m.state = 'queued')
                              then now() else null end
         from unnest($1::text[], $2::text[]) as c(sid, lane) where l.subscription_id = c.sid and l.lane = c.lane`,
      [lanes.map((l) => l.subscription_id), lanes.map((l) => l.lane)],
    );
  }

  /** Sends a lane's run in order, stopping at the first message that does not succeed; then records what happened. */
  private async send(run: Head[]): Promise<void> {
    const sent: { head: Head; result: OutboundResult }[] = [];
    // A follower is only started while the lease can still cover it (its timeout and the recording).
    const latestStart = performance.now() + this.leaseMs - this.config.webhookTimeoutMs - 3000;
    for (const head of run) {
      if (sent.length && performance.now() > latestStart) break;
      // The run ends where its subscription was deleted meanwhile: nothing more starts after the DELETE's 204.
      if (sent.length && !(await this.live.has(head.subscription_id))) break;
      const result = await this.attempt(head);
      sent.push({ head, result });
      if (result.outcome !== 'succeeded') break;
    }
    await new Promise<void>((resolve) => {
      this.outcomes.push({ sent, done: resolve });
      if (!this.flushing) void this.flush();
    });
  }

  /** One POST of a message, as a span of its event's trace (its `traceparent` goes to the subscriber). */
  private attempt(head: Head): Promise<OutboundResult> {
    const attributes = { 'webhook.subscription.id': head.subscription_id, 'webhook.message.id': head.id, 'webhook.event.id': head.event_id, 'webhook.event.type': head.type, 'webhook.attempt': head.attempts };
    return inQueuedSpan('webhook delivery', head.trace, attributes, async (span) => {
      let result: OutboundResult;
      try {
        const box = await this.secrets();
        result = await deliver({
          url: head.url,
          body: head.body,
          messageId: head.id,
          signingSecret: box.open(head.signing_secret_sealed),
          headers: head.auth_token_sealed ? { authorization: `Bearer ${box.open(head.auth_token_sealed)}` } : {},
          timeoutMs: this.config.webhookTimeoutMs,
          allowedHosts: this.config.webhookAllowedHosts,
        });
      } catch (err) {
        result = { outcome: 'failed', durationMs: 0, error: err instanceof Error ? err.message : String(err) };
      }
      span.setAttribute('webhook.outcome', result.outcome);
      if (result.status) span.setAttribute('http.response.status_code', result.status);
      if (result.outcome !== 'succeeded') markFailed(span, result.error);
      return result;
    });
  }

  /**
   * Records every outcome waiting, in one transaction: outcomes arrive faster than one
   * transaction each could commit, so they are written a batch at a time (each lane's own rows
   * only, so the batch changes nothing about order).
   */
  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.outcomes.length) {
        const batch = this.outcomes.splice(0, 500);
        try {
          await this.record(batch.map((o) => o.sent));
        } catch (err) {
          // The leases run out and the messages are sent again: at least once, never lost.
          this.logger.error({ err, messages: batch.length }, 'webhook outcomes not recorded');
        }
        for (const o of batch) o.done();
      }
    } finally {
      this.flushing = false;
    }
  }

  private async record(runs: { head: Head; result: OutboundResult }[][]): Promise<void> {
    const rows = runs.flat().map(({ head, result }) => {
      const gone = result.status === 410;
      const succeeded = result.outcome === 'succeeded';
      const last = !succeeded && !gone && head.attempts > this.config.webhookRetrySchedule.length;
      const status: AttemptRow['status'] = succeeded ? 'succeeded' : last ? 'discarded' : 'failed';
      webhookDeliveries.inc({ outcome: status });
      // What becomes of the lane after this message: its next one (finished), a retry after a pause, or waiting for a PUT (gone).
      const next = succeeded || last ? 'next' : gone ? 'gone' : 'retry';
      const delayMs = next === 'retry' ? (retryDelayMs(this.config.webhookRetrySchedule, head.attempts, result.retryAfterMs) ?? 0) : 0;
      return { head, result, status, next, delayMs, error: succeeded ? null : (result.error ?? `HTTP ${result.status}`) };
    });
    // Each run's last message decides its lane (the ones before it succeeded).
    const ran = runs
      .map((run) => rows.find((r) => r.head === run[run.length - 1]!.head)!)
      .sort((a, b) => (a.head.subscription_id + a.head.lane < b.head.subscription_id + b.head.lane ? -1 : 1));
    await this.orm.em.fork().transactional(async (em) => {
      // The lanes first (in a fixed order): a fan-out adding to one waits, and what it added is seen below.
      const held = await sql<{ subscription_id: string; lane: string }>(
        em,
        `select l.subscription_id, l.lane from lane l join unnest($1::text[], $2::text[]) as c(sid, lane) on l.subscription_id = c.sid and l.lane = c.lane
          order by l.subscription_id, l.lane for update of l`,
        [ran.map((r) => r.head.subscription_id), ran.map((r) => r.head.lane)],
      );
      // A lane purged with its deleted subscription while its run was out (sweep) takes the run's outcomes with it.
      const there = new Set(held.map((l) => `${l.subscription_id}\u0000${l.lane}`));
      const kept = (r: (typeof rows)[number]) => there.has(`${r.head.subscription_id}\u0000${r.head.lane}`);
      const lanes = ran.filter(kept);
      const opened = rows.filter((r) => r.head.opened && kept(r));
      const followers = rows.filter((r) => !r.head.opened && kept(r));
      const recorded = rows.filter(kept);
      if (!recorded.length) return;
      if (opened.length) {
        await sql(
          em,
          `update attempt a set status = c.status, response_status = c.response_status, duration_ms = c.duration_ms, error = c.error
             from unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[]) as c(id, status, response_status, duration_ms, error)
            where a.id = c.id`,
          [opened.map((r) => r.head.attempt_id), opened.map((r) => r.status), opened.map((r) => r.result.status ?? null), opened.map((r) => r.result.durationMs), opened.map((r) => r.error)],
        );
      }
      if (followers.length) {
        await ATTEMPTS.run(
          em,
          followers.map((r) => ({ id: r.head.attempt_id, message: r.head, attempt: r.head.attempts, status: r.status, responseStatus: r.result.status ?? null, durationMs: r.result.durationMs, error: r.error })),
        );
      }
      // Finished messages leave the lane; a follower that failed counts its attempt.
      await sql(
        em,
        `update message m set state = case when c.next = 'next' then c.status else m.state end,
                finished_at = case when c.next = 'next' then now() else m.finished_at end,
                attempts = c.attempts
           from unnest($1::text[], $2::text[], $3::text[], $4::int[]) as c(id, status, next, attempts) where m.id = c.id`,
        [recorded.map((r) => r.head.id), recorded.map((r) => r.status), recorded.map((r) => r.next), recorded.map((r) => r.head.attempts)],
      );
      const gone = lanes.filter((r) => r.next === 'gone');
      if (gone.length) {
        // The receiver says it is gone: the subscription stops; its events wait (this one first) for a PUT.
        await sql(em, 'update subscription set disabled_at = now(), updated_at = now() where id = any($1) and disabled_at is null', [gone.map((r) => r.head.subscription_id)]);
      }
      await sql(
        em,
        `update lane l set lease_until = null,
                ready_at = case c.next
                  when 'next' then case when exists (select 1 from message m where m.subscription_id = l.subscription_id and m.lane = l.lane and m.state = 'queued') then now() end
                  when 'gone' then now()
                  else now() + make_interval(secs => c.delay_ms / 1000) end
           from unnest($1::text[], $2::text[], $3::text[], $4::float8[]) as c(sid, lane, next, delay_ms)
          where l.subscription_id = c.sid and l.lane = c.lane`,
        [lanes.map((r) => r.head.subscription_id), lanes.map((r) => r.head.lane), lanes.map((r) => r.next), lanes.map((r) => r.delayMs)],
      );
    });
  }
}

/** Deleted subscriptions purged per sweep, each in its own short transaction. */
const PURGED_PER_SWEEP = 20;

/**
 * Housekeeping, one process at a time: messages of a subscription disabled for 3 days are
 * discarded (and logged so), and deleted subscriptions are purged with their messages, lanes and
 * log. The log and finished messages past their store's retention are the retention job's
 * (webhooks/webhook.privacy.ts).
 */
export async function sweep(orm: Orm, logger?: Logger): Promise<void> {
  await purgeDeleted(orm, logger);
  await orm.em.fork().transactional(async (em) => {
    const [lock] = await sql<{ ok: boolean }>(em, `select pg_try_advisory_xact_lock(hashtext('webhooks:sweep')) as ok`);
    if (!lock!.ok) return;
    const discarded = await sql<AttemptedMessage & { attempts: number }>(
      em,
      `update message m set state = 'discarded', finished_at = now()
         from subscription s
        where s.id = m.subscription_id and m.state = 'queued' and s.disabled_at is not null and s.deleted_at is null
          and greatest(m.created_at, s.disabled_at) < now() - make_interval(secs => $1)
        returning m.id, m.subscription_id, m.event_id, m.type, m.subject_id, m.attempts`,
      [DISABLED_KEEP_SECONDS],
    );
    if (discarded.length) {
      await ATTEMPTS.run(
        em,
        discarded.map((d) => ({ id: newId('webhookAttempt'), message: d, attempt: d.attempts + 1, status: 'discarded', error: 'the subscription stayed disabled (410) for 3 days' })),
      );
      webhookDeliveries.inc({ outcome: 'discarded' }, discarded.length);
    }
  });
}

/**
 * The rows of deleted subscriptions (the cascade takes their messages, lanes and log). Locks in the
 * deliverers' order: the lanes (sorted), then the subscription, so a deliverer recording an outcome
 * waits for the purge (and then finds its lane gone) instead of deadlocking with it. A purge that
 * would wait longer than a moment (a deliverer or a fan-out pass still at one of its rows) gives way
 * before PostgreSQL's deadlock check could pick the other side, and is tried again at the next
 * sweep: nothing waits on it, since a deleted subscription is already gone for every reader.
 */
async function purgeDeleted(orm: Orm, logger?: Logger): Promise<void> {
  const deleted = await sql<{ id: string }>(orm.em.fork(), 'select id from subscription where deleted_at is not null order by deleted_at limit $1', [PURGED_PER_SWEEP]);
  for (const { id } of deleted) {
    await orm.em
      .fork()
      .transactional(async (em) => {
        await sql(em, `set local lock_timeout = '200ms'`);
        await sql(em, 'select 1 from lane where subscription_id = $1 order by subscription_id, lane for update', [id]);
        await sql(em, 'delete from subscription where id = $1 and deleted_at is not null', [id]);
      })
      .catch((err: unknown) => logger?.debug({ err, subscriptionId: id }, 'deleted webhook subscription not purged yet'));
  }
}
