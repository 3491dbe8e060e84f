import type { AccountsService } from '../platform/accounts/accounts.service.js';
import { canSeeStore, type Principal } from '../platform/api/auth.js';
import type { Config } from '../platform/config.js';
import { keysetPage, Conditions } from '../platform/db/keyset.js';
import { sql, type EntityManager, type Orm } from '../platform/db/orm.js';
import { invalid, notFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { enqueueInTransaction } from '../platform/jobs/outbox.js';
import type { Page, PageRequest } from '../platform/api/pagination.js';
import type { PgBoss } from '../platform/jobs/queue.js';
import { checkCallbackUrl, generateSigningSecret } from '../platform/outbound/index.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { CreateWebhookBody, DeliveryDocument, UpdateWebhookBody, WebhookDocument, WebhookTopic } from './webhook.schemas.js';

export const WEBHOOK_BACKFILL_QUEUE = 'webhooks-backfill';
export const WEBHOOK_REPLAY_QUEUE = 'webhooks-replay';

interface SubscriptionRow {
  id: string;
  account_id: string;
  store_id: string;
  topic: WebhookTopic;
  url: string;
  auth_token_last4: string | null;
  external_id: string | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, account_id, store_id, topic, url, auth_token_last4, external_id, disabled_at, created_at, updated_at';

function document(row: SubscriptionRow): WebhookDocument {
  return {
    id: row.id,
    callback: { url: row.url, auth: row.auth_token_last4 === null ? null : { bearer: { token: `****${row.auth_token_last4}` } } },
    topic: row.topic,
    kind: 'redo',
    externalId: row.external_id,
    disabled: row.disabled_at !== null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

interface AttemptRow {
  id: string;
  subscription_id: string;
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

/**
 * Webhook subscriptions of a store: saved with their callback checked (https, the SSRF rules),
 * their secrets sealed, and every lookup scoped to the caller's stores (another account's
 * subscription is not found, whatever the route).
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
    await this.checkCallback(input.callback, '/webhook/callback/url');
    const accountId = principal.kind === 'account' || principal.kind === 'compat' ? principal.accountId : await this.accountOf(storeId);
    const token = input.callback.auth?.bearer.token ?? null;
    const secret = generateSigningSecret();
    const box = await this.secrets();
    return this.em().transactional(async (em) => {
      const [row] = await sql<SubscriptionRow & { inserted: boolean }>(
        em,
        `insert into subscription (id, account_id, store_id, topic, url, auth_token_sealed, auth_token_last4, signing_secret_sealed, external_id)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         on conflict (store_id, external_id) where external_id is not null do update
           set topic = excluded.topic, url = excluded.url, auth_token_sealed = excluded.auth_token_sealed,
               auth_token_last4 = excluded.auth_token_last4, updated_at = now()
         returning ${COLUMNS}, (xmax = 0) as inserted`,
        [newId('webhook'), accountId, storeId, input.topic, input.callback.url, token === null ? null : box.seal(token), token === null ? null : token.slice(-4), box.seal(secret), input.externalId ?? null],
      );
      if (input.backfill) await enqueueInTransaction(this.boss, em, WEBHOOK_BACKFILL_QUEUE, [{ subscriptionId: row!.id }]);
      return row!.inserted ? { created: true, webhook: { ...document(row!), signingSecret: secret } } : { created: false, webhook: document(row!) };
    });
  }

  private async accountOf(storeId: string): Promise<string> {
    return (await this.accounts.stores([storeId])).get(storeId)!.accountId;
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

  /** Replaces the callback (and externalId); re-enables a subscription a 410 disabled, whose waiting events then go out in order. */
  async update(principal: Principal, id: string, body: UpdateWebhookBody): Promise<void> {
    await this.visible(principal, id);
    const input = body.webhook;
    await this.checkCallback(input.callback, '/webhook/callback/url');
    const token = input.callback.auth?.bearer.token ?? null;
    const sealedToken = token === null ? null : (await this.secrets()).seal(token);
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
           disabled_at = null, updated_at = now() where id = $1`,
        [id, input.callback.url, sealedToken, token === null ? null : token.slice(-4), input.externalId ?? null],
      );
      return row.disabled_at !== null;
    });
    // Its waiting lanes are due at once rather than at their last back-off: locked in the deliverers' order
    // (lanes a deliverer holds now are leased, and made due by its outcome).
    if (reenabled) {
      await sql(
        this.em(),
        `update lane l set ready_at = now()
           from (select subscription_id, lane from lane where subscription_id = $1 and ready_at is not null and (lease_until is null or lease_until < now())
                  order by subscription_id, lane for update) w
          where l.subscription_id = w.subscription_id and l.lane = w.lane`,
        [id],
      );
    }
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

  async deliveries(principal: Principal, id: string, page: PageRequest): Promise<Page<DeliveryDocument>> {
    await this.visible(principal, id);
    const where = new Conditions();
    where.and(`subscription_id = ${where.p(id)}`);
    const rows = await keysetPage<AttemptRow>(this.em(), {
      columns: 'id, subscription_id, event_id, type, subject_id, attempt, status, response_status, duration_ms, error, created_at',
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
}
