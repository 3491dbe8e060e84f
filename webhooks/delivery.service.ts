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
import { enqueueMessages, type NewMessage } from './webhook.consumer.js';
import { payload, type DisabledWebhookDocument } from './webhook.json.js';
import { webhookSubscriptionsDisabled } from './webhook.metrics.js';

/** Messages of disabled subscriptions (a 410, failing too long, deactivated) wait this long for a PUT, then are discarded. */
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
  /** The secret a rotation replaced, while its overlap lasts (then null). */
  previous_secret_sealed: string | null;
  kind: 'redo' | 'loop';
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
 * asks before each message, its head included, so a DELETE that committed while the run was out (or
 * while the claim that leased it was reading) stops it after the request then under way, for one
 * shared round trip per message.
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

export type DeliveryConfig = Pick<Config, 'webhookAllowedHosts' | 'webhookRetrySchedule' | 'webhookTimeoutMs' | 'webhookDisableAfterHours'>;

/** Told after a subscription was disabled (its `webhook.disabled` messages are already stored): the email to the account's contact. */
export type DisabledNotice = (disabled: readonly DisabledSubscription[]) => Promise<void>;

/** A subscription the deliverer just disabled. */
export interface DisabledSubscription {
  id: string;
  account_id: string;
  store_id: string;
  url: string;
  topics: string[];
  kind: string;
  disabled_reason: string;
  disabled_at: Date;
  failing_since: Date | null;
  last_error: string | null;
}

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
    private readonly notice: DisabledNotice = async () => undefined,
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
           select l.subscription_id, l.lane, l.ready_at, s.max_deliveries_per_second as max,
                  case when s.rate_window_start = date_trunc('second', now()) then s.rate_window_count else 0 end as used
             from lane l join subscription s on s.id = l.subscription_id
            where l.ready_at <= now() and (l.lease_until is null or l.lease_until < now()) and s.disabled_at is null and s.deleted_at is null
              -- A subscription that used its deliveries of this second waits for the next one.
              and (s.max_deliveries_per_second is null or s.rate_window_start is distinct from date_trunc('second', now()) or s.rate_window_count < s.max_deliveries_per_second)
            order by l.ready_at limit $1 for update of l skip locked),
         -- Within a subscription's limit: its lanes of this claim, oldest due first, as many as its second has left.
         allowed as (
           select subscription_id, lane from (select d.*, row_number() over (partition by d.subscription_id order by d.ready_at) as n from due d) x
            where x.max is null or x.n <= x.max - x.used)
         -- ready_at moves to the lease's end too: the due index no longer lists a leased lane (claims
         -- do not scan past lanes in flight), and a lease that runs out makes the lane due by itself.
         update lane l set lease_until = now() + make_interval(secs => $2::float8 / 1000), ready_at = now() + make_interval(secs => $2::float8 / 1000) from allowed
          where l.subscription_id = allowed.subscription_id and l.lane = allowed.lane
         returning l.subscription_id, l.lane`,
        [limit, this.leaseMs],
      );
      if (!lanes.length) return [];
      await this.countRates(em, lanes);
      const rows = await sql<Head>(
        em,
        `select m.id, m.rank, m.subscription_id, m.lane, m.event_id, m.type, m.subject_id, m.body, m.attempts, m.trace,
                s.url, s.auth_token_sealed, s.signing_secret_sealed, s.kind,
                case when s.previous_secret_until > now() then s.previous_secret_sealed end as previous_secret_sealed
           from unnest($1::text[], $2::text[]) as c(sid, lane)
           join subscription s on s.id = c.sid
           -- A rate-limited subscription sends one message per lease: each counts against its second.
           join lateral (select *, row_number() over (order by sequence) as rank from message
                          where subscription_id = c.sid and lane = c.lane and state = 'queued'
                          order by sequence limit case when s.max_deliveries_per_second is null then ${RUN_LENGTH} else 1 end) m on true
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

  /** Counts the lanes just leased against their subscriptions' current second (only those with a limit). */
  private async countRates(em: EntityManager, lanes: { subscription_id: string }[]): Promise<void> {
    const counts = new Map<string, number>();
    for (const l of lanes) counts.set(l.subscription_id, (counts.get(l.subscription_id) ?? 0) + 1);
    const ids = [...counts.keys()].sort();
    await sql(
      em,
      `update subscription s set rate_window_count = case when s.rate_window_start = date_trunc('second', now()) then s.rate_window_count else 0 end + c.n,
              rate_window_start = date_trunc('second', now())
         from unnest($1::text[], $2::int[]) as c(id, n) where s.id = c.id and s.max_deliveries_per_second is not null`,
      [ids, ids.map((id) => counts.get(id)!)],
    );
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
      // Its head too: a claim whose snapshot predates a DELETE's commit can still lease the lane.
      if (!(await this.live.has(head.subscription_id))) break;
      const result = await this.attempt(head);
      sent.push({ head, result });
      if (result.outcome !== 'succeeded') break;
    }
    if (!sent.length) {
      // Deleted before its head went out (or its existence could not be read: the database is away): nothing
      // to record. The lane is let go at once; should that fail too, its lease runs out by itself.
      await sql(this.orm.em.fork(), 'update lane set lease_until = null where subscription_id = $1 and lane = $2', [run[0]!.subscription_id, run[0]!.lane]).catch(
        (err: unknown) => this.logger.warn({ err }, 'webhook lane not released; its lease runs out'),
      );
      return;
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
        const secrets = [box.open(head.signing_secret_sealed), ...(head.previous_secret_sealed ? [box.open(head.previous_secret_sealed)] : [])];
        result = await deliver({
          url: head.url,
          body: head.body,
          messageId: head.id,
          signingSecret: secrets,
          signatureStyle: head.kind === 'loop' ? 'loop' : 'standard',
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
    const disabled: DisabledSubscription[] = [];
    await this.orm.em.fork().transactional(async (em) => {
      disabled.length = 0;
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
        disabled.push(
          ...(await sql<DisabledSubscription>(
            em,
            `update subscription set disabled_at = now(), disabled_reason = 'the receiver answered 410 Gone', updated_at = now()
              where id = any($1) and disabled_at is null returning ${DISABLED_COLUMNS}`,
            [[...new Set(gone.map((r) => r.head.subscription_id))]],
          )),
        );
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
    const disabledNow = [...disabled];
    try {
      await this.recordHealth(rows, disabled, disabledNow);
    } catch (err) {
      // The outcomes are recorded; the next failure (or success) brings the health up to date.
      this.logger.error({ err }, 'webhook health not recorded');
      disabled.length = 0;
      disabled.push(...disabledNow);
    }
    if (disabled.length) {
      for (const d of disabled) webhookSubscriptionsDisabled.inc({ reason: d.disabled_reason.startsWith('the receiver answered 410') ? 'gone' : 'failing' });
      this.logger.warn({ subscriptions: disabled.map((d) => ({ id: d.id, storeId: d.store_id, reason: d.disabled_reason })) }, 'webhook subscriptions disabled');
      void this.notice(disabled).catch((err: unknown) => this.logger.error({ err }, 'webhook disabled notice failed'));
    }
  }

  /**
   * Health after the outcomes' commit, in its own transaction: it locks subscriptions, which a PUT
   * locks before their lanes, so it never holds lanes while it does (no lock cycle with a PUT).
   * `disabled` gets what the 410s (`gone`) and the failures disabled.
   */
  private async recordHealth(rows: { head: Head; status: AttemptRow['status']; error: string | null }[], disabled: DisabledSubscription[], gone: readonly DisabledSubscription[]): Promise<void> {
    if (!gone.length && rows.every((r) => r.status === 'succeeded')) {
      // All delivered: only a subscription that was failing has something to clear (one statement, no row of a healthy one touched).
      await sql(this.orm.em.fork(), 'update subscription set failing_since = null where id = any($1) and failing_since is not null', [[...new Set(rows.map((r) => r.head.subscription_id))]]);
      return;
    }
    await this.orm.em.fork().transactional(async (em) => {
      disabled.length = 0;
      disabled.push(...gone, ...(await this.health(em, rows)));
      if (disabled.length) await tellStores(em, disabled);
    });
  }

  /**
   * Endpoint health, per subscription of the batch: a success ends its failing spell; a failure
   * starts one (or goes on with it) and is its last error. A subscription failing since longer
   * than the disable window, with no success in between, is disabled here (and told of, in the
   * same transaction). A batch of successes of healthy subscriptions writes nothing.
   */
  private async health(em: EntityManager, rows: { head: Head; status: AttemptRow['status']; error: string | null }[]): Promise<DisabledSubscription[]> {
    const bySubscription = new Map<string, { ok: boolean; error: string | null }>();
    for (const r of rows) {
      const h = bySubscription.get(r.head.subscription_id) ?? { ok: false, error: null };
      if (r.status === 'succeeded') h.ok = true;
      else h.error = r.error;
      bySubscription.set(r.head.subscription_id, h);
    }
    const ids = [...bySubscription.keys()].sort();
    const ok = ids.map((id) => bySubscription.get(id)!.ok);
    const errors = ids.map((id) => bySubscription.get(id)!.error);
    // A healthy subscription's row is left alone (most batches write nothing here).
    await sql(
      em,
      `update subscription s set failing_since = case when c.ok then null else coalesce(s.failing_since, now()) end, last_error = coalesce(c.error, s.last_error)
         from unnest($1::text[], $2::boolean[], $3::text[]) as c(id, ok, error)
        where s.id = c.id and (not c.ok or s.failing_since is not null or c.error is not null)`,
      [ids, ok, errors],
    );
    const failing = ids.filter((_, i) => !ok[i]);
    if (!failing.length) return [];
    const hours = this.config.webhookDisableAfterHours;
    return sql<DisabledSubscription>(
      em,
      `update subscription set disabled_at = now(), updated_at = now(), disabled_reason = $2
        where id = any($1) and disabled_at is null and deleted_at is null and failing_since <= now() - make_interval(secs => $3::float8)
        returning ${DISABLED_COLUMNS}`,
      [failing, `every delivery failed for ${hours} hours (WEBHOOK_DISABLE_AFTER_HOURS)`, hours * 3600],
    );
  }
}

const DISABLED_COLUMNS = 'id, account_id, store_id, url, topics, kind, disabled_reason, disabled_at, failing_since, last_error';

/**
 * A `webhook.disabled` message to every enabled subscription of the stores whose topics include
 * `operational` (and that chose the type), in the transaction that disabled them: told exactly once.
 */
async function tellStores(em: EntityManager, disabled: readonly DisabledSubscription[]): Promise<void> {
  const listeners = await sql<{ id: string; store_id: string }>(
    em,
    `select id, store_id from subscription where store_id = any($1) and topics @> array['operational'] and kind = 'redo'
        and disabled_at is null and deleted_at is null and (event_types is null or event_types @> array['webhook.disabled'])`,
    [[...new Set(disabled.map((d) => d.store_id))]],
  );
  const at = new Date().toISOString();
  const messages: NewMessage[] = [];
  for (const d of disabled) {
    const body = payload('operational', 'webhook.disabled', at, disabledDocument(d), '');
    const eventId = newId('event');
    for (const l of listeners.filter((x) => x.store_id === d.store_id)) {
      messages.push({ subscriptionId: l.id, eventId, lane: d.id, subjectId: d.id, type: 'webhook.disabled', body });
    }
  }
  await enqueueMessages(em, messages);
}

/** What a `webhook.disabled` delivery (and the email) tells of the subscription. */
export function disabledDocument(d: DisabledSubscription): DisabledWebhookDocument {
  return {
    id: d.id,
    url: d.url,
    topics: d.topics,
    kind: d.kind,
    disabledReason: d.disabled_reason,
    disabledAt: d.disabled_at.toISOString(),
    failingSince: d.failing_since?.toISOString() ?? null,
    lastError: d.last_error,
  };
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
    const discarded = await sql<AttemptedMessage & { attempts: number; why: string }>(
      em,
      `update message m set state = 'discarded', finished_at = now()
         from subscription s
        where s.id = m.subscription_id and m.state = 'queued' and s.disabled_at is not null and s.deleted_at is null
          and greatest(m.created_at, s.disabled_at) < now() - make_interval(secs => $1)
        returning m.id, m.subscription_id, m.event_id, m.type, m.subject_id, m.attempts,
          case when s.disabled_reason like 'the receiver answered 410%' then '410' when s.disabled_reason like 'every delivery failed%' then 'failing' else 'deactivated' end as why`,
      [DISABLED_KEEP_SECONDS],
    );
    if (discarded.length) {
      await ATTEMPTS.run(
        em,
        discarded.map((d) => ({ id: newId('webhookAttempt'), message: d, attempt: d.attempts + 1, status: 'discarded', error: `the subscription stayed disabled (${d.why}) for 3 days` })),
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
