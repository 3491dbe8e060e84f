import type { TestAccount, TestApp } from './app.js';

/** POST /v2.2/stores/{storeId}/webhooks as the account; the parsed body and status. */
export async function createWebhook(app: TestApp, account: TestAccount, webhook: Record<string, unknown>, options: { token?: string; storeId?: string } = {}): Promise<{ status: number; body: any }> {
  const res = await app.request(`/v2.2/stores/${options.storeId ?? account.storeId}/webhooks`, {
    method: 'POST',
    token: options.token ?? account.apiSecret,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ webhook }),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

/** Any JSON call as the account. */
export async function call(app: TestApp, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await app.request(path, {
    method,
    token,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** A comment on a return: one committed change, one `updated` event. */
export function commentOn(app: TestApp, account: TestAccount, returnId: string, message: string) {
  return call(app, account.apiSecret, 'POST', `/v2.2/returns/${returnId}/comments`, { comment: { message } });
}
