import { sql, type EntityManager, type Orm } from '../../platform/db/orm.js';
import { scrubRows } from '../../platform/privacy/batches.js';
import { PRIVACY_BATCH, type ErasureLedger, type ErasureParticipant, type ErasureWork, type PrivacyParticipants } from '../../platform/privacy/participants.js';
import { identifierPattern, scrubJson, scrubText, type ErasureSubject } from '../../platform/privacy/subject.js';
import type { Address } from './order.rows.js';

interface OrderCustomer {
  id: string;
  email: string | null;
  phone: string | null;
  firstName: string | null;
  lastName: string | null;
  /** The orders API's full name of the customer and their billing address. */
  name: string | null;
  address: Address | null;
  billing: Address | null;
}

interface ReturnSource {
  id: string;
  source: { emailAddress?: string | null; phoneNumber?: string | null; name?: { given?: string | null; surname?: string | null }; mailingAddress?: Address | null };
}

/** What an anonymised return shows as its source: every field empty, as for an order without a customer. */
const ERASED_SOURCE = { emailAddress: null, mailingAddress: null, name: { given: null, surname: null }, phoneNumber: null };

const addressDetails = (a: Address | null | undefined) => [a?.line1, a?.line2, a?.postalCode].filter((v): v is string => !!v);

/**
 * The returns subgraph's part in erasures. Orders and returns are financial records: they stay,
 * without the person (email, phone, name and addresses cleared, `erased_at` set, the customer's own
 * comments on items cleared), and whatever free text of the store's returns mentions an identifier
 * (merchant comments, notes, processing bodies on the timeline) is scrubbed. Matched as
 * `Customer.returns` matches: the order's customer email or phone, or the return's source.
 */
export class ReturnsPrivacy {
  constructor(private readonly orm: Orm) {}

  participants(): PrivacyParticipants {
    return { erasure: { part: 'returns', collect: (work, subject) => this.collect(work, subject), erase: (work, subject, ledger) => this.erase(work, subject, ledger) } satisfies ErasureParticipant };
  }

  private orders(work: ErasureWork, subject: ErasureSubject): Promise<OrderCustomer[]> {
    return sql<OrderCustomer>(
      this.orm.em.fork(),
      `select id, customer_email as email, customer_phone as phone, customer_first_name as "firstName", customer_last_name as "lastName", customer_name as name,
              shipping_address as address, billing_address as billing
         from "order" where store_id = $1 and (lower(customer_email) = any($2) or customer_phone = any($3)) order by id`,
      [work.storeId, subject.emails, subject.phones],
    );
  }

  private returns(work: ErasureWork, subject: ErasureSubject, orderIds: string[]): Promise<ReturnSource[]> {
    return sql<ReturnSource>(
      this.orm.em.fork(),
      `select id, source from return where store_id = $1 and (order_id = any($4) or lower(source->>'emailAddress') = any($2) or source->>'phoneNumber' = any($3)) order by id`,
      [work.storeId, subject.emails, subject.phones, orderIds],
    );
  }

  private async collect(work: ErasureWork, subject: ErasureSubject): Promise<Partial<ErasureSubject>> {
    const orders = await this.orders(work, subject);
    const returns = await this.returns(work, subject, orders.map((o) => o.id));
    const sources = returns.map((r) => r.source);
    return {
      emails: [...orders.map((o) => o.email), ...sources.map((s) => s.emailAddress)].filter((v): v is string => !!v),
      phones: [...orders.map((o) => o.phone), ...sources.map((s) => s.phoneNumber)].filter((v): v is string => !!v),
      details: [
        ...orders.flatMap((o) => [o.firstName, o.lastName, o.name, ...addressDetails(o.address), ...addressDetails(o.billing)]),
        ...sources.flatMap((s) => [s.name?.given, s.name?.surname, ...addressDetails(s.mailingAddress)]),
      ].filter((v): v is string => !!v),
    };
  }

  private async erase(work: ErasureWork, subject: ErasureSubject, ledger: ErasureLedger): Promise<void> {
    const orderIds = (await this.orders(work, subject)).map((o) => o.id);
    const returnIds = (await this.returns(work, subject, orderIds)).map((r) => r.id);
    for (let i = 0; i < orderIds.length; i += PRIVACY_BATCH) {
      const batch = orderIds.slice(i, i + PRIVACY_BATCH);
      await this.orm.em.fork().transactional(async (em) => {
        const changed = await sql(
          em,
          `update "order" set customer_email = null, customer_phone = null, customer_first_name = null, customer_last_name = null, shipping_address = null,
                  customer_external_id = null, customer_name = null, billing_address = null, erased_at = now(), updated_at = now() where id = any($1) returning id`,
          [batch],
        );
        await ledger.count(em, work.id, [{ kind: 'order', action: 'ANONYMISED', count: changed.length }]);
      });
    }
    for (let i = 0; i < returnIds.length; i += PRIVACY_BATCH) {
      const batch = returnIds.slice(i, i + PRIVACY_BATCH);
      await this.orm.em.fork().transactional(async (em) => {
        const changed = await sql(em, `update return set source = $2, erased_at = now(), updated_at = now(), version = version + 1 where id = any($1) returning id`, [batch, JSON.stringify(ERASED_SOURCE)]);
        const comments = await sql(em, `update return_item set customer_comment = null where return_id = any($1) and customer_comment is not null returning id`, [batch]);
        await ledger.count(em, work.id, [
          { kind: 'return', action: 'ANONYMISED', count: changed.length },
          { kind: 'return_item', action: 'ANONYMISED', count: comments.length },
        ]);
      });
    }
    await this.scrubMentions(work, subject, ledger);
    await this.orm.em.fork().transactional((em) => ledger.finish(em, work.id, 'returns'));
  }

  /** Free text of the store's returns (any customer's) that mentions an identifier. */
  private async scrubMentions(work: ErasureWork, subject: ErasureSubject, ledger: ErasureLedger): Promise<void> {
    const pattern = identifierPattern(subject);
    if (!pattern) return;
    const counted = (kind: string) => (em: EntityManager, count: number) => ledger.count(em, work.id, [{ kind, action: 'ANONYMISED', count }]);
    const text = (v: string | null) => (v === null ? null : scrubText(v, subject));
    await scrubRows<{ id: string; notes: string | null; shipment: unknown; shipments: unknown }>(
      this.orm,
      { text: `select id, notes, shipment, shipments from return where store_id = $1 and (notes ~* $2 or shipment::text ~* $2 or shipments::text ~* $2)`, params: [work.storeId, pattern] },
      (r) => ({ id: r.id, notes: text(r.notes), shipment: scrubJson(r.shipment, subject), shipments: scrubJson(r.shipments, subject) }),
      'update return t set notes = v.notes, shipment = v.shipment, shipments = v.shipments from jsonb_to_recordset($1::jsonb) as v(id text, notes text, shipment jsonb, shipments jsonb) where t.id = v.id',
      counted('return'),
    );
    await scrubRows<{ id: string; message: string; image: string | null }>(
      this.orm,
      { text: `select c.id, c.message, c.image from return_comment c join return r on r.id = c.return_id where r.store_id = $1 and c.message ~* $2`, params: [work.storeId, pattern] },
      (r) => ({ ...r, message: scrubText(r.message, subject) }),
      'update return_comment t set message = v.message from jsonb_to_recordset($1::jsonb) as v(id text, message text) where t.id = v.id',
      counted('return_comment'),
    );
    await scrubRows<{ id: string; detail: unknown }>(
      this.orm,
      { text: `select t.id, t.detail from return_timeline t join return r on r.id = t.return_id where r.store_id = $1 and t.detail::text ~* $2`, params: [work.storeId, pattern] },
      (r) => ({ id: r.id, detail: scrubJson(r.detail, subject) }),
      'update return_timeline t set detail = v.detail from jsonb_to_recordset($1::jsonb) as v(id text, detail jsonb) where t.id = v.id',
      counted('return_timeline'),
    );
  }
}
