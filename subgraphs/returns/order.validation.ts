import { isCurrency, isDecimalString } from '../../platform/money.js';
import { readBody, Violations, type FieldReader } from '../../platform/validation.js';
import type { Address, OrderLineRow } from './return.view.js';

/** A validated line item: the stored row's fields but those the database assigns. */
export type OrderLineInput = Omit<OrderLineRow, 'id' | 'orderId' | 'position'>;

export interface OrderInput {
  provider: string;
  externalId: string;
  name: string;
  createdAt: Date | null;
  currency: string;
  customer: { email: string; firstName: string | null; lastName: string | null; phoneNumber: string | null };
  lineItems: OrderLineInput[];
  shippingCost: string;
  shippingAddress: Address | null;
  fulfillmentLocationId: string | null;
}

const ORDER_KEYS = ['id', 'name', 'createdAt', 'currency', 'customer', 'lineItems', 'shippingCost', 'shippingAddress', 'fulfillmentLocationId', 'provider'];
const LINE_KEYS = ['id', 'productId', 'variantId', 'sku', 'title', 'variantTitle', 'quantity', 'price', 'tax', 'discount', 'weightKg'];
const CUSTOMER_KEYS = ['email', 'firstName', 'lastName', 'phoneNumber'];
export const ADDRESS_KEYS = ['line1', 'line2', 'city', 'state', 'postalCode', 'country'] as const;

export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164_RE = /^\+[1-9]\d{1,14}$/;
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function decimal(reader: FieldReader, key: string, options: { required?: boolean; nonNegative?: boolean } = {}): string | undefined {
  const value = reader.object[key];
  if (value === undefined || value === null) {
    if (options.required) reader.violations.add(reader.at(key), 'is required');
    return undefined;
  }
  if (!isDecimalString(value)) {
    reader.violations.add(reader.at(key), 'must be a decimal string such as "12.34"');
    return undefined;
  }
  if (options.nonNegative && value.startsWith('-')) {
    reader.violations.add(reader.at(key), 'must not be negative');
    return undefined;
  }
  return value;
}

export function readAddress(reader: FieldReader | undefined): Address | null {
  if (!reader) return null;
  reader.rejectUnknown(ADDRESS_KEYS);
  const field = (key: (typeof ADDRESS_KEYS)[number]) => reader.string(key, { max: 500 }) ?? null;
  return { line1: field('line1'), line2: field('line2'), city: field('city'), state: field('state'), postalCode: field('postalCode'), country: field('country') };
}

/**
 * The custom order body (decisions section 7): the order object itself.
 * Every violation is collected with its JSON pointer before anything is written.
 */
export function validateOrder(body: unknown, provider: string): OrderInput {
  const violations = new Violations();
  const order = readBody(body, violations);
  if (!order) return violations.throwIfAny() as never;
  order.rejectUnknown(ORDER_KEYS);
  const externalId = order.string('id', { required: true, max: 255 });
  const name = order.string('name', { required: true, max: 255 });
  const currency = order.string('currency', { required: true });
  if (currency !== undefined && !isCurrency(currency)) violations.add('/currency', 'must be an ISO 4217 currency code such as USD');
  const createdAtRaw = order.string('createdAt');
  let createdAt: Date | null = null;
  if (createdAtRaw !== undefined) {
    if (!RFC3339_RE.test(createdAtRaw) || Number.isNaN(Date.parse(createdAtRaw))) violations.add('/createdAt', 'must be an RFC 3339 date-time');
    else createdAt = new Date(createdAtRaw);
  }
  const customerReader = order.object_('customer', { required: true });
  let customer: OrderInput['customer'] = { email: '', firstName: null, lastName: null, phoneNumber: null };
  if (customerReader) {
    customerReader.rejectUnknown(CUSTOMER_KEYS);
    const email = customerReader.string('email', { required: true, max: 320 });
    if (email !== undefined && !EMAIL_RE.test(email)) violations.add('/customer/email', 'must be an email address');
    const phone = customerReader.string('phoneNumber');
    if (phone !== undefined && !E164_RE.test(phone)) violations.add('/customer/phoneNumber', 'must be E.164 (+ then 2 to 15 digits)');
    customer = {
      email: email ?? '',
      firstName: customerReader.string('firstName', { max: 255 }) ?? null,
      lastName: customerReader.string('lastName', { max: 255 }) ?? null,
      phoneNumber: phone ?? null,
    };
  }
  const lines = order.array('lineItems', { required: true, min: 1, max: 1000 }) ?? [];
  const seen = new Map<string, number>();
  const lineItems = lines.map((line, index): OrderLineInput => {
    line.rejectUnknown(LINE_KEYS);
    const id = line.string('id', { required: true, max: 255 });
    if (id !== undefined) {
      if (seen.has(id)) violations.add(line.at('id'), `repeats the id of /lineItems/${seen.get(id)}`);
      else seen.set(id, index);
    }
    const weight = line.object['weightKg'];
    if (weight !== undefined && weight !== null && (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0)) {
      violations.add(line.at('weightKg'), 'must be a non-negative number');
    }
    return {
      externalId: id ?? '',
      productId: line.string('productId', { max: 255 }) ?? null,
      variantId: line.string('variantId', { max: 255 }) ?? null,
      sku: line.string('sku', { max: 255 }) ?? null,
      title: line.string('title', { max: 1000 }) ?? null,
      variantTitle: line.string('variantTitle', { max: 1000 }) ?? null,
      quantity: line.integer('quantity', { required: true, min: 1 }) ?? 1,
      price: decimal(line, 'price', { required: true, nonNegative: true }) ?? '0',
      tax: decimal(line, 'tax', { nonNegative: true }) ?? '0',
      discount: decimal(line, 'discount', { nonNegative: true }) ?? '0',
      weightKg: typeof weight === 'number' ? String(weight) : null,
    };
  });
  const shippingCost = decimal(order, 'shippingCost', { nonNegative: true }) ?? '0';
  const shippingAddress = readAddress(order.object_('shippingAddress'));
  const fulfillmentLocationId = order.string('fulfillmentLocationId', { max: 255 }) ?? null;
  violations.throwIfAny('The order is invalid.');
  return {
    provider,
    externalId: externalId!,
    name: name!,
    createdAt,
    currency: currency!,
    customer,
    lineItems,
    shippingCost,
    shippingAddress,
    fulfillmentLocationId,
  };
}
