import { sql, type Orm } from '../../platform/db/orm.js';
import { invalid } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { MemoryRateLimiter, rateLimited } from '../../platform/api/rate-limit.js';
import { inspectJson, violationsOf } from '../../platform/validation/index.js';
import { EVENT_LIMITS } from './custom-event.schemas.js';
import type { EventAcceptance, RateLimitStatus } from './event-acceptance.service.js';
import { EVENTS_RATE_POLICY, EVENTS_RATE_WINDOW_SECONDS } from './event-ingestion.service.js';
import { identityOf, mapStorefrontEvent, visitorKeys, type Identity, type MappedEvent, type StorefrontEvent, type VisitorKey } from './storefront-event.rules.js';
import { StorefrontEventSchema } from './storefront-event.schemas.js';

/** Held events of one visitor: the newest this many are kept. */
const HELD_PER_VISITOR = 100;
/** Held events older than this are never accepted (and are purged). */
const HELD_DAYS = 30;
const PURGE_BATCH = 500;

/**
 * Storefront events (Shopify web-pixel events) into the custom events pipeline. Each becomes a
 * custom event (storefront-event.rules.ts) and is handed to the custom events' own acceptance
 * (`EventAcceptance`: validation, back-pressure, the per-store rate limit, the durable enqueue), so
 * it is limited, deduplicated (`uniqueId` from the pixel's `eventId`), laned and published exactly
 * as a custom event is.
 *
 * Identity resolution: the person is the event's email or phone (or its checkout's); the visitor
 * ids it carries (the anonymous id, the storefront's customer id) are remembered with them, so a
 * later event that carries only a visitor id lands on the same customer. An event of a visitor not
 * identified yet is held (at most 100 per visitor, 30 days) and accepted, in order, with the first
 * event that identifies them.
 */
export class StorefrontEvents {
  /** Held events are not accepted yet, so they count against a limit of their own, the same size (per process). */
  private readonly held: MemoryRateLimiter;

  constructor(
    private readonly orm: Orm,
    private readonly acceptance: EventAcceptance,
    limitPerSecond: number,
  ) {
    this.held = new MemoryRateLimiter(limitPerSecond, EVENTS_RATE_WINDOW_SECONDS * 1000);
  }

  /** Accepts one storefront event: queued as a custom event, or held until its visitor is identified. */
  async accept(storeId: string, raw: unknown): Promise<{ queued: boolean; rateLimit?: RateLimitStatus }> {
    const errors = [...inspectJson(raw, { maxStringBytes: EVENT_LIMITS.stringBytes }), ...violationsOf(StorefrontEventSchema, raw)];
    if (errors.length) throw invalid('validation-failed', 'The storefront event is invalid.', errors);
    const event = raw as StorefrontEvent;
    const mapped = mapStorefrontEvent(event);
    const keys = visitorKeys(event);
    let identity: Identity | null = identityOf(event);
    if (!identity.email && !identity.phoneNumber) {
      if (!keys.length) {
        throw invalid('validation-failed', 'The event names nobody to attach it to.', [
          { pointer: '/anonymousId', detail: 'is required when the event has no customerEmail, customerPhone (E.164), checkout email or phone, or customer id' },
        ]);
      }
      identity = await this.known(storeId, keys);
      if (!identity) {
        await this.hold(storeId, keys[0]!, mapped);
        return { queued: false };
      }
    } else if (keys.length) {
      await this.remember(storeId, keys, identity);
      await this.release(storeId, keys, identity);
    }
    const rateLimit = await this.acceptance.one(storeId, { ...mapped, customer: identity });
    return { queued: true, rateLimit };
  }

  /** Who the visitor is, if an earlier event said: by the storefront's customer id first, then the anonymous id. */
  private async known(storeId: string, keys: readonly VisitorKey[]): Promise<Identity | null> {
    const [row] = await sql<{ email: string | null; phoneNumber: string | null }>(
      this.orm.em.fork(),
      `select email, phone_number as "phoneNumber" from storefront_identity s join unnest($2::text[], $3::text[]) as k(kind, value) on s.kind = k.kind and s.value = k.value
        where s.store_id = $1 order by s.kind = 'storefront_customer' desc, s.updated_at desc limit 1`,
      [storeId, keys.map((k) => k.kind), keys.map((k) => k.value)],
    );
    if (!row) return null;
    return { ...(row.email ? { email: row.email } : {}), ...(row.phoneNumber ? { phoneNumber: row.phoneNumber } : {}) };
  }

  private async remember(storeId: string, keys: readonly VisitorKey[], identity: Identity): Promise<void> {
    await sql(
      this.orm.em.fork(),
      `insert into storefront_identity as s (store_id, kind, value, email, phone_number)
         select $1, k.kind, k.value, $4, $5 from unnest($2::text[], $3::text[]) as k(kind, value) order by k.kind, k.value
       on conflict (store_id, kind, value) do update set email = coalesce(excluded.email, s.email), phone_number = coalesce(excluded.phone_number, s.phone_number), updated_at = now()`,
      [storeId, keys.map((k) => k.kind), keys.map((k) => k.value), identity.email ?? null, identity.phoneNumber ?? null],
    );
  }

  /** The visitor's held events, accepted now in the order they came (one bulk acceptance), then dropped from the hold. */
  private async release(storeId: string, keys: readonly VisitorKey[], identity: Identity): Promise<void> {
    const em = this.orm.em.fork();
    const held = await sql<{ id: string; event: MappedEvent }>(
      em,
      `select p.id, p.event from storefront_pending_event p join unnest($2::text[], $3::text[]) as k(kind, value) on p.kind = k.kind and p.value = k.value
        where p.store_id = $1 and p.received_at > now() - make_interval(days => $4) order by p.received_at, p.id limit $5`,
      [storeId, keys.map((k) => k.kind), keys.map((k) => k.value), HELD_DAYS, EVENT_LIMITS.bulkMax],
    );
    if (!held.length) return;
    // Accepted first, deleted after: a crash between resends them, and their uniqueIds keep each once.
    await this.acceptance.bulk(storeId, { events: held.map((h) => ({ ...h.event, customer: identity })) });
    await sql(em, 'delete from storefront_pending_event where id = any($1)', [held.map((h) => h.id)]);
  }

  private async hold(storeId: string, key: VisitorKey, mapped: MappedEvent): Promise<void> {
    const decision = this.held.consume(storeId);
    if (!decision.allowed) throw rateLimited(EVENTS_RATE_POLICY, decision, EVENTS_RATE_WINDOW_SECONDS);
    await this.orm.em.fork().transactional(async (em) => {
      await sql(em, 'insert into storefront_pending_event (id, store_id, kind, value, event) values ($1, $2, $3, $4, $5)', [newId('event'), storeId, key.kind, key.value, JSON.stringify(mapped)]);
      // The newest events of the visitor are kept; and the store's expired ones go, a batch at a time.
      await sql(
        em,
        `delete from storefront_pending_event where id in (
           select id from storefront_pending_event where store_id = $1 and kind = $2 and value = $3 order by received_at desc, id desc offset $4)`,
        [storeId, key.kind, key.value, HELD_PER_VISITOR],
      );
      await sql(
        em,
        `delete from storefront_pending_event where id in (
           select id from storefront_pending_event where store_id = $1 and received_at <= now() - make_interval(days => $2) limit $3)`,
        [storeId, HELD_DAYS, PURGE_BATCH],
      );
    });
  }
}
