import { isCurrency } from '../../platform/validation/rules.js';
import type { JsonObject, JsonValue } from './custom-event.schemas.js';

/**
 * Storefront events (the real platform's `POST /stores/{storeId}/storefront/events`: Shopify's
 * web-pixel events) as custom events, so they take the custom events' path (acceptance, limits,
 * dedup, lanes, outbox, flows, segments). Pure rules, unit-tested in test/unit/storefront-event-rules.test.ts;
 * the mapping table is in docs/events.md#storefront-events.
 */

export const STOREFRONT_EVENT_NAMES = [
  'product_added_to_cart',
  'product_removed_from_cart',
  'product_viewed',
  'checkout_started',
  'checkout_completed',
  'checkout_contact_info_submitted',
  'page_viewed',
  'collection_viewed',
] as const;
type StorefrontEventName = (typeof STOREFRONT_EVENT_NAMES)[number];

/** The pixel body, as far as the mapping reads it (the schema allows any other property). */
export interface StorefrontEvent {
  eventName: StorefrontEventName;
  eventId: string;
  timestamp: string;
  source: string;
  anonymousId?: string;
  customerEmail?: string;
  customerPhone?: string;
  urlWithParams?: string;
  urlWithoutParams?: string;
  cart?: JsonObject | null;
  cartLine?: JsonObject;
  checkout?: JsonObject;
  collection?: JsonObject;
  productVariant?: JsonObject;
  customer?: JsonObject | null;
}

/** Who a storefront visitor is, by the ids the storefront gives them (`identity` rows are keyed by these). */
export interface VisitorKey {
  kind: 'anonymous' | 'storefront_customer';
  value: string;
}

/** How the person is identified for custom events: an email, a phone, or both. */
export interface Identity {
  email?: string;
  phoneNumber?: string;
}

/** The custom event body a storefront event becomes (the customer is added when the person is known). */
export interface MappedEvent {
  eventName: string;
  data: JsonObject;
  eventTimestamp: string;
  uniqueId: string;
  value?: number;
  valueCurrency?: string;
}

const obj = (v: unknown): JsonObject | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length ? v : undefined);
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : undefined;
  return n !== undefined && Number.isFinite(n) ? n : undefined;
};
const at = (root: unknown, ...path: string[]): unknown => path.reduce<unknown>((node, key) => obj(node)?.[key], root);

/** A money object as pixels send it (`{amount, currencyCode}`) or as the real platform's cart does (`{amount, currency}`). */
function money(v: unknown): { amount?: number; currency?: string } {
  const m = obj(v);
  const currency = str(m?.currencyCode) ?? str(m?.currency);
  return { amount: num(m?.amount), currency: currency && isCurrency(currency) ? currency : undefined };
}

/** The fields of a product variant (a pixel's `productVariant`, or a cart line's `merchandise`). */
function variantData(variant: JsonObject | undefined): JsonObject {
  if (!variant) return {};
  const price = money(variant.price);
  return compact({
    productId: str(at(variant, 'product', 'id')),
    productTitle: str(at(variant, 'product', 'title')),
    productType: str(at(variant, 'product', 'type')),
    vendor: str(at(variant, 'product', 'vendor')),
    productUrl: str(at(variant, 'product', 'url')),
    variantId: str(variant.id),
    variantTitle: str(variant.title),
    sku: str(variant.sku),
    price: price.amount,
    currency: price.currency,
    imageUrl: str(at(variant, 'image', 'src')),
  });
}

function compact(values: Record<string, JsonValue | undefined>): JsonObject {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, JsonValue] => e[1] !== undefined)) as JsonObject;
}

/** A path of a URL (for segments on pages), if it is one. */
function pathOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

/**
 * The custom event a storefront event is: its name is the pixel's event name; its properties are
 * the scalars the pixel objects carry (product, cart line, collection, checkout, page); the objects
 * themselves are kept in `$extra`; `value` is what the event is worth (the product's price, the cart
 * line's total, the checkout's total); `uniqueId` is the pixel's `eventId`, so a resent event counts once.
 */
export function mapStorefrontEvent(event: StorefrontEvent): MappedEvent {
  const url = event.urlWithParams ?? event.urlWithoutParams;
  const line = obj(event.cartLine);
  const checkout = obj(event.checkout);
  const collection = obj(event.collection);
  const cart = obj(event.cart);
  const variant = obj(event.productVariant) ?? obj(line?.merchandise);
  const product = variantData(variant);
  const lineTotal = money(at(line, 'cost', 'totalAmount'));
  const checkoutTotal = money(checkout?.totalPrice);
  const checkoutItems = Array.isArray(checkout?.lineItems) ? (checkout.lineItems as JsonValue[]).map(obj).filter((i): i is JsonObject => !!i) : [];
  const cartTotal = money(at(cart, 'cost', 'totalAmount') ?? cart?.priceTotal);
  const data = compact({
    source: event.source,
    url,
    path: pathOf(url),
    ...product,
    quantity: num(line?.quantity),
    lineTotal: lineTotal.amount,
    collectionId: str(collection?.id),
    collectionTitle: str(collection?.title),
    checkoutToken: str(checkout?.token),
    orderId: str(at(checkout, 'order', 'id')),
    totalPrice: checkoutTotal.amount,
    subtotalPrice: money(checkout?.subtotalPrice).amount,
    totalTax: money(checkout?.totalTax).amount,
    itemCount: checkoutItems.length ? checkoutItems.reduce((n, i) => n + (num(i.quantity) ?? 0), 0) : undefined,
    skus: checkoutItems.length ? checkoutItems.flatMap((i) => str(at(i, 'variant', 'sku')) ?? []) : undefined,
    cartTotal: cartTotal.amount,
    cartItemCount: num(cart?.totalQuantity),
  });
  if (!data.currency) {
    const currency = str(checkout?.currencyCode) ?? checkoutTotal.currency ?? lineTotal.currency ?? cartTotal.currency;
    if (currency && isCurrency(currency)) data.currency = currency;
  }
  data.$extra = compact({
    eventId: event.eventId,
    anonymousId: event.anonymousId,
    productVariant: event.productVariant,
    cartLine: event.cartLine,
    cart: event.cart ?? undefined,
    checkout: event.checkout,
    collection: event.collection,
    customer: event.customer ?? undefined,
  });
  const value = checkoutTotal.amount ?? lineTotal.amount ?? (typeof product.price === 'number' ? product.price : undefined);
  const valueCurrency = typeof data.currency === 'string' ? data.currency : undefined;
  return {
    eventName: event.eventName,
    data,
    eventTimestamp: event.timestamp,
    uniqueId: `storefront:${event.eventId}`,
    ...(value !== undefined ? { value } : {}),
    ...(value !== undefined && valueCurrency ? { valueCurrency } : {}),
  };
}

/** A phone as storefronts type it, as E.164 when it is one once separators are dropped. */
export function e164(phone: string | undefined): string | undefined {
  if (!phone) return undefined;
  const compact = phone.replace(/[\s().-]/g, '');
  return /^\+[1-9]\d{1,14}$/.test(compact) ? compact : undefined;
}

/** The person an event names: its email and phone, else the checkout's (contact info), else the customer object's. */
export function identityOf(event: StorefrontEvent): Identity {
  const email = event.customerEmail ?? str(at(event.checkout, 'email')) ?? str(at(event.customer, 'email'));
  const phoneNumber = e164(event.customerPhone) ?? e164(str(at(event.checkout, 'phone'))) ?? e164(str(at(event.customer, 'phone')));
  return compact({ email, phoneNumber }) as Identity;
}

/** The visitor ids an event carries: its anonymous id and the storefront's customer id. */
export function visitorKeys(event: StorefrontEvent): VisitorKey[] {
  const keys: VisitorKey[] = [];
  if (event.anonymousId) keys.push({ kind: 'anonymous', value: event.anonymousId });
  const customerId = str(at(event.customer, 'id'));
  if (customerId) keys.push({ kind: 'storefront_customer', value: customerId });
  return keys;
}
