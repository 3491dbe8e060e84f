import type { TestAccount, TestApp } from './app.js';

/** A JSON call to /v2.2 as the account: status, parsed body (undefined when empty) and headers. */
export async function v22(app: TestApp, account: TestAccount | string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await app.request(`/v2.2${path}`, {
    method,
    token: typeof account === 'string' ? account : account.apiSecret,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

let counter = 0;

/** An order as the real platform's orders API takes it: two lines (a1: 2 x 25.00, a2: 1 x 10.00), overridable. */
export function apiOrder(overrides: Record<string, unknown> = {}): Record<string, any> {
  counter++;
  return {
    orderId: `api-${Date.now()}-${counter}`,
    createdAt: '2026-11-01T10:00:00Z',
    lineItems: [
      { id: 'a1', productId: 'P-1', variantId: 'V-1', title: 'Shirt', sku: 'SKU-1', quantity: 2, price: 25 },
      { id: 'a2', productId: 'P-2', title: 'Hat', sku: 'SKU-2', quantity: 1, price: 10 },
    ],
    customer: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
    currencyCode: 'USD',
    ...overrides,
  };
}
