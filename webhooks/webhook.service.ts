import { randomBytes } from 'node:crypto';
import type { AccountsService } from '../platform/accounts/accounts.service.js';
import { canSeeStore, type Principal } from '../platform/api/auth.js';
import type { Config } from '../platform/config.js';
import { keysetPage, Conditions } from '../platform/db/keyset.js';
import { sql, type EntityManager, type Orm } from '../platform/db/orm.js';
import { AppError, invalid, notFound, type FieldError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { enqueueInTransaction } from '../platform/jobs/outbox.js';
import type { Page, PageRequest } from '../platform/api/pagination.js';
import type { PgBoss } from '../platform/jobs/queue.js';
import { checkCallbackUrl, generateSigningSecret } from '../platform/outbound/index.js';
import type { SecretBox } from '../platform/secret-box.js';
import { eventTypesOf } from './webhook.json.js';
import type { CreateWebhookBody, DeliveryDocument, UpdateWebhookBody, WebhookDocument, WebhookEventType, WebhookTopic } from './webhook.schemas.js';

export const WEBHOOK_BACKFILL_QUEUE = 'webhooks-backfill';
export const WEBHOOK_REPLAY_QUEUE = 'webhooks-replay';

/** Loop's webhook topics and triggers (decisions section 20), as its API names them. */
export const LOOP_TOPICS = ['return', 'label', 'restock'] as const;
export const LOOP_TRIGGERS = ['return.created', 'return.updated', 'return.closed', 'label.created', 'label.updated', 'restock.requested'] as const;
export type LoopTopic = (typeof LOOP_TOPICS)[number];
export type LoopTrigger = (typeof LOOP_TRIGGERS)[number];

/** The default overlap of a rotation: the previous secret signs beside the new one for a day (as Svix keeps it). */
const DEFAULT_OVERLAP_SECONDS = 86_400;

export interface SubscriptionRow {
  id: string;
  account_id: string;
  store_id: string;
  topic: WebhookTopic;
  topics: WebhookTopic[];
  event_types: WebhookEventType[] | null;
  kind: 'redo' | 'loop';
  loop_topic: LoopTopic | null;
  loop_trigger: LoopTrigger | null;
  numeric_id: string;
  url: string;
  auth_token_last4: string | null;
  external_id: string | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  last_error: string | null;
  success_rate: number | null;
  max_deliveries_per_second: number | null;
  created_at: Date;
  updated_at: Date;
}

/** Succeeded attempts over every finished attempt of the last 24 hours (`attempt_list_index`). */
const SUCCESS_RATE = `(select (count(*) filter (where a.status = 'succeeded'))::float8 / nullif(count(*) filter (where a.status <> 'pending'), 0)
   from attempt a where a.subscription_id = subscription.id and a.created_at > now() - interval '24 hours')`;

const COLUMNS = `id, account_id, store_id, topic, topics, event_types, kind, loop_topic, loop_trigger, numeric_id::text, url, auth_token_last4, external_id,
  disabled_at, disabled_reason, failing_since, last_error, max_deliveries_per_second, created_at, updated_at, ${SUCCESS_RATE} as success_rate`;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

function document(row: SubscriptionRow): WebhookDocument {
  return {
    id: row.id,
    callback: { url: row.url, auth: row.auth_token_last4 === null ? null : { bearer: { token: `****${row.auth_token_last4}` } } },
    topic: row.topics[0] ?? row.topic,
    topics: row.topics,
    eventTypes: row.event_types,
    kind: row.kind,
    loop: row.kind === 'loop' ? { topic: row.loop_topic!, trigger: row.loop_trigger! } : null,
    externalId: row.external_id,
    status: row.disabled_at === null ? 'active' : 'disabled',
    disabled: row.disabled_at !== null,
    disabledReason: row.disabled_reason,
    disabledAt: iso(row.disabled_at),
    failingSince: iso(row.failing_since),
    lastError: row.last_error,
    successRate24h: row.success_rate === null ? null : Math.round(row.success_rate * 10_000) / 10_000,
    maxDeliveriesPerSecond: row.max_deliveries_per_second,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

interface AttemptRow {
  id: string;
  subscription_id: string;
  message_id: string;
  event_id: string;
  type: string;
  subject_id: string;
  attempt: number;
  status: DeliveryDocument['status'];
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: Date;
}

/** Topics and event types as a body gives them: `topic` or `topics`, and event types within those topics. */
function choices(input: { topic?: WebhookTopic; topics?: WebhookTopic[]; eventTypes?: WebhookEventType[] | null }, current?: { topics: WebhookTopic[]; eventTypes: WebhookEventType[] | null }) {
  if (input.topic !== undefined && input.topics !== undefined) {
    throw invalid('validation-failed', 'Give `topic` or `topics`, not both.', [{ pointer: '/webhook/topics', detail: 'give topic or topics, not both' }]);
  }
  const topics = input.topics ?? (input.topic !== undefined ? [input.topic] : current?.topics);
  if (!topics) throw invalid('validation-failed', 'A subscription needs `topic` or `topics`.', [{ pointer: '/webhook/topic', detail: 'required (or topics)' }]);
  const eventTypes = input.eventTypes !== undefined ? input.eventTypes : (current?.eventTypes ?? null);
  if (eventTypes) {
    const allowed = new Set(topics.flatMap(eventTypesOf));
    const errors: FieldError[] = eventTypes.flatMap((t, i) => (allowed.has(t) ? [] : [{ pointer: `/webhook/eventTypes/${i}`, detail: `${t} is not a type of the subscription's topics (${topics.join(', ')})` }]));
    if (errors.length) throw invalid('validation-failed', 'Every event type must be one of the subscription\'s topics.', errors);
  }
  return { topics, eventTypes };
}

/** A Loop subscription's secret: the key of `X-Loop-Signature` (HMAC-SHA256 of the body, keyed with the secret's text). */
function generateLoopSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * Webhook subscriptions of a store: saved with their callback checked (https, the SSRF rules),
 * their secrets sealed, and every lookup scoped to the caller's stores (another account's
 * subscription is not found, whatever the route). Loop subscriptions (`/api/v1/webhooks`) are the
 * same rows, of kind `loop`: the same deliverer, retries, log and health.
 */
export class WebhookSubscriptions {
  constructor(
    readonly orm: Orm,
    private readonly accounts: AccountsService,
    private readonly boss: PgBoss,
    private readonly secrets: () => Promise<SecretBox>,
    private readonly config: Pick<Config, 'webhookAllowedHosts'>,
  ) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  private async checkCallback(callback: { url: string }, pointer: string): Promise<void> {
    const reason = await checkCallbackUrl(callback.url, this.config.webhookAllowedHosts);
    if (reason) throw invalid('validation-failed', `The callback URL ${reason}.`, [{ pointer, detail: reason }]);
  }

  /** Creates a subscription (201, with its signing secret), or updates the one with the same externalId in the store (200). */
  async create(principal: Principal, storeId: string, body: CreateWebhookBody): Promise<{ created: boolean; webhook: WebhookDocument & { signingSecret?: string } }> {
    const input = body.webhook;
    const { topics, eventTypes } = choices(input);
    await this.checkCallback(input.callback, '/webhook/callback/url');
    const accountId = await this.accountFor(principal, storeId);
    const token = input.callback.auth?.bearer.token ?? null;
    const secret = generateSigningSecret();
    const box = await this.secrets();
    const row = await this.em().transactional(async (em) => {
      const [row] = await sql<SubscriptionRow & { inserted: boolean }>(
        em,
        `insert into subscription (id, account_id, store_id, topic, topics, event_types, max_deliveries_per_second, url, auth_token_sealed, auth_token_last4, signing_secret_sealed, external_id)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         on conflict (store_id, external_id) where external_id is not null do update
           set topic = excluded.topic, topics = excluded.topics, event_types = excluded.event_types, max_deliveries_per_second = excluded.max_deliveries_per_second,
               url = excluded.url, auth_token_sealed = excluded.auth_token_sealed, auth_token_last4 = excluded.auth_token_last4, updated_at = now()
         returning id, (xmax = 0) as inserted`,
        [
          newId('webhook'),
          accountId,
          storeId,
          topics[0],
          topics,
          eventTypes,
          input.maxDeliveriesPerSecond ?? null,
          input.callback.url,
          token === null ? null : box.seal(token),
          token === null ? null : token.slice(-4),
          box.seal(secret),
          input.externalId ?? null,
        ],
      );
      if (input.backfill) await enqueueInTransaction(this.boss, em, WEBHOOK_BACKFILL_QUEUE, [{ subscriptionId: row!.id }]);
      return row!;
    });
    const doc = document(await this.read(row.id));
    return row.inserted ? { created: true, webhook: { ...doc, signingSecret: secret } } : { created: false, webhook: doc };
  }

  private async accountFor(principal: Principal, storeId: string): Promise<string> {
    return principal.kind === 'account' || principal.kind === 'compat' ? principal.accountId : (await this.accounts.stores([storeId])).get(storeId)!.accountId;
  }

  private async read(id: string, em: EntityManager = this.em()): Promise<SubscriptionRow> {
    const [row] = await sql<SubscriptionRow>(em, `select ${COLUMNS} from subscription where id = $1`, [id]);
    return row!;
  }

  async list(storeId: string, page: PageRequest): Promise<Page<WebhookDocument>> {
    const where = new Conditions();
    where.and(`store_id = ${where.p(storeId)}`);
    where.and('deleted_at is null');
    const rows = await keysetPage<SubscriptionRow>(this.em(), { columns: COLUMNS, from: 'subscription', where, sortColumn: 'created_at', idColumn: 'id', page });
    return { ...rows, items: rows.items.map(document) };
  }

  /** The subscription, if the caller may see its store; otherwise 404 as if it did not exist. */
  private async visible(principal: Principal, id: string, em: EntityManager = this.em(), lock = false): Promise<SubscriptionRow> {
    const [row] = await sql<SubscriptionRow>(em, `select ${COLUMNS} from subscription where id = $1 and deleted_at is null${lock ? ' for no key update' : ''}`, [id]);
    if (!row || !canSeeStore(principal, row.store_id)) throw notFound('webhook-not-found', `Webhook ${id} was not found.`);
    return row;
  }

  async get(principal: Principal, id: string): Promise<WebhookDocument> {
    return document(await this.visible(principal, id));
  }

  /**
   * Replaces the callback (and externalId, topics, event types, rate when given); re-enables a
   * disabled subscription, whose waiting events then go out in order, and gives it a fresh health window.
   */
  async update(principal: Principal, id: string, body: UpdateWebhookBody): Promise<void> {
    const current = await this.visible(principal, id);
    const input = body.webhook;
    const chosen = current.kind === 'loop' ? { topics: current.topics, eventTypes: null } : choices(input, { topics: current.topics, eventTypes: current.event_types });
    await this.checkCallback(input.callback, '/webhook/callback/url');
    const token = input.callback.auth?.bearer.token ?? null;
    const sealedToken = token === null ? null : (await this.secrets()).seal(token);
    const rate = input.maxDeliveriesPerSecond !== undefined ? input.maxDeliveriesPerSecond : current.max_deliveries_per_second;
    // The subscription alone in this transaction. A deliverer recording a 410 locks its lanes and then the
    // subscription, so the lanes are made due only after the commit, with nothing else held: the two
    // never wait on each other in a cycle.
    const reenabled = await this.em().transactional(async (em) => {
      const row = await this.visible(principal, id, em, true);
      if (input.externalId) {
        const [taken] = await sql(em, 'select 1 from subscription where store_id = $1 and external_id = $2 and id <> $3', [row.store_id, input.externalId, id]);
        if (taken) throw invalid('validation-failed', 'Another subscription of the store has this externalId.', [{ pointer: '/webhook/externalId', detail: 'already used by another subscription of the store' }]);
      }
      await sql(
        em,
        `update subscription set url = $2, auth_token_sealed = $3, auth_token_last4 = $4, external_id = coalesce($5, external_id),
           topic = $6, topics = $7, event_types = $8, max_deliveries_per_second = $9,
           disabled_at = null, disabled_reason = null, failing_since = case when disabled_at is null then failing_since end, updated_at = now() where id = $1`,
        [id, input.callback.url, sealedToken, token === null ? null : token.slice(-4), input.externalId ?? null, chosen.topics[0], chosen.topics, chosen.eventTypes, rate ?? null],
      );
      return row.disabled_at !== null;
    });
    if (reenabled) await this.wake(id);
  }

  /**
   * A re-enabled subscription's waiting lanes are due at once rather than at their last back-off.
   * After the commit that re-enabled it, with nothing else held, its lanes locked in the deliverers'
   * order (lanes a deliverer holds now are leased, and made due by its outcome).
   */
  private async wake(id: string): Promise<void> {
    await sql(
      this.em(),
      `update lane l set ready_at = now()
         from (select subscription_id, lane from lane where subscription_id = $1 and ready_at is not null and (lease_until is null or lease_until < now())
                order by subscription_id, lane for update) w
        where l.subscription_id = w.subscription_id and l.lane = w.lane`,
      [id],
    );
  }

  async delete(principal: Principal, id: string): Promise<void> {
    await this.visible(principal, id);
    // Marked, not deleted here: the mark locks the subscription's row alone, in a mode the fan-out's and
    // the deliverers' references to it (foreign key checks) do not wait for. No lane of it is leased from
    // now on, and a lane's run already out stops after the request under way (delivery.service.ts,
    // LiveSubscriptions). Its messages, lanes and log go with it in the sweep (delivery.service.ts#sweep).
    // Its externalId is free again at once.
    const [marked] = await sql(this.em(), 'update subscription set deleted_at = now(), external_id = null, updated_at = now() where id = $1 and deleted_at is null returning 1', [id]);
    if (!marked) throw notFound('webhook-not-found', `Webhook ${id} was not found.`);
  }

  /** Queues a replay of the subscription's events since `start` (202): new messages, in their original order, after what is owed now. */
  async replay(principal: Principal, id: string, start: string): Promise<void> {
    await this.visible(principal, id);
    await this.em().transactional((em) => enqueueInTransaction(this.boss, em, WEBHOOK_REPLAY_QUEUE, [{ subscriptionId: id, start }]));
  }

  /**
   * Queues again, as new messages after what is owed now and in their original order per subject,
   * the messages given up since `since` (each original once, and not while a copy of it is still
   * owed or was delivered). Returns how many.
   */
  async recover(principal: Principal, id: string, since: string): Promise<number> {
    await this.visible(principal, id);
    return this.em().transactional(async (em) => {
      const given = await sql<{ id: string }>(
        em,
        `select distinct on (coalesce(m.replay_of, m.id)) m.id, m.sequence from message m
          where m.subscription_id = $1 and m.state = 'discarded' and m.finished_at >= $2::timestamptz
            and not exists (select 1 from message c where c.subscription_id = m.subscription_id and c.replay_of = coalesce(m.replay_of, m.id) and c.state <> 'discarded')
          order by coalesce(m.replay_of, m.id), m.sequence desc`,
        [id, since],
      );
      return this.copy(em, id, given.map((g) => g.id));
    });
  }

  /** Sends one message of the subscription again (a new message, after what its subject owes now). */
  async resend(principal: Principal, id: string, messageId: string): Promise<void> {
    await this.visible(principal, id);
    await this.em().transactional(async (em) => {
      const [found] = await sql(em, 'select 1 from message where id = $1 and subscription_id = $2', [messageId, id]);
      if (!found) throw notFound('webhook-message-not-found', `Webhook ${id} has no message ${messageId}.`);
      await this.copy(em, id, [messageId]);
    });
  }

  /** New messages copying these (new ids, sequences drawn in their original order), their lanes made due. */
  private async copy(em: EntityManager, subscriptionId: string, ids: string[]): Promise<number> {
    if (!ids.length) return 0;
    const inserted = await sql<{ lane: string }>(
      em,
      `with originals as (select m.*, c.new_id, row_number() over (order by m.sequence) as n
                            from message m join unnest($2::text[], $3::text[]) as c(id, new_id) on m.id = c.id),
            sequences as (select row_number() over (order by seq) as n, seq from (select nextval('platform.outbox_sequence') as seq from generate_series(1, $4::int)) x)
       insert into message (id, subscription_id, event_id, sequence, lane, subject_id, type, body, replay_of, trace)
       select o.new_id, $1, o.event_id, s.seq, o.lane, o.subject_id, o.type, o.body, coalesce(o.replay_of, o.id), o.trace
         from originals o join sequences s on s.n = o.n order by o.n
       returning lane`,
      [subscriptionId, ids, ids.map(() => newId('webhookMessage')), ids.length],
    );
    const lanes = [...new Set(inserted.map((r) => r.lane))].sort();
    await sql(
      em,
      `insert into lane (subscription_id, lane, ready_at) select $1, l, now() from unnest($2::text[]) as l order by l
       on conflict (subscription_id, lane) do update set ready_at = coalesce(lane.ready_at, excluded.ready_at)`,
      [subscriptionId, lanes],
    );
    return inserted.length;
  }

  /**
   * A new signing secret; with an overlap, the previous one keeps signing beside it (every delivery
   * carries both signatures) until the overlap ends, so a receiver switching secrets never fails a verification.
   */
  async rotateSecret(principal: Principal, id: string, overlapSeconds = DEFAULT_OVERLAP_SECONDS): Promise<{ signingSecret: string; previousSecretExpiresAt: string | null }> {
    const row = await this.visible(principal, id);
    if (row.kind === 'loop') throw new AppError('conflict', 'webhook-secret-not-rotatable', 'A Loop subscription is signed with one secret (X-Loop-Signature): create a new subscription instead.');
    const secret = generateSigningSecret();
    const sealed = (await this.secrets()).seal(secret);
    const [rotated] = await sql<{ until: Date | null }>(
      this.em(),
      `update subscription set previous_secret_sealed = case when $3::int > 0 then signing_secret_sealed end,
              previous_secret_until = case when $3::int > 0 then now() + make_interval(secs => $3::int) end,
              signing_secret_sealed = $2, updated_at = now()
        where id = $1 and deleted_at is null returning previous_secret_until as until`,
      [id, sealed, overlapSeconds],
    );
    if (!rotated) throw notFound('webhook-not-found', `Webhook ${id} was not found.`);
    return { signingSecret: secret, previousSecretExpiresAt: iso(rotated.until) };
  }

  async deliveries(principal: Principal, id: string, page: PageRequest): Promise<Page<DeliveryDocument>> {
    await this.visible(principal, id);
    const where = new Conditions();
    where.and(`subscription_id = ${where.p(id)}`);
    const rows = await keysetPage<AttemptRow>(this.em(), {
      columns: 'id, subscription_id, message_id, event_id, type, subject_id, attempt, status, response_status, duration_ms, error, created_at',
      from: 'attempt',
      where,
      sortColumn: 'created_at',
      idColumn: 'id',
      page,
    });
    return {
      ...rows,
      items: rows.items.map((r) => ({
        id: r.id,
        webhookId: r.subscription_id,
        messageId: r.message_id,
        eventId: r.event_id,
        type: r.type,
        subjectId: r.subject_id,
        attempt: r.attempt,
        status: r.status,
        responseStatus: r.response_status,
        durationMs: r.duration_ms,
        error: r.error,
        createdAt: r.created_at.toISOString(),
      })),
    };
  }

  // Loop's webhook API (the compatibility face, rest-facade/compat/webhooks.routes.ts): the store of the compat key.

  /** The store's Loop subscriptions, oldest first. */
  async loopList(storeId: string): Promise<SubscriptionRow[]> {
    return sql<SubscriptionRow>(this.em(), `select ${COLUMNS} from subscription where store_id = $1 and kind = 'loop' and deleted_at is null order by numeric_id`, [storeId]);
  }

  /** A Loop subscription of the caller's store by its numeric id, or 404. */
  async loopFind(principal: Principal, numericId: string): Promise<SubscriptionRow> {
    const [row] = /^\d{1,18}$/.test(numericId)
      ? await sql<SubscriptionRow>(this.em(), `select ${COLUMNS} from subscription where numeric_id = $1 and kind = 'loop' and deleted_at is null`, [numericId])
      : [];
    if (!row || !canSeeStore(principal, row.store_id)) throw notFound('webhook-not-found', `Webhook ${numericId} was not found.`);
    return row;
  }

  /** A Loop subscription: Loop's trigger decides which return changes reach it; its deliveries are signed with `X-Loop-Signature`. */
  async loopCreate(principal: Principal, storeId: string, input: { url: string; topic: LoopTopic; trigger: LoopTrigger; active: boolean }): Promise<{ row: SubscriptionRow; secret: string }> {
    await this.checkCallback(input, '/url');
    const accountId = await this.accountFor(principal, storeId);
    const secret = generateLoopSecret();
    const id = newId('webhook');
    await sql(
      this.em(),
      `insert into subscription (id, account_id, store_id, topic, topics, kind, loop_topic, loop_trigger, url, signing_secret_sealed, disabled_at, disabled_reason)
       values ($1, $2, $3, 'return', array['return'], 'loop', $4, $5, $6, $7, case when $8 then null else now() end, case when $8 then null else 'deactivated (status inactive)' end)`,
      [id, accountId, storeId, input.topic, input.trigger, input.url, (await this.secrets()).seal(secret), input.active],
    );
    return { row: await this.read(id), secret };
  }

  /** Changes what is given (Loop's PUT); `status: active` re-enables, `inactive` deactivates. */
  async loopUpdate(principal: Principal, numericId: string, input: { url?: string; topic?: LoopTopic; trigger?: LoopTrigger; active?: boolean }): Promise<SubscriptionRow> {
    const current = await this.loopFind(principal, numericId);
    if (input.url !== undefined) await this.checkCallback({ url: input.url }, '/url');
    const reenabled = await this.em().transactional(async (em) => {
      const row = await this.visible(principal, current.id, em, true);
      await sql(
        em,
        `update subscription set url = coalesce($2, url), loop_topic = coalesce($3, loop_topic), loop_trigger = coalesce($4, loop_trigger),
           disabled_at = case when $5::boolean is null then disabled_at when $5 then null else coalesce(disabled_at, now()) end,
           disabled_reason = case when $5::boolean is null then disabled_reason when $5 then null else coalesce(disabled_reason, 'deactivated (status inactive)') end,
           failing_since = case when $5 and disabled_at is not null then null else failing_since end,
           updated_at = now() where id = $1`,
        [row.id, input.url ?? null, input.topic ?? null, input.trigger ?? null, input.active ?? null],
      );
      return row.disabled_at !== null && input.active === true;
    });
    if (reenabled) await this.wake(current.id);
    return this.read(current.id);
  }

  /** Loop's DELETE: the same mark as `DELETE /v2.2/webhooks/{id}`. */
  async loopDelete(principal: Principal, numericId: string): Promise<void> {
    const row = await this.loopFind(principal, numericId);
    await this.delete(principal, row.id);
  }
}
