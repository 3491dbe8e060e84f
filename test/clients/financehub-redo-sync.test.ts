import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { seedBulk, seedEveryState, type StateReturn } from '../support/clients.js';
import { eventually } from '../support/eventually.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { createWebhook } from '../support/webhooks.js';

/**
 * Replay of financehub's Redo sync (BBISMblockay/financehub):
 * scripts/lib/redo-sync-core.mjs pages `GET /v2.2/stores/{storeId}/returns`
 * (`updated_at_min`/`updated_at_max`/`status` through URL.searchParams,
 * `Authorization: Bearer`, `X-Page-Size`, `X-Page-Continue` from the last
 * `x-page-next`), throws on a non-2xx, and maps each return into a row and
 * its items into item rows: `returns[].order.id` joined to the page's
 * `orders[]`, `items[].orderItem.id` to that order's `items[]` (product and
 * variant names come only from there), amounts from `totals.*.amount.amount`.
 * supabase/functions/redo-webhook/index.ts receives the same return in the
 * webhook body (`{type, return, order}`), checks `Authorization: Bearer
 * <its secret>`, and maps it the same way with `order.items`.
 */

type Rec = Record<string, any>;

const app = useTestApp();
const account = useTestAccount(app, 'Financehub');

const moneyAmount = (node: Rec | undefined) => {
  const raw = node?.amount?.amount;
  return raw ? Number(raw) || 0 : 0;
};
const personName = (name: Rec | undefined) => [name?.given, name?.surname].filter(Boolean).join(' ').trim() || null;

/** mapReturnRow: the fields the sync and the webhook store. */
function returnRow(ret: Rec, lastEventType: string) {
  return {
    redo_return_id: ret.id,
    redo_order_id: ret.order?.id ?? null,
    shopify_order_name: ret.order?.name ?? null,
    shopify_order_id: ret.externalOrderIds?.[0] ?? ret.shopifyOrderIds?.[0] ?? null,
    return_type: ret.type ?? null,
    status: ret.status ?? null,
    compensation_methods: ret.compensationMethods ?? [],
    refund_amount: moneyAmount(ret.totals?.refund),
    exchange_amount: moneyAmount(ret.totals?.exchange),
    store_credit_amount: moneyAmount(ret.totals?.storeCredit),
    currency: ret.totals?.refund?.amount?.currency || ret.totals?.exchange?.amount?.currency || 'USD',
    customer_email: ret.source?.emailAddress ?? null,
    customer_name: personName(ret.source?.name),
    last_event_type: lastEventType,
    redo_created_at: ret.createdAt ?? null,
  };
}

/** mapReturnItemRows: items joined to the order's items by `orderItem.id`. */
function itemRows(ret: Rec, order: Rec | undefined): ReturnType<typeof itemRow>[] {
  const orderItems = new Map<string, Rec>((order?.items ?? []).map((oi: Rec) => [oi.id, oi]));
  return (ret.items ?? []).map((it: Rec) => itemRow(it, orderItems.get(it.orderItem?.id)));
}

function itemRow(it: Rec, orderItem: Rec | undefined) {
  return {
    redo_item_id: it.id,
    sku: it.sku ?? orderItem?.variant?.sku ?? null,
    product_id: it.productId ?? orderItem?.product?.externalId ?? null,
    product_name: orderItem?.product?.name ?? null,
    variant_name: orderItem?.variant?.name ?? null,
    quantity: it.quantity ?? null,
    reason: it.reason ?? null,
    outcome: it.outcome ?? null,
    refund_amount: moneyAmount(it.refund),
    refund_type: it.refund?.type ?? null,
    is_exchange: !!it.exchangeItem,
    exchange_product_name: it.exchangeItem?.product?.name ?? null,
    exchange_quantity: it.exchangeItem?.quantity ?? null,
  };
}

/** fetchReturnsPage. */
async function fetchReturnsPage(opts: { updatedAtMin?: string; updatedAtMax?: string; status?: string; pageSize?: number; pageContinue?: string }) {
  const url = new URL(`${app.baseUrl}/v2.2/stores/${account.storeId}/returns`);
  if (opts.updatedAtMin) url.searchParams.set('updated_at_min', opts.updatedAtMin);
  if (opts.updatedAtMax) url.searchParams.set('updated_at_max', opts.updatedAtMax);
  if (opts.status) url.searchParams.set('status', opts.status);
  const headers: Record<string, string> = { Authorization: `Bearer ${account.apiSecret}`, 'X-Page-Size': String(opts.pageSize ?? 500) };
  if (opts.pageContinue) headers['X-Page-Continue'] = opts.pageContinue;
  const res = await app.request(url.pathname + url.search, { headers });
  const text = await res.text();
  if (!res.ok) throw new Error(`Redo API GET /stores/${account.storeId}/returns -> ${res.status}: ${text.slice(0, 500)}`);
  const body = JSON.parse(text) as Rec;
  return { orders: (body.orders || []) as Rec[], returns: (body.returns || []) as Rec[], nextPageToken: res.headers.get('x-page-next') || null };
}

/** backfillRedoReturns, with the rows it would upsert. */
async function backfill(opts: { status?: string; pageSize?: number } = {}) {
  const rows: ReturnType<typeof returnRow>[] = [];
  const items: ReturnType<typeof itemRows> = [];
  let pageContinue: string | undefined;
  let pages = 0;
  do {
    const page = await fetchReturnsPage({ ...opts, pageContinue });
    pages++;
    const ordersById = new Map(page.orders.map((o) => [o.id, o]));
    for (const ret of page.returns) {
      rows.push(returnRow(ret, 'backfill'));
      items.push(...itemRows(ret, ordersById.get(ret.order?.id)));
    }
    pageContinue = page.nextPageToken ?? undefined;
  } while (pageContinue);
  return { rows, items, pages };
}

let made: StateReturn[];
let bulk: string[];
let receiver: Receiver;
const secret = 'whsec-financehub-company-secret';
const received: { type: string; row: ReturnType<typeof returnRow>; items: ReturnType<typeof itemRows> }[] = [];
beforeAll(async () => {
  // The webhook receiver as the edge function answers: 401 without its secret, 400 without return.id, 200 {ok} once stored.
  receiver = await startReceiver();
  receiver.answer((req) => {
    if ((req.headers.authorization ?? '').replace(/^Bearer\s+/i, '') !== secret) return { status: 401 };
    const event = JSON.parse(req.body) as Rec;
    if (!event?.return?.id) return { status: 400 };
    received.push({ type: event.type, row: returnRow(event.return, event.type), items: itemRows(event.return, event.order) });
    return { status: 200, headers: { 'content-type': 'application/json' } };
  });
  const hook = await createWebhook(app, account, { callback: { url: receiver.url.replace('/hook', '/functions/v1/redo-webhook/company-1'), auth: { bearer: { token: secret } } }, topic: 'return' });
  expect(hook.status).toBe(201);
  made = await seedEveryState(app, account);
  bulk = await seedBulk(app, account, 6);
});
afterAll(() => receiver?.close());

describe('financehub Redo sync and webhook receiver, unchanged', () => {
  it('backfills every page (its page size or the default 500) and joins every return and item to the page\'s orders', async () => {
    for (const pageSize of [5, undefined]) {
      const { rows, items, pages } = await backfill({ pageSize });
      expect(pages).toBe(pageSize ? Math.ceil((made.length + bulk.length) / pageSize) : 1);
      expect(rows.map((r) => r.redo_return_id).sort()).toEqual([...made.map((r) => r.id), ...bulk].sort());
      for (const row of rows) {
        expect(row.redo_order_id).toEqual(expect.any(String));
        expect(row.shopify_order_id).toEqual(expect.any(String));
        expect(row.customer_email).toEqual(expect.any(String));
      }
      // Every item found its order line: names come only from there.
      expect(items.every((i) => i.product_name !== null && i.quantity !== null && i.refund_type !== null)).toBe(true);
      const exchange = items.filter((i) => i.is_exchange);
      expect(exchange.map((i) => i.exchange_product_name)).toEqual(['Shirt']);
    }
    const flagged = await backfill({ status: 'flagged', pageSize: 2 });
    expect(flagged.rows.map((r) => r.redo_return_id)).toEqual([made.find((r) => r.status === 'flagged')!.id]);
    const refunds = (await backfill()).rows.filter((r) => r.compensation_methods.includes('refund'));
    expect(refunds.every((r) => r.refund_amount > 0 && r.currency === 'USD')).toBe(true);
  });

  it('receives each return\'s events with its secret and maps them like the backfill', async () => {
    await eventually(async () => (received.filter((e) => e.type === 'created').length >= made.length + bulk.length ? true : undefined), 'a delivery per created return');
    const exchange = made.find((r) => r.exchanged)!;
    const event = received.find((e) => e.row.redo_return_id === exchange.id)!;
    expect(event.row).toMatchObject({ status: 'open', customer_email: 'ada@example.com', customer_name: 'Ada Lovelace', compensation_methods: ['exchange'] });
    expect(event.items.every((i) => i.product_name !== null)).toBe(true);
    expect(event.items.filter((i) => i.is_exchange)).toHaveLength(1);
    expect(receiver.received.every((r) => r.headers.authorization === `Bearer ${secret}`)).toBe(true);
  });
});
