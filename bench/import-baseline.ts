import { randomUUID } from 'node:crypto';
import express from 'express';
import pg from 'pg';
import { hashSecret } from '../platform/accounts/credentials.js';
import { serveBaseline } from './support/baseline.js';

/**
 * The baseline of `bench:import`: a hand-written Express + pg handler for
 * `POST /v2.2/stores/:storeId/returns/bulk` that writes what the service writes for a batch (keys
 * claimed, an order with its lines per return, the return, its items, its tags) with the same
 * set-based statements in one transaction, and answers the same results, without validation,
 * GraphQL or the REST pipeline. It still checks the API secret, as any real handler must.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();
app.use(express.json({ limit: '10mb' }));

interface Imported {
  products: { productId: string; quantity: number; reason?: string; condition?: string }[];
  customer?: { firstName?: string; lastName?: string; email?: string };
  externalReferenceId: string;
  trackingNumber?: string;
  carrier?: string;
  currency?: string;
  shippingAddress?: { line1: string; city: string; state?: string; postalCode?: string; country: string };
  status: string;
  createdAt: string;
  updatedAt: string;
  externalProvider?: string;
  tags?: string[];
}

const CLOSED = ['complete', 'rejected', 'deleted'];
const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;

app.post('/v2.2/stores/:storeId/returns/bulk', async (req, res) => {
  const storeId = req.params.storeId;
  const token = req.headers.authorization?.replace(/^Bearer\s+/i, '') ?? '';
  const { rows: secrets } = await pool.query(
    `select 1 from platform.api_secret s join platform.store st on st.account_id = s.account_id where s.hash = $1 and s.revoked_at is null and st.id = $2`,
    [hashSecret(token), storeId],
  );
  if (!secrets.length) return res.status(401).end();
  const returns = (req.body as { returns: Imported[] }).returns;
  const { rows: facts } = await pool.query<{ productId: string; sku: string; title: string; variantTitle: string | null }>(
    `select product_id as "productId", sku, title, variant_title as "variantTitle" from returns.product_fact where store_id = $1 and product_id = any($2)`,
    [storeId, [...new Set(returns.flatMap((r) => r.products.map((p) => p.productId)))]],
  );
  const fact = new Map(facts.map((f) => [f.productId, f]));
  const planned = returns.map((r) => ({ r, returnId: id('ret'), orderId: id('ord'), lines: r.products.map((p) => ({ p, lineId: id('oli'), itemId: id('rti') })) }));
  const db = await pool.connect();
  try {
    await db.query('begin');
    const claimed = new Set(
      (
        await db.query<{ key: string }>(
          `insert into returns.return_import_key (store_id, key, return_id) select $1, k, r from unnest($2::text[], $3::text[]) as t(k, r) order by k on conflict do nothing returning key`,
          [storeId, planned.map((p) => `ref:${p.r.externalReferenceId}`), planned.map((p) => p.returnId)],
        )
      ).rows.map((k) => k.key),
    );
    const fresh = planned.filter((p) => claimed.has(`ref:${p.r.externalReferenceId}`));
    const source = (r: Imported) => ({
      emailAddress: r.customer?.email ?? null,
      mailingAddress: r.shippingAddress ? { line1: r.shippingAddress.line1, line2: null, city: r.shippingAddress.city, state: r.shippingAddress.state ?? null, postalCode: r.shippingAddress.postalCode ?? null, country: r.shippingAddress.country } : null,
      name: { given: r.customer?.firstName ?? null, surname: r.customer?.lastName ?? null },
      phoneNumber: null,
    });
    await db.query(
      `insert into returns."order" (id, store_id, provider, external_id, name, currency, customer_email, customer_first_name, customer_last_name, shipping_address, created_at, updated_at, imported_at)
       select o, $1, 'import', r, '', c, e, f, l, a, t, u, now() from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[], $9::timestamptz[], $10::timestamptz[]) as x(o, r, c, e, f, l, a, t, u)`,
      [
        storeId,
        fresh.map((p) => p.orderId),
        fresh.map((p) => p.returnId),
        fresh.map((p) => p.r.currency ?? 'USD'),
        fresh.map((p) => p.r.customer?.email ?? null),
        fresh.map((p) => p.r.customer?.firstName ?? null),
        fresh.map((p) => p.r.customer?.lastName ?? null),
        fresh.map((p) => JSON.stringify(source(p.r).mailingAddress)),
        fresh.map((p) => p.r.createdAt),
        fresh.map((p) => p.r.updatedAt),
      ],
    );
    const lines = fresh.flatMap((p) => p.lines.map((l, position) => ({ p, l, position })));
    await db.query(
      `insert into returns.order_line_item (id, order_id, external_id, position, product_id, sku, title, variant_title, quantity, price)
       select * , 0 from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[])`,
      [
        lines.map((x) => x.l.lineId),
        lines.map((x) => x.p.orderId),
        lines.map((x) => String(x.position + 1)),
        lines.map((x) => x.position),
        lines.map((x) => x.l.p.productId),
        lines.map((x) => fact.get(x.l.p.productId)?.sku ?? null),
        lines.map((x) => fact.get(x.l.p.productId)?.title ?? null),
        lines.map((x) => fact.get(x.l.p.productId)?.variantTitle ?? null),
        lines.map((x) => x.l.p.quantity),
      ],
    );
    await db.query(
      `insert into returns.return (id, store_id, order_id, status, type, provider, order_name, currency, source, destination, compensation_methods, shipment, shipments, created_at, updated_at, closed_at, imported_at, external_reference_id, external_provider)
       select i, $1, o, s, 'return', 'import', '', c, src, '{"mailingAddress":null,"phoneNumber":null}', '{refund}', sh, jsonb_build_array(sh), t, u, case when s = any($12) then u end, now(), ref, prov
         from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[], $8::timestamptz[], $9::timestamptz[], $10::text[], $11::text[]) as x(i, o, s, c, src, sh, t, u, ref, prov)`,
      [
        storeId,
        fresh.map((p) => p.returnId),
        fresh.map((p) => p.orderId),
        fresh.map((p) => p.r.status),
        fresh.map((p) => p.r.currency ?? 'USD'),
        fresh.map((p) => JSON.stringify(source(p.r))),
        fresh.map((p) => JSON.stringify({ carrier: p.r.carrier ?? null, status: 'label_created', tracker: p.r.trackingNumber, itemIds: [] })),
        fresh.map((p) => p.r.createdAt),
        fresh.map((p) => p.r.updatedAt),
        fresh.map((p) => p.r.externalReferenceId),
        fresh.map((p) => p.r.externalProvider ?? null),
        CLOSED,
      ],
    );
    await db.query(
      `insert into returns.return_item (id, return_id, order_line_item_id, position, quantity, reason, compensation, refund_amount, product_value, grade, outcome, restock)
       select i, r, l, pos, q, reason, 'refund', 0, 0, g, case s when 'complete' then 'refund' when 'rejected' then 'rejected' end, not (s = any($10))
         from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[]) as x(i, r, l, pos, q, reason, g, s, unused)`,
      [
        lines.map((x) => x.l.itemId),
        lines.map((x) => x.p.returnId),
        lines.map((x) => x.l.lineId),
        lines.map((x) => x.position),
        lines.map((x) => x.l.p.quantity),
        lines.map((x) => x.l.p.reason ?? ''),
        lines.map((x) => x.l.p.condition ?? null),
        lines.map((x) => x.p.r.status),
        lines.map(() => null),
        CLOSED,
      ],
    );
    const tagged = fresh.filter((p) => p.r.tags?.length);
    if (tagged.length) {
      await db.query(`insert into returns.return_tag (id, store_id, name, pill_theme) values ($1, $2, 'Migrated', 'NORMAL') on conflict do nothing`, [id('rtg'), storeId]);
      await db.query(
        `insert into returns.return_tag_link (return_id, tag_id) select r, t.id from unnest($1::text[]) as r, returns.return_tag t where t.store_id = $2 and t.name = 'Migrated'`,
        [tagged.map((p) => p.returnId), storeId],
      );
    }
    await db.query('commit');
    const results = planned.map((p, index) => ({ status: 'created', index, returnId: p.returnId }));
    res.json({ totalCount: returns.length, processedCount: results.length, errorCount: 0, results });
  } catch (err) {
    await db.query('rollback');
    res.status(500).json({ error: String(err) });
  } finally {
    db.release();
  }
});

app.get('/readyz', (_req, res) => {
  res.json({ status: 'ready' });
});

await serveBaseline(app, pool);
