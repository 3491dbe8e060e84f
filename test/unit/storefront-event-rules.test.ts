import { describe, expect, it } from 'vitest';
import { e164, identityOf, mapStorefrontEvent, visitorKeys, type StorefrontEvent } from '../../subgraphs/events/storefront-event.rules.js';

const base = { eventId: 'e-1', timestamp: '2026-11-20T10:00:00Z', source: 'AIMERCE' } as const;
const variant = { id: 'v1', title: 'Red / S', sku: 'R-S', price: { amount: '12.50', currency: 'GBP' }, product: { id: 'p1', title: 'Scarf', vendor: 'Knit', type: 'Scarves' } };

describe('storefront events as custom events', () => {
  it('names the event after the pixel event and keys its uniqueId by eventId', () => {
    const mapped = mapStorefrontEvent({ ...base, eventName: 'page_viewed', urlWithoutParams: 'https://shop.example.com/pages/about' });
    expect(mapped).toEqual({
      eventName: 'page_viewed',
      eventTimestamp: '2026-11-20T10:00:00Z',
      uniqueId: 'storefront:e-1',
      data: { source: 'AIMERCE', url: 'https://shop.example.com/pages/about', path: '/pages/about', $extra: { eventId: 'e-1' } },
    });
  });

  it('reads the product of a view or a cart line, money as a number or a decimal string, and values the event', () => {
    const viewed = mapStorefrontEvent({ ...base, eventName: 'product_viewed', productVariant: variant } as StorefrontEvent);
    expect(viewed.data).toMatchObject({ productId: 'p1', productTitle: 'Scarf', vendor: 'Knit', productType: 'Scarves', variantId: 'v1', variantTitle: 'Red / S', sku: 'R-S', price: 12.5, currency: 'GBP' });
    expect(viewed).toMatchObject({ value: 12.5, valueCurrency: 'GBP' });
    const removed = mapStorefrontEvent({ ...base, eventName: 'product_removed_from_cart', cartLine: { quantity: 3, merchandise: variant, cost: { totalAmount: { amount: 37.5, currencyCode: 'GBP' } } } } as StorefrontEvent);
    expect(removed.data).toMatchObject({ quantity: 3, lineTotal: 37.5, sku: 'R-S' });
    expect(removed.value).toBe(37.5);
  });

  it('ignores what is not of the expected type rather than failing, and keeps every object in $extra', () => {
    const odd = mapStorefrontEvent({ ...base, eventName: 'checkout_started', checkout: { totalPrice: { amount: 'lots', currencyCode: 'ZZZ' }, lineItems: 'none', token: 7 } } as unknown as StorefrontEvent);
    expect(odd.data).toEqual({ source: 'AIMERCE', $extra: { eventId: 'e-1', checkout: { totalPrice: { amount: 'lots', currencyCode: 'ZZZ' }, lineItems: 'none', token: 7 } } });
    expect(odd.value).toBeUndefined();
  });

  it('finds the person in the event, then its checkout, then its customer; keeps a phone only as E.164', () => {
    expect(identityOf({ ...base, eventName: 'page_viewed', customerEmail: 'a@example.com', checkout: { email: 'b@example.com' } })).toEqual({ email: 'a@example.com' });
    expect(identityOf({ ...base, eventName: 'page_viewed', checkout: { phone: '+44 20 7946 0018' } })).toEqual({ phoneNumber: '+442079460018' });
    expect(identityOf({ ...base, eventName: 'page_viewed', customer: { email: 'c@example.com', phone: '555-0100' } })).toEqual({ email: 'c@example.com' });
    expect(e164('(555) 0100')).toBeUndefined();
    expect(visitorKeys({ ...base, eventName: 'page_viewed', anonymousId: 'anon', customer: { id: 'cust' } })).toEqual([
      { kind: 'anonymous', value: 'anon' },
      { kind: 'storefront_customer', value: 'cust' },
    ]);
  });
});
