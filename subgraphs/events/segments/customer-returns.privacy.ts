import { sql, type Orm } from '../../../platform/db/orm.js';
import { holdConsumer } from '../../../platform/jobs/outbox-consumers.js';
import type { PrivacyParticipants } from '../../../platform/privacy/participants.js';
import { CUSTOMER_RETURNS_CONSUMER } from './customer-returns.consumer.js';

/**
 * The segments' copy of a person's returns and orders (customer_return, customer_order) goes with
 * them: the rows of orders with their email or phone. After the returns part, which anonymises the
 * sources (a later event of those returns carries no identifier any more). Retention follows the
 * returns' own: these rows live as long as the returns and orders they mirror. The removal holds
 * the consumer's position, as the backfill's pages do (customer-returns-backfill.job.ts): a page
 * read before the returns part anonymised the person is written before this removal, never after.
 */
export function customerReturnsPrivacy(orm: Orm): PrivacyParticipants {
  return {
    erasure: {
      part: 'customer-returns',
      collect: () => Promise.resolve({}),
      erase: (work, subject, ledger) =>
        orm.em.fork().transactional(async (em) => {
          await holdConsumer(em, CUSTOMER_RETURNS_CONSUMER);
          const args = [work.storeId, subject.emails.map((e) => e.toLowerCase()), subject.phones];
          const returns = await sql(em, 'delete from customer_return where store_id = $1 and (email = any($2) or phone = any($3)) returning 1', args);
          const orders = await sql(em, 'delete from customer_order where store_id = $1 and (email = any($2) or phone = any($3)) returning 1', args);
          await ledger.count(em, work.id, [
            { kind: 'customer_return', action: 'REMOVED', count: returns.length },
            { kind: 'customer_order', action: 'REMOVED', count: orders.length },
          ]);
          await ledger.finish(em, work.id, 'customer-returns');
        }),
    },
  };
}
