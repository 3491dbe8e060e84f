import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { customersOf, drained, postEvent, storedEvents } from './support/events.js';
import { query } from './support/database.js';
import { v22 } from './support/orders.js';
import { erasureCompleted, requestErasure } from './support/privacy.js';

/**
 * Storefront events (Shopify web-pixel events, `POST /stores/{storeId}/storefront/events`): custom
 * events of the pixel's name through the custom events' own acceptance, with visitor identity
 * resolution. Bodies as a Shopify pixel sends them.
 */

const variant = {
  id: 'gid://shopify/ProductVariant/41',
  title: 'Black / M',
  sku: 'TEE-BLK-M',
  price: { amount: 25.5, currencyCode: 'EUR' },
  image: { src: 'https://cdn.example.com/tee.png' },
  product: { id: 'gid://shopify/Product/7', title: 'Tee', vendor: 'Acme', type: 'Shirts', url: '/products/tee' },
};

let n = 0;
function pixel(eventName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  n++;
  return { eventName, eventId: `sh-${Date.now()}-${n}`, timestamp: `2026-11-20T10:00:${String(n % 60).padStart(2, '0')}Z`, source: 'AIMERCE', urlWithParams: 'https://shop.example.com/products/tee?variant=41', ...extra };
}

describe('storefront events', () => {
  const app = useTestApp({ EVENTS_RATE_LIMIT_PER_SECOND: '1000' });
  const acme = useTestAccount(app, 'Storefront');

  const send = (body: unknown, account = acme) => v22(app, account, 'POST', `/stores/${account.storeId}/storefront/events`, body);
  const eventsOf = async (email: string) => {
    await drained(app.databaseUrl);
    const customer = (await customersOf(app.databaseUrl, acme.storeId)).find((c) => c.email === email);
    return customer ? (await storedEvents(app.databaseUrl, acme.storeId)).filter((e) => e.customer_id === customer.id) : [];
  };

  it('becomes the custom event of its name, with the pixel facts as properties and its objects in $extra, counted once per eventId', async () => {
    const viewed = pixel('product_viewed', { customerEmail: 'sam@example.com', productVariant: variant });
    expect((await send(viewed)).status).toBe(204);
    expect((await send(viewed)).status).toBe(204);
    const added = pixel('product_added_to_cart', { customerEmail: 'sam@example.com', cartLine: { quantity: 2, merchandise: variant, cost: { totalAmount: { amount: 51, currencyCode: 'EUR' } } } });
    await send(added);
    const completed = pixel('checkout_completed', {
      checkout: {
        token: 'chk-1',
        email: 'sam@example.com',
        currencyCode: 'EUR',
        totalPrice: { amount: 56, currencyCode: 'EUR' },
        subtotalPrice: { amount: 51, currencyCode: 'EUR' },
        lineItems: [{ quantity: 2, variant }],
        order: { id: 'gid://shopify/Order/900' },
      },
    });
    await send(completed);
    const events = await eventsOf('sam@example.com');
    expect(events.map((e) => e.event_name)).toEqual(['product_viewed', 'product_added_to_cart', 'checkout_completed']);
    expect(events[0]!.data).toMatchObject({ source: 'AIMERCE', path: '/products/tee', productId: 'gid://shopify/Product/7', productTitle: 'Tee', variantId: 'gid://shopify/ProductVariant/41', sku: 'TEE-BLK-M', price: 25.5, currency: 'EUR', vendor: 'Acme' });
    expect(events[0]!.unique_id).toBe(`storefront:${viewed.eventId as string}`);
    expect(events[0]!.extra).toMatchObject({ eventId: viewed.eventId, productVariant: variant });
    expect(events[1]!.data).toMatchObject({ quantity: 2, lineTotal: 51, sku: 'TEE-BLK-M' });
    expect(events[2]!.data).toMatchObject({ checkoutToken: 'chk-1', orderId: 'gid://shopify/Order/900', totalPrice: 56, itemCount: 2, skus: ['TEE-BLK-M'], currency: 'EUR' });
    const [value] = await query<{ value: string; value_currency: string }>(app.databaseUrl, 'select value::text, value_currency from events.custom_event where id = $1', [events[2]!.id]);
    expect(value).toEqual({ value: '56', value_currency: 'EUR' });
  });

  it("holds a visitor's events until one of theirs names them, then accepts them in order; later anonymous events land at once", async () => {
    const anonymousId = `anon-${Date.now()}`;
    await send(pixel('page_viewed', { anonymousId }));
    await send(pixel('collection_viewed', { anonymousId, collection: { id: 'c1', title: 'Summer' } }));
    await drained(app.databaseUrl);
    const [held] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from events.storefront_pending_event where value = $1', [anonymousId]);
    expect(held!.n).toBe(2);
    await send(pixel('checkout_contact_info_submitted', { anonymousId, customerEmail: 'kim@example.com', customerPhone: '+47 (123) 45-678' }));
    await send(pixel('page_viewed', { anonymousId }));
    const events = await eventsOf('kim@example.com');
    expect(events.map((e) => e.event_name)).toEqual(['page_viewed', 'collection_viewed', 'checkout_contact_info_submitted', 'page_viewed']);
    expect(events[1]!.data).toMatchObject({ collectionId: 'c1', collectionTitle: 'Summer' });
    expect((await customersOf(app.databaseUrl, acme.storeId)).find((c) => c.email === 'kim@example.com')?.phone_number).toBe('+4712345678');
    const [left] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from events.storefront_pending_event where value = $1', [anonymousId]);
    expect(left!.n).toBe(0);
  });

  it("takes the storefront's customer id as a visitor id too", async () => {
    await send(pixel('product_viewed', { customer: { id: 'shop-cust-9', email: 'lee@example.com' }, productVariant: variant }));
    await send(pixel('product_viewed', { customer: { id: 'shop-cust-9' }, productVariant: variant }));
    expect((await eventsOf('lee@example.com')).map((e) => e.event_name)).toEqual(['product_viewed', 'product_viewed']);
  });

  it('refuses an event it cannot read or attach to anybody, with pointers, and needs storefront_events_write', async () => {
    const res = await send({ eventName: 'cart_viewed', eventId: '', timestamp: 'yesterday', source: 'OTHER', customerEmail: 'nope' });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/customerEmail', '/eventId', '/eventName', '/source', '/timestamp']);
    const nobody = await send(pixel('page_viewed'));
    expect(nobody.status).toBe(400);
    expect(nobody.body.errors[0].pointer).toBe('/anonymousId');
    const writer = await app.service.runtime.accounts.createSecret(acme.accountId, ['customer_events_write']);
    expect((await send(pixel('page_viewed', { anonymousId: 'x' }), { ...acme, apiSecret: writer.apiSecret })).status).toBe(403);
  });

  it('an erasure forgets the visitor ids remembered with the person and the events held for them', async () => {
    await send(pixel('page_viewed', { anonymousId: 'anon-erase', customerEmail: 'erase.me@example.com' }));
    await send(pixel('page_viewed', { anonymousId: 'anon-erase-2' }));
    await send(pixel('page_viewed', { anonymousId: 'anon-erase-2', customerEmail: 'other@example.com' }));
    await drained(app.databaseUrl);
    await erasureCompleted(app, acme, await requestErasure(app, acme, { email: 'erase.me@example.com', suppression: 'DROP' }));
    const [known] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from events.storefront_identity where lower(email) = 'erase.me@example.com'`);
    expect(known!.n).toBe(0);
    // The visitor is a stranger again: its next anonymous event is held, not given to anybody.
    await send(pixel('page_viewed', { anonymousId: 'anon-erase' }));
    const [held] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from events.storefront_pending_event where value = 'anon-erase'`);
    expect(held!.n).toBe(1);
  });
});

describe('storefront events and the per-store rate limit', () => {
  const LIMIT = 5;
  const app = useTestApp({ EVENTS_RATE_LIMIT_PER_SECOND: String(LIMIT) });

  it('draw on the custom events budget of the store: together at most the limit per second, the rest 429 with Retry-After', async () => {
    const account = await app.createAccount('Limited');
    const send = (i: number) =>
      i % 2
        ? postEvent(app, account, { eventName: 'Tick', customer: { email: 'r@example.com' } })
        : app.request(`/v2.2/stores/${account.storeId}/storefront/events`, {
            method: 'POST',
            token: account.apiSecret,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(pixel('page_viewed', { customerEmail: 'r@example.com' })),
          });
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => send(i)));
    const accepted = responses.filter((r) => r.status === 202 || r.status === 204).length;
    const limited = responses.filter((r) => r.status === 429);
    expect(accepted + limited.length).toBe(30);
    const [windows] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from events.event_rate_window where store_id = $1', [account.storeId]);
    expect(accepted).toBeLessThanOrEqual(LIMIT * windows!.n);
    const storefront = limited.find((r) => r.url.includes('/storefront/'));
    expect(storefront, 'a storefront event refused by the shared limit').toBeDefined();
    expect(storefront!.headers.get('retry-after')).toBe('1');
    expect(await storefront!.json()).toMatchObject({ type: '/problems/rate-limited', status: 429 });
  });
});
