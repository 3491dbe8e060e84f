import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { affected, inBatches, retentionScopes, scrubRows } from '../../../platform/privacy/batches.js';
import type { ErasureLedger, ErasureParticipant, ErasureWork, PrivacyParticipants, RetentionPolicy } from '../../../platform/privacy/participants.js';
import { identifierPattern, scrubJson, scrubText, type ErasureSubject } from '../../../platform/privacy/subject.js';
import { lockStoreExclusive, type CustomerSuppressions } from './customer-suppression.service.js';
import { dropExpiredPartitions } from '../custom-event-partitions.job.js';

interface ProfileRow {
  id: string;
  email: string | null;
  phoneNumber: string | null;
  firstName: string | null;
  lastName: string | null;
  location: Record<string, unknown> | null;
}

/** The store's customers holding one of the subject's identifiers. */
async function profiles(em: EntityManager, storeId: string, subject: ErasureSubject): Promise<ProfileRow[]> {
  return sql<ProfileRow>(
    em,
    `select id, email, phone_number as "phoneNumber", first_name as "firstName", last_name as "lastName", location from customer
      where store_id = $1 and (id = any($2) or lower(email) = any($3) or phone_number = any($4)
        or id in (select m.into_id from customer_merge m where m.store_id = $1 and m.merged_id = any($2))) order by id`,
    [storeId, subject.customerIds, subject.emails, subject.phones],
  );
}

/** Events (by id) with what hangs on them: their runs and those runs' steps, their uniqueId claims. */
async function deleteEvents(em: EntityManager, eventIds: readonly string[]): Promise<Record<string, number>> {
  if (!eventIds.length) return {};
  return {
    flow_run_step: await affected(em, 'delete from flow_run_step s using flow_run r where r.id = s.run_id and r.event_id = any($1)', [eventIds]),
    flow_run: await affected(em, 'delete from flow_run where event_id = any($1)', [eventIds]),
    unique_id: await affected(em, 'delete from custom_event_unique_id where event_id = any($1)', [eventIds]),
    custom_event: await affected(em, 'delete from custom_event where id = any($1)', [eventIds]),
  };
}

async function deleteRuns(em: EntityManager, runIds: readonly string[]): Promise<Record<string, number>> {
  if (!runIds.length) return {};
  return {
    flow_run_step: await affected(em, 'delete from flow_run_step where run_id = any($1)', [runIds]),
    flow_run: await affected(em, 'delete from flow_run where id = any($1)', [runIds]),
  };
}

const removed = (counts: Record<string, number>) => Object.entries(counts).map(([kind, count]) => ({ kind, action: 'REMOVED' as const, count }));

function add(total: Record<string, number>, counts: Record<string, number>): void {
  for (const [kind, count] of Object.entries(counts)) total[kind] = (total[kind] ?? 0) + count;
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

/**
 * The events subgraph's part in privacy requests: the erased customer's profile, events, uniqueId
 * claims, flow runs and messages are deleted, the identifiers suppressed, and other customers'
 * rows that mention the person scrubbed; retention deletes old events, messages and finished runs.
 */
export class EventsPrivacy {
  constructor(
    private readonly orm: Orm,
    private readonly suppressions: CustomerSuppressions,
  ) {}

  participants(): PrivacyParticipants {
    return {
      erasure: {
        part: 'events',
        collect: (work, subject) => this.collect(work, subject),
        erase: (work, subject, ledger) => this.erase(work, subject, ledger),
      } satisfies ErasureParticipant,
      retention: { part: 'events', enforce: (policy) => this.enforce(policy) },
    };
  }

  private async collect(work: ErasureWork, subject: ErasureSubject): Promise<Partial<ErasureSubject>> {
    const found = await profiles(this.orm.em.fork(), work.storeId, subject);
    const location = (p: ProfileRow) => ['street1', 'street2', 'postalCode'].map((k) => p.location?.[k]).filter((v): v is string => typeof v === 'string');
    return {
      customerIds: found.map((p) => p.id),
      emails: found.flatMap((p) => (p.email ? [p.email] : [])),
      phones: found.flatMap((p) => (p.phoneNumber ? [p.phoneNumber] : [])),
      details: found.flatMap((p) => [p.firstName, p.lastName, ...location(p)].filter((v): v is string => !!v)),
    };
  }

  /**
   * Most rows go in batches (short transactions), while events may still arrive; then one
   * transaction under the store's erasure lock takes what is left, the profiles themselves, and adds
   * the suppressions, so no event processed after it can re-create the customer.
   */
  private async erase(work: ErasureWork, subject: ErasureSubject, ledger: ErasureLedger): Promise<void> {
    const customerIds = ids(await profiles(this.orm.em.fork(), work.storeId, subject));
    await inBatches(this.orm, async (em, limit) => {
      const batch = ids(await sql<{ id: string }>(em, 'select id from custom_event where customer_id = any($1) limit $2', [customerIds, limit]));
      await ledger.count(em, work.id, removed(await deleteEvents(em, batch)));
      return batch.length;
    });
    await inBatches(this.orm, async (em, limit) => {
      const n = await affected(em, 'delete from message where id in (select id from message where customer_id = any($1) limit $2)', [customerIds, limit]);
      await ledger.count(em, work.id, removed({ message: n }));
      return n;
    });
    await this.scrubMentions(work, subject, customerIds, ledger);

    await this.suppressions.ready();
    await this.orm.em.fork().transactional(async (em) => {
      await lockStoreExclusive(em, work.storeId);
      const last = ids(await profiles(em, work.storeId, subject));
      const events = ids(await sql<{ id: string }>(em, 'select id from custom_event where customer_id = any($1) for update', [last]));
      const runs = ids(await sql<{ id: string }>(em, 'select id from flow_run where customer_id = any($1) for update', [last]));
      const counts: Record<string, number> = {};
      add(counts, await deleteRuns(em, runs));
      add(counts, await deleteEvents(em, events));
      // After the runs: a step that was sending when they were locked has committed its message by now.
      add(counts, { message: await affected(em, 'delete from message where customer_id = any($1)', [last]) });
      const mergedIds = ids(await sql<{ id: string }>(em, 'select merged_id as id from customer_merge where into_id = any($1)', [last]));
      // Consent goes with the person: its current state, its history, channel suppressions, and merged profiles' ids.
      add(counts, {
        consent_change: await affected(em, 'delete from consent_change where customer_id = any($1)', [last]),
        customer_consent: await affected(em, 'delete from customer_consent where customer_id = any($1)', [last]),
        customer_channel_suppression: await affected(em, 'delete from customer_channel_suppression where customer_id = any($1)', [last]),
        customer_merge: await affected(em, 'delete from customer_merge where into_id = any($1) or merged_id = any($1)', [last]),
      });
      add(counts, { customer: await affected(em, 'delete from customer where id = any($1)', [last]) });
      const suppressed = await this.suppressions.add(em, work.storeId, { ...subject, customerIds: [...new Set([...subject.customerIds, ...last, ...mergedIds])] }, work.id, work.suppression);
      await ledger.count(em, work.id, [...removed(counts), { kind: 'suppression', action: 'SUPPRESSED', count: suppressed }]);
      await ledger.finish(em, work.id, 'events');
    });
  }

  /** Other customers' rows of the store that mention one of the person's identifiers (a referral's email in an event's data, say). */
  private async scrubMentions(work: ErasureWork, subject: ErasureSubject, customerIds: string[], ledger: ErasureLedger): Promise<void> {
    const pattern = identifierPattern(subject);
    if (!pattern) return;
    const params = [work.storeId, pattern, customerIds];
    const counted = (kind: string) => (em: EntityManager, count: number) => ledger.count(em, work.id, [{ kind, action: 'ANONYMISED', count }]);
    const text = (v: string | null) => (v === null ? null : scrubText(v, subject));
    await scrubRows<{ id: string; data: unknown; extra: unknown }>(
      this.orm,
      { text: `select id, data, extra from custom_event where store_id = $1 and not (customer_id = any($3)) and (data::text ~* $2 or coalesce(extra::text, '') ~* $2)`, params },
      (r) => ({ id: r.id, data: scrubJson(r.data, subject), extra: scrubJson(r.extra, subject) }),
      'update custom_event t set data = v.data, extra = v.extra from jsonb_to_recordset($1::jsonb) as v(id text, data jsonb, extra jsonb) where t.id = v.id',
      counted('custom_event'),
    );
    await scrubRows<{ id: string; customFields: unknown }>(
      this.orm,
      { text: `select id, custom_fields as "customFields" from customer where store_id = $1 and not (id = any($3)) and custom_fields::text ~* $2`, params },
      (r) => ({ id: r.id, customFields: scrubJson(r.customFields, subject) }),
      `update customer t set custom_fields = v."customFields" from jsonb_to_recordset($1::jsonb) as v(id text, "customFields" jsonb) where t.id = v.id`,
      counted('customer'),
    );
    await scrubRows<{ id: string; to: string; subject: string | null; body: string }>(
      this.orm,
      { text: `select id, "to", subject, body from message where store_id = $1 and not (customer_id = any($3)) and ("to" ~* $2 or coalesce(subject, '') ~* $2 or body ~* $2)`, params },
      (r) => ({ id: r.id, to: scrubText(r.to, subject), subject: text(r.subject), body: scrubText(r.body, subject) }),
      'update message t set "to" = v."to", subject = v.subject, body = v.body from jsonb_to_recordset($1::jsonb) as v(id text, "to" text, subject text, body text) where t.id = v.id',
      counted('message'),
    );
    await scrubRows<{ runId: string; path: string; detail: string | null }>(
      this.orm,
      {
        text: `select s.run_id as "runId", s.path, s.detail from flow_run_step s join flow_run r on r.id = s.run_id where r.store_id = $1 and not (r.customer_id = any($3)) and s.detail ~* $2`,
        params,
      },
      (r) => ({ ...r, detail: text(r.detail) }),
      'update flow_run_step t set detail = v.detail from jsonb_to_recordset($1::jsonb) as v("runId" text, path text, detail text) where t.run_id = v."runId" and t.path = v.path',
      counted('flow_run_step'),
    );
  }

  /**
   * Retention: events received longer ago than their store keeps them (never one a flow is still
   * running for): whole months first (custom-event-partitions.job.ts), then the rows of the months
   * at the edge; messages, and finished flow runs with their steps. Batches of a thousand.
   */
  private async enforce(policy: RetentionPolicy): Promise<Record<string, number>> {
    const total: Record<string, number> = {};
    add(total, await dropExpiredPartitions(this.orm, policy));
    const before = 'now() - make_interval(days => $2::int)';
    for (const scope of retentionScopes(policy, 'customEventDays', 'e.store_id')) {
      await inBatches(this.orm, async (em, limit) => {
        const batch = await sql<{ id: string }>(
          em,
          `select e.id from custom_event e where ${scope.where} and e.received_at < ${before}
              and not exists (select 1 from flow_run r where r.event_id = e.id and r.status in ('RUNNING', 'WAITING'))
            limit ${limit}`,
          scope.params,
        );
        add(total, await deleteEvents(em, ids(batch)));
        return batch.length;
      });
    }
    for (const scope of retentionScopes(policy, 'messageDays', 'store_id')) {
      await inBatches(this.orm, async (em, limit) => {
        const n = await affected(em, `delete from message where id in (select id from message where ${scope.where} and created_at < ${before} limit ${limit})`, scope.params);
        add(total, { message: n });
        return n;
      });
    }
    for (const scope of retentionScopes(policy, 'flowRunDays', 'store_id')) {
      await inBatches(this.orm, async (em, limit) => {
        const runs = await sql<{ id: string }>(em, `select id from flow_run where ${scope.where} and finished_at < ${before} and status in ('COMPLETED', 'FAILED', 'EXITED') limit ${limit}`, scope.params);
        add(total, await deleteRuns(em, ids(runs)));
        return runs.length;
      });
    }
    return total;
  }
}
