import type { TestAccount, TestApp } from './app.js';

export interface OrderLine {
  id: string;
  quantity: number;
  price: string;
  tax?: string;
  discount?: string;
  sku?: string;
  title?: string;
  productId?: string;
  variantId?: string;
  variantTitle?: string;
  weightKg?: number;
}

let orderCounter = 0;

/** A custom order as the orders endpoint takes it (decisions section 7). */
export function orderBody(overrides: Record<string, unknown> = {}, lines?: OrderLine[]): Record<string, unknown> {
  orderCounter++;
  return {
    id: `ext-${Date.now()}-${orderCounter}`,
    name: `#${1000 + orderCounter}`,
    currency: 'USD',
    createdAt: '2026-11-01T10:00:00Z',
    customer: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', phoneNumber: '+14155550100' },
    lineItems: lines ?? [
      { id: 'li-1', productId: 'prod-1', variantId: 'var-1', sku: 'SKU-1', title: 'Shirt', variantTitle: 'M', quantity: 2, price: '25.00', tax: '4.00', discount: '2.00', weightKg: 0.3 },
      { id: 'li-2', productId: 'prod-2', variantId: 'var-2', sku: 'SKU-2', title: 'Hat', quantity: 1, price: '10.00' },
    ],
    shippingCost: '5.00',
    shippingAddress: { line1: '1 Main St', line2: null, city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
    ...overrides,
  };
}

export async function pushOrder(app: TestApp, account: TestAccount, body: Record<string, unknown> = orderBody()): Promise<{ status: number; body: any }> {
  const res = await app.request(`/v2.2/stores/${account.storeId}/custom/orders`, {
    method: 'POST',
    token: account.apiSecret,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export function returnBody(externalOrderId: string, items: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { data: { provider: 'custom', externalOrderId, items, ...extra }, options: { createExternalRMAs: false } };
}

export async function postReturn(app: TestApp, account: TestAccount, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await app.request(`/v2.2/stores/${account.storeId}/returns`, {
    method: 'POST',
    token: account.apiSecret,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json(), headers: res.headers };
}

/** An order with one line (`bulk`) of `count + spare` units, and `count` returns of one unit each. */
export async function seedReturns(app: TestApp, account: TestAccount, count: number, spare = 0): Promise<{ orderId: string; returnIds: string[] }> {
  const order = orderBody({}, [{ id: 'bulk', quantity: Math.max(count + spare, 1), price: '1.00', sku: 'BULK' }]);
  const pushed = await pushOrder(app, account, order);
  if (pushed.status !== 200) throw new Error(`order push failed: ${JSON.stringify(pushed.body)}`);
  const returnIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await postReturn(app, account, returnBody(order.id as string, [{ lineItemId: 'bulk', quantity: 1, reason: 'too big' }]));
    if (created.status !== 201) throw new Error(`return create failed: ${JSON.stringify(created.body)}`);
    returnIds.push(created.body.return.id);
  }
  return { orderId: pushed.body.order.id, returnIds };
}
