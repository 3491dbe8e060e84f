import type { EntityManager } from '../db/orm.js';
import { sql } from '../db/orm.js';
import type { ErasureSubject } from './subject.js';

/** What later events carrying an erased identifier do: dropped at processing (202, nothing stored), or refused at acceptance (409). */
export const SUPPRESSION_MODES = ['DROP', 'REFUSE'] as const;
export type SuppressionMode = (typeof SUPPRESSION_MODES)[number];

/** What an erasure did to the rows of a kind: deleted them, kept them without the person, or suppressed identifiers. */
export const ERASURE_ACTIONS = ['REMOVED', 'ANONYMISED', 'SUPPRESSED'] as const;
export type ErasureAction = (typeof ERASURE_ACTIONS)[number];

export interface ErasureCount {
  /** The kind of record, named after its table: `customer`, `custom_event`, `order`, `webhook_message`, `job`, ... */
  kind: string;
  action: ErasureAction;
  count: number;
}

/** The erasure a participant works on. */
export interface ErasureWork {
  id: string;
  storeId: string;
  suppression: SuppressionMode;
}

/**
 * The erasure's record of work done, written by each part in the transactions that do the work (on
 * that part's own connection; the tables are the platform's), so a step that crashed and runs again
 * neither loses nor double-counts what it had committed.
 */
export const erasureLedger = {
  async count(em: EntityManager, erasureId: string, counts: readonly ErasureCount[]): Promise<void> {
    const done = counts.filter((c) => c.count > 0);
    if (!done.length) return;
    await sql(
      em,
      `insert into platform.erasure_count as c (erasure_id, kind, action, count)
         select $1, kind, action, n from unnest($2::text[], $3::text[], $4::bigint[]) as t(kind, action, n)
       on conflict (erasure_id, kind, action) do update set count = c.count + excluded.count`,
      [erasureId, done.map((c) => c.kind), done.map((c) => c.action), done.map((c) => c.count)],
    );
  },

  /** The step of `part` is done: in the transaction of its last piece of work. */
  async finish(em: EntityManager, erasureId: string, part: string): Promise<void> {
    await sql(em, 'insert into platform.erasure_step (erasure_id, part) values ($1, $2) on conflict do nothing', [erasureId, part]);
  },
};

export type ErasureLedger = typeof erasureLedger;

/**
 * One part of the service taking a person out of the records it owns. Parts run one after the
 * other, in a fixed order, each once per erasure (a crash resumes at the part that had not
 * finished, which must then be idempotent): the customer data first (events, then returns), then
 * the copies (queued jobs, then webhook messages), so each copy is scrubbed after its source can no
 * longer produce one with the person in it.
 */
export interface ErasureParticipant {
  readonly part: string;
  /** Reads, changing nothing, the identifiers and details its records hold about the subject (the later parts scrub copies with them). */
  collect(work: ErasureWork, subject: ErasureSubject): Promise<Partial<ErasureSubject>>;
  /** Erases, counting with the ledger in each transaction, and finishes its step in the last one. */
  erase(work: ErasureWork, subject: ErasureSubject, ledger: ErasureLedger): Promise<void>;
}

/** How long a store keeps each kind of record (days; null: kept until erased). */
export interface RetentionDays {
  customEventDays: number | null;
  messageDays: number | null;
  flowRunDays: number | null;
  webhookLogDays: number | null;
}

/** The defaults, and the stores that chose otherwise (each with its whole setting). */
export interface RetentionPolicy {
  defaults: RetentionDays;
  stores: { storeId: string; days: RetentionDays }[];
}

/** For one kind of record: the stores keeping it for their own number of days, and the default for all other stores. */
export function retentionGroups(policy: RetentionPolicy, kind: keyof RetentionDays): { stores: { storeId: string; days: number }[]; defaultDays: number | null; except: string[] } {
  return {
    stores: policy.stores.flatMap((s) => {
      const days = s.days[kind];
      return days === null ? [] : [{ storeId: s.storeId, days }];
    }),
    defaultDays: policy.defaults[kind],
    except: policy.stores.map((s) => s.storeId),
  };
}

/** One part removing what is past its store's retention, in short batches; returns how many rows of each kind went. */
export interface RetentionParticipant {
  readonly part: string;
  enforce(policy: RetentionPolicy): Promise<Record<string, number>>;
}

/** What a subgraph (or another part) contributes to privacy requests and retention. */
export interface PrivacyParticipants {
  erasure?: ErasureParticipant;
  retention?: RetentionParticipant;
}

/**
 * The order erasures run the parts in (see ErasureParticipant): the customer data first (events,
 * then returns), then the copies (accepted events not yet processed, jobs, the outbox, webhook
 * messages). Each module declares its participants; this list places them.
 */
const ERASURE_ORDER = ['events', 'storefront', 'returns', 'customer-returns', 'inbox', 'queue', 'outbox', 'webhooks'] as const;

/** Participants sorted into erasure order; a part missing from ERASURE_ORDER is a mistake, not a guess. */
export function inErasureOrder(participants: readonly PrivacyParticipants[]): PrivacyParticipants[] {
  const rank = (p: PrivacyParticipants) => {
    const part = p.erasure?.part ?? p.retention?.part ?? '';
    const i = (ERASURE_ORDER as readonly string[]).indexOf(part);
    if (i < 0) throw new Error(`privacy participant "${part}" has no place in ERASURE_ORDER`);
    return i;
  };
  return [...participants].sort((a, b) => rank(a) - rank(b));
}

/** Rows per batch of a retention or erasure delete: each batch is its own short transaction. */
export const PRIVACY_BATCH = 1000;
