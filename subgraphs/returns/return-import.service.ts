import type { EntityManager } from '@mikro-orm/postgresql';
import { BulkInsert } from '../../platform/db/bulk-insert.js';
import { sql, type Orm } from '../../platform/db/orm.js';
import { newId } from '../../platform/ids.js';
import type { FieldError } from '../../platform/errors.js';
import { check, violationsOf } from '../../platform/validation/index.js';
import type { Address } from './order.rows.js';
import { ReturnCreated, type ReturnEvents } from './return.events.js';
import type { ReturnSource, Shipment } from './return.rows.js';
import { CLOSED_STATUSES, type ReturnStatus } from './return.rules.js';
import { BulkReturnsEnvelopeSchema, ImportedReturnSchema, type BulkReturnsResult, type ImportAddress, type ImportedReturn } from './return-import.schemas.js';
import type { ReturnTagService } from './return-tag.service.js';
import type { StoreSettingsService } from './store-settings.service.js';

/** What the returns subgraph knows of an inventory product (its copy, from `product.upserted`). */
interface ProductFact {
  productId: string;
  sku: string;
  title: string | null;
  variantTitle: string | null;
  upc: string | null;
}

/** One return to create: its ids, times and documents, decided before anything is written. */
interface Planned {
  storeId: string;
  index: number;
  input: ImportedReturn;
  key: string | null;
  returnId: string;
  orderId: string;
  status: ReturnStatus;
  createdAt: Date;
  updatedAt: Date;
  closedAt: Date | null;
  source: ReturnSource;
  destination: { mailingAddress: Address | null; phoneNumber: string | null };
  shipment: Shipment | null;
  lines: { id: string; itemId: string; product: ImportedReturn['products'][number]; fact: ProductFact | undefined }[];
}

const addressOf = (a: ImportAddress | undefined): Address | null =>
  a ? { line1: a.line1, line2: a.line2 ?? null, city: a.city, state: a.state ?? null, postalCode: a.postalCode ?? null, country: a.country } : null;

/** The import's identity: its reference in the other system, else its idempotency key. */
const keyOf = (r: ImportedReturn): string | null => (r.externalReferenceId !== undefined ? `ref:${r.externalReferenceId}` : r.idempotencyKey !== undefined ? `key:${r.idempotencyKey}` : null);

const IMPORTED_ORDERS = new BulkInsert<Planned>('"order"', [
  { name: 'id', type: 'text', value: (p) => p.orderId },
  { name: 'store_id', type: 'text', value: (p) => p.storeId },
  { name: 'provider', sql: "'import'" },
  // The order made for an imported return is named by nothing of the store's: its return's id.
  { name: 'external_id', type: 'text', value: (p) => p.returnId },
  { name: 'name', sql: "''" },
  { name: 'currency', type: 'text', value: (p) => p.input.currency ?? 'USD' },
  { name: 'customer_email', type: 'text', value: (p) => p.input.customer?.email ?? null },
  { name: 'customer_phone', type: 'text', value: (p) => p.source.phoneNumber },
  { name: 'customer_first_name', type: 'text', value: (p) => p.source.name.given },
  { name: 'customer_last_name', type: 'text', value: (p) => p.source.name.surname },
  { name: 'shipping_address', type: 'jsonb', value: (p) => (p.source.mailingAddress ? JSON.stringify(p.source.mailingAddress) : null) },
  { name: 'created_at', type: 'timestamptz', value: (p) => p.createdAt },
  { name: 'updated_at', type: 'timestamptz', value: (p) => p.updatedAt },
  { name: 'imported_at', sql: 'now()' },
]);

interface ImportedItem {
  plan: Planned;
  line: Planned['lines'][number];
  position: number;
}

const IMPORTED_RETURNS = new BulkInsert<Planned>('return', [
  { name: 'id', type: 'text', value: (p) => p.returnId },
  { name: 'store_id', type: 'text', value: (p) => p.storeId },
  { name: 'order_id', type: 'text', value: (p) => p.orderId },
  { name: 'status', type: 'text', value: (p) => p.status },
  { name: 'type', type: 'text', value: (p) => p.input.type ?? 'return' },
  { name: 'provider', sql: "'import'" },
  { name: 'order_name', sql: "''" },
  { name: 'currency', type: 'text', value: (p) => p.input.currency ?? 'USD' },
  { name: 'source', type: 'jsonb', value: (p) => JSON.stringify(p.source) },
  { name: 'destination', type: 'jsonb', value: (p) => JSON.stringify(p.destination) },
  { name: 'notes', type: 'text', value: (p) => p.input.notes || null },
  { name: 'compensation_methods', sql: "'{refund}'" },
  { name: 'shipment', type: 'jsonb', value: (p) => (p.shipment ? JSON.stringify(p.shipment) : null) },
  { name: 'shipments', type: 'jsonb', value: (p) => JSON.stringify(p.shipment ? [p.shipment] : []) },
  { name: 'created_at', type: 'timestamptz', value: (p) => p.createdAt },
  { name: 'updated_at', type: 'timestamptz', value: (p) => p.updatedAt },
  { name: 'closed_at', type: 'timestamptz', value: (p) => p.closedAt },
  { name: 'imported_at', sql: 'now()' },
  { name: 'external_reference_id', type: 'text', value: (p) => p.input.externalReferenceId ?? null },
  { name: 'external_provider', type: 'text', value: (p) => p.input.externalProvider ?? null },
]);

/** Outcomes of a history: a complete return was refunded (no amounts are imported), a rejected one rejected. */
const OUTCOMES: Partial<Record<ReturnStatus, string>> = { complete: 'refund', rejected: 'rejected' };

const IMPORTED_ITEMS = new BulkInsert<ImportedItem>('return_item', [
  { name: 'id', type: 'text', value: (i) => i.line.itemId },
  { name: 'return_id', type: 'text', value: (i) => i.plan.returnId },
  { name: 'order_line_item_id', type: 'text', value: (i) => i.line.id },
  { name: 'position', type: 'int', value: (i) => i.position },
  { name: 'quantity', type: 'int', value: (i) => i.line.product.quantity },
  { name: 'reason', type: 'text', value: (i) => i.line.product.reason ?? '' },
  { name: 'compensation', sql: "'refund'" },
  { name: 'refund_amount', sql: '0' },
  { name: 'product_value', sql: '0' },
  { name: 'grade', type: 'text', value: (i) => i.line.product.condition ?? null },
  { name: 'outcome', type: 'text', value: (i) => OUTCOMES[i.plan.status] ?? null },
  // History is not restocked: a return closed elsewhere never goes into this stock, even when it is reopened and completed here.
  { name: 'restock', type: 'boolean', value: (i) => !CLOSED_STATUSES.includes(i.plan.status) },
]);

/** The lines of imported returns' orders: one per product, at no price (an import carries no amounts). */
const IMPORTED_LINES = new BulkInsert<ImportedItem>('order_line_item', [
  { name: 'id', type: 'text', value: (i) => i.line.id },
  { name: 'order_id', type: 'text', value: (i) => i.plan.orderId },
  { name: 'external_id', type: 'text', value: (i) => String(i.position + 1) },
  { name: 'position', type: 'int', value: (i) => i.position },
  { name: 'product_id', type: 'text', value: (i) => i.line.product.productId },
  { name: 'sku', type: 'text', value: (i) => i.line.product.sku ?? i.line.fact?.sku ?? null },
  { name: 'title', type: 'text', value: (i) => i.line.product.productTitle ?? i.line.fact?.title ?? null },
  { name: 'variant_title', type: 'text', value: (i) => i.line.product.variantTitle ?? i.line.fact?.variantTitle ?? null },
  { name: 'quantity', type: 'int', value: (i) => i.line.product.quantity },
  { name: 'price', sql: '0' },
  { name: 'upc', type: 'text', value: (i) => i.line.product.barcode ?? null },
]);

const describe = (errors: readonly FieldError[]) => errors.map((e) => `${e.pointer || '/'}: ${e.detail}`).join('; ');

/**
 * Returns imported from another system (`POST /stores/{storeId}/returns/bulk`), a batch at a time
 * in one transaction: each with an order of its own made for it (the import names products, not an
 * order), its status, dates and reference kept as they were (no transition walked, no restock, no
 * event unless asked), once per reference or idempotency key (the same one again finds the return
 * it made). A return that is invalid is an `error` result; the others are created.
 */
export class ReturnImport {
  constructor(
    private readonly orm: Orm,
    private readonly settings: StoreSettingsService,
    private readonly tags: ReturnTagService,
    private readonly events: ReturnEvents,
  ) {}

  async importReturns(storeId: string, raw: unknown): Promise<BulkReturnsResult> {
    const envelope = check(BulkReturnsEnvelopeSchema, raw, { detail: 'The import is invalid.' });
    const results: BulkReturnsResult['results'] = [];
    const valid: { index: number; input: ImportedReturn }[] = [];
    envelope.returns.forEach((value, index) => {
      const shape = violationsOf(ImportedReturnSchema, value);
      const errors = shape.length ? shape : timeErrors(value as ImportedReturn);
      if (errors.length) results.push({ status: 'error', index, error: describe(errors) });
      else valid.push({ index, input: value as ImportedReturn });
    });

    const em = this.orm.em.fork();
    const facts = await this.products(em, storeId, valid.flatMap((v) => v.input.products.map((p) => p.productId)));
    const settings = await this.settings.get(storeId, em);
    const plans: Planned[] = [];
    for (const { index, input } of valid) {
      const unknown = input.products.flatMap((p, i) => (facts.has(p.productId) || p.sku !== undefined ? [] : [{ pointer: `/products/${i}/productId`, detail: 'is no product of this store (give its sku to import it anyway)' }]));
      if (unknown.length) {
        results.push({ status: 'error', index, error: describe(unknown) });
        continue;
      }
      plans.push(plan(storeId, index, input, facts, settings));
    }

    const created = plans.length ? await this.write(storeId, plans, envelope.options?.webhooks === true) : new Map<number, string>();
    for (const p of plans) results.push({ status: 'created', index: p.index, returnId: created.get(p.index)! });
    results.sort((a, b) => a.index - b.index);
    const errorCount = results.filter((r) => r.status === 'error').length;
    return { totalCount: envelope.returns.length, processedCount: results.length - errorCount, errorCount, results };
  }

  private async products(em: EntityManager, storeId: string, ids: readonly string[]): Promise<Map<string, ProductFact>> {
    if (!ids.length) return new Map();
    const rows = await sql<ProductFact>(
      em,
      `select distinct on (product_id) product_id as "productId", sku, title, variant_title as "variantTitle", upc
         from product_fact where store_id = $1 and product_id = any($2) order by product_id, sequence desc`,
      [storeId, [...new Set(ids)]],
    );
    return new Map(rows.map((r) => [r.productId, r]));
  }

  /** One transaction: the keys claimed, then every new return's order, lines, return, items and tags. Returns the return id of each planned index. */
  private async write(storeId: string, plans: Planned[], publish: boolean): Promise<Map<number, string>> {
    return this.orm.em.fork().transactional(async (em) => {
      const returnIds = new Map<number, string>();
      // The first return of the batch with a key stands for the others with it.
      const firstWithKey = new Map<string, Planned>();
      for (const p of plans) if (p.key && !firstWithKey.has(p.key)) firstWithKey.set(p.key, p);
      const keys = [...firstWithKey.keys()].sort();
      const claims = keys.length
        ? await sql<{ key: string }>(
            em,
            `insert into return_import_key (store_id, key, return_id) select $1, k.key, k.return_id from unnest($2::text[], $3::text[]) as k(key, return_id) order by k.key
             on conflict do nothing returning key`,
            [storeId, keys, keys.map((k) => firstWithKey.get(k)!.returnId)],
          )
        : [];
      const claimed = new Set(claims.map((r) => r.key));
      const unclaimed = keys.filter((k) => !claimed.has(k));
      const earlier = new Map(
        unclaimed.length
          ? (await sql<{ key: string; returnId: string }>(em, 'select key, return_id as "returnId" from return_import_key where store_id = $1 and key = any($2)', [storeId, unclaimed])).map((r) => [r.key, r.returnId])
          : [],
      );
      const fresh = plans.filter((p) => (p.key ? claimed.has(p.key) && firstWithKey.get(p.key) === p : true));
      for (const p of plans) returnIds.set(p.index, p.key ? (earlier.get(p.key) ?? firstWithKey.get(p.key)!.returnId) : p.returnId);
      if (!fresh.length) return returnIds;

      const items = fresh.flatMap((plan) => plan.lines.map((line, position) => ({ plan, line, position })));
      await IMPORTED_ORDERS.run(em, fresh);
      await IMPORTED_LINES.run(em, items);
      await IMPORTED_RETURNS.run(em, fresh);
      await IMPORTED_ITEMS.run(em, items);

      const tagged = fresh.filter((p) => p.input.tags?.length);
      if (tagged.length) {
        await sql(em, 'select pg_advisory_xact_lock_shared(hashtext($1))', [`return-tags:${storeId}`]);
        const names = [...new Set(tagged.flatMap((p) => p.input.tags!))];
        const ids = new Map(names.map((n, i) => [n, i]));
        const tagIds = await this.tags.ensure(em, storeId, names);
        const links = tagged.flatMap((p) => p.input.tags!.map((n) => [p.returnId, tagIds[ids.get(n)!]!] as const));
        await sql(em, 'insert into return_tag_link (return_id, tag_id) select * from unnest($1::text[], $2::text[])', [links.map((l) => l[0]), links.map((l) => l[1])]);
      }
      if (publish) await this.events.emitMany(em, ReturnCreated, fresh.map((p) => ({ returnId: p.returnId, previousStatus: null })));
      return returnIds;
    });
  }
}

/** Dates of a history must hold together: updated after created, a close only for a closed return and not before it was created. */
function timeErrors(r: ImportedReturn): FieldError[] {
  const errors: FieldError[] = [];
  const created = r.createdAt ? Date.parse(r.createdAt) : undefined;
  if (created !== undefined && r.updatedAt && Date.parse(r.updatedAt) < created) errors.push({ pointer: '/updatedAt', detail: 'must not be before createdAt' });
  if (r.closedAt) {
    if (!CLOSED_STATUSES.includes(r.status ?? 'open')) errors.push({ pointer: '/closedAt', detail: 'is only for a complete, rejected or deleted return' });
    else if (created !== undefined && Date.parse(r.closedAt) < created) errors.push({ pointer: '/closedAt', detail: 'must not be before createdAt' });
  }
  return errors;
}

function plan(storeId: string, index: number, input: ImportedReturn, facts: Map<string, ProductFact>, settings: { returnAddress: Address | null; returnPhoneNumber: string | null }): Planned {
  const status = input.status ?? 'open';
  const createdAt = input.createdAt ? new Date(input.createdAt) : new Date();
  const updatedAt = input.updatedAt ? new Date(input.updatedAt) : createdAt;
  const shipping = input.shippingAddress;
  const named = input.customer?.firstName || input.customer?.lastName;
  const returnId = newId('return');
  return {
    storeId,
    index,
    input,
    key: keyOf(input),
    returnId,
    orderId: newId('order'),
    status,
    createdAt,
    updatedAt,
    closedAt: CLOSED_STATUSES.includes(status) ? (input.closedAt ? new Date(input.closedAt) : updatedAt) : null,
    source: {
      emailAddress: input.customer?.email ?? null,
      mailingAddress: addressOf(shipping),
      name: named ? { given: input.customer?.firstName || null, surname: input.customer?.lastName || null } : { given: shipping?.name ?? null, surname: null },
      phoneNumber: shipping?.phone ?? null,
    },
    destination: input.merchantAddress
      ? { mailingAddress: addressOf(input.merchantAddress), phoneNumber: input.merchantAddress.phone ?? null }
      : { mailingAddress: settings.returnAddress, phoneNumber: settings.returnPhoneNumber },
    shipment: input.trackingNumber
      ? {
          carrier: input.carrier ?? null,
          status: 'label_created',
          tracker: input.trackingNumber,
          trackingUrl: null,
          postageLabel: null,
          formLabel: null,
          shipmentGroupId: null,
          itemIds: [],
          externalLocationId: null,
          estimatedDeliveryDate: null,
          deliveredAt: null,
        }
      : null,
    lines: input.products.map((product) => ({ id: newId('orderItem'), itemId: newId('returnItem'), product, fact: facts.get(product.productId) })),
  };
}
