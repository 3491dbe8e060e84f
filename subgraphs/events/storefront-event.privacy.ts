import { sql, type Orm } from '../../platform/db/orm.js';
import type { ErasureParticipant, PrivacyParticipants } from '../../platform/privacy/participants.js';

/**
 * Storefront events' part in erasures: the visitor ids remembered with the person's email or phone
 * go, with the events held for those visitors (a later event of theirs then starts anonymous).
 * Held events are never kept beyond 30 days, so retention has nothing to add.
 */
export function storefrontPrivacy(orm: Orm): PrivacyParticipants {
  const erasure: ErasureParticipant = {
    part: 'storefront',
    collect: () => Promise.resolve({}),
    erase: (work, subject, ledger) =>
      orm.em.fork().transactional(async (em) => {
        const visitors = await sql<{ kind: string; value: string }>(
          em,
          `delete from storefront_identity where store_id = $1 and (lower(email) = any($2) or phone_number = any($3)) returning kind, value`,
          [work.storeId, subject.emails.map((e) => e.toLowerCase()), subject.phones],
        );
        const held = visitors.length
          ? await sql(
              em,
              `delete from storefront_pending_event p using unnest($2::text[], $3::text[]) as k(kind, value)
                where p.store_id = $1 and p.kind = k.kind and p.value = k.value returning p.id`,
              [work.storeId, visitors.map((v) => v.kind), visitors.map((v) => v.value)],
            )
          : [];
        await ledger.count(em, work.id, [
          { kind: 'storefront_identity', action: 'REMOVED', count: visitors.length },
          { kind: 'storefront_pending_event', action: 'REMOVED', count: held.length },
        ]);
        await ledger.finish(em, work.id, 'storefront');
      }),
  };
  return { erasure };
}
