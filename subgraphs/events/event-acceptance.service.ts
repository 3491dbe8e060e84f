import { AppError, invalid } from '../../platform/errors.js';
import type { Logger } from '../../platform/observability/logger.js';
import { rateLimited, type RateLimitDecision } from '../../platform/api/rate-limit.js';
import type { ModuleDeps } from '../../platform/module.js';
import { EventIngestion, EVENTS_RATE_POLICY, EVENTS_RATE_WINDOW_SECONDS } from './event-ingestion.service.js';
import type { EventInbox } from './event-inbox.service.js';
import { validateBulkEnvelope, validateEvent, type BulkEventsResult, type ValidEvent, type Validation } from './custom-event.schemas.js';
import { RETURN_STATUS_CHANGED } from './flows/return-trigger.js';
import { type CustomerSuppressions } from './customers/customer-suppression.service.js';

export interface RateLimitStatus {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** The bulk answer REST shows (typed by its published schema), and the rate limit's state. */
export interface BulkAcceptance extends BulkEventsResult {
  rateLimit: RateLimitStatus;
}

/** What the backlog guard needs to know: whether accepting more would outrun processing. */
export interface BacklogGuard {
  /** Seconds to retry after when the backlog is too deep, undefined when it is not. */
  retryAfter(): number | undefined;
}

const status = (decision: RateLimitDecision): RateLimitStatus => ({ limit: decision.limit, remaining: decision.remaining, resetSeconds: decision.resetSeconds });

/** Names the service's own events carry (a return's status change, made from the returns' outbox) are not a client's to send. */
function clientEvent(result: Validation<ValidEvent>, at = ''): Validation<ValidEvent> {
  if (result.ok && result.value.eventName === RETURN_STATUS_CHANGED) {
    return { ok: false, errors: [{ pointer: `${at}/eventName`, detail: `${RETURN_STATUS_CHANGED} is sent by the service itself when a return's status changes` }] };
  }
  return result;
}

/** An event naming a customer erased with REFUSE. */
const customerErased = (pointer: string) =>
  new AppError('conflict', 'customer-erased', 'The customer was erased; the store refuses events about them.', { errors: [{ pointer, detail: 'names an erased customer' }] });

/**
 * Accepting custom events: validation, the backlog guard, the per-store rate
 * limit and the durable, group-committed enqueue. The one path REST routes
 * (which call it directly, skipping GraphQL on this hot route) and the
 * `createCustomEvent(s)` mutations share, so both answer the same input the
 * same way. The caller has checked the store and the scope.
 */
export class EventAcceptance {
  constructor(
    private readonly ingestion: EventIngestion,
    private readonly backlog: BacklogGuard,
    /** Customers erased with REFUSE (customer-suppression.service.ts). */
    private readonly suppressions?: Pick<CustomerSuppressions, 'refused'>,
  ) {}

  async one(storeId: string, body: unknown): Promise<RateLimitStatus> {
    const result = clientEvent(validateEvent(body));
    if (!result.ok) throw invalid('validation-failed', 'The event is invalid.', result.errors);
    const [refused] = (await this.suppressions?.refused(storeId, [result.value.customer])) ?? [];
    if (refused) throw customerErased('/customer');
    return status(await this.admit(storeId, [result.value]));
  }

  async bulk(storeId: string, body: unknown): Promise<BulkAcceptance> {
    const envelope = validateBulkEnvelope(body);
    if (!envelope.ok) throw invalid('validation-failed', 'The bulk request is invalid.', envelope.errors);
    const validated = envelope.value.map((event, index) => clientEvent(validateEvent(event, `/events/${index}`), `/events/${index}`));
    const refused = (await this.suppressions?.refused(storeId, validated.flatMap((c) => (c.ok ? [c.value.customer] : [])))) ?? [];
    let next = 0;
    const checked = validated.map((c, index) => (c.ok && refused[next++] ? { ok: false as const, erased: customerErased(`/events/${index}/customer`) } : c));
    const valid = checked.flatMap((c) => (c.ok ? [c.value] : []));
    const decision = await this.admit(storeId, valid);
    return {
      accepted: valid.length,
      rejected: checked.length - valid.length,
      results: checked.map((c, index) => {
        if (c.ok) return { index, status: 'queued' };
        const error = 'erased' in c ? { detail: c.erased.message, errors: c.erased.errors! } : { detail: 'The event is invalid.', errors: c.errors };
        return { index, status: 'rejected', error };
      }),
      rateLimit: status(decision),
    };
  }

  private async admit(storeId: string, events: ValidEvent[]): Promise<RateLimitDecision> {
    const retryAfter = this.backlog.retryAfter();
    if (retryAfter !== undefined) {
      throw new AppError('unavailable', 'service-unavailable', 'Events are arriving faster than they can be processed; retry later.', { headers: { 'Retry-After': String(retryAfter) } });
    }
    const admission = await this.ingestion.submit(storeId, events);
    if (!admission.queued) throw rateLimited(EVENTS_RATE_POLICY, admission.decision, EVENTS_RATE_WINDOW_SECONDS);
    return admission.decision;
  }
}

/**
 * The backlog guard of event creation: accepting stops (503 with
 * `Retry-After`) while more than `limit` accepted events wait for processing,
 * rather than taking in what cannot be processed in time. The depth is read
 * at most once a second, lazily, with a count that stops at the limit.
 */
class EventBacklog implements BacklogGuard {
  private deep = false;
  private checkedAt = 0;
  private checking = false;

  constructor(
    private readonly inbox: EventInbox,
    private readonly limit: number,
    private readonly logger: Logger,
  ) {}

  retryAfter(): number | undefined {
    if (this.limit > 0 && Date.now() - this.checkedAt >= 1000 && !this.checking) void this.check();
    return this.deep ? BACKLOG_RETRY_AFTER_SECONDS : undefined;
  }

  /** Reads the depth now (tests and the first request do not wait for the next second). */
  async check(): Promise<void> {
    this.checking = true;
    try {
      const { waiting } = await this.inbox.over(this.limit);
      const deep = waiting > this.limit;
      if (deep !== this.deep) this.logger.warn({ waiting, limit: this.limit }, deep ? 'event backlog over its limit: refusing new events' : 'event backlog back under its limit');
      this.deep = deep;
    } catch (err) {
      this.logger.warn({ err }, 'event backlog check failed');
    } finally {
      this.checkedAt = Date.now();
      this.checking = false;
    }
  }
}

const BACKLOG_RETRY_AFTER_SECONDS = 5;

/** The one acceptance path of a process (the REST routes and the mutations share its batches): made once, with the module's services. */
export function eventAcceptance(deps: ModuleDeps, inbox: EventInbox, suppressions: CustomerSuppressions): EventAcceptance {
  const ingestion = new EventIngestion(deps.orm, inbox, deps.logger, { limitPerSecond: deps.config.eventsRateLimitPerSecond });
  const backlog = new EventBacklog(inbox, deps.config.eventsMaxBacklog, deps.logger);
  return new EventAcceptance(ingestion, backlog, suppressions);
}
