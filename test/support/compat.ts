import type { TestAccount, TestApp } from './app.js';
import { assertConforms } from './contract.js';
import { query } from './database.js';
import { orderBody, postReturn, pushOrder, returnBody, type OrderLine } from './returns.js';

export interface CompatResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** A call to the compatibility API as Loop clients make it: `X-Authorization: <key>`; the answer must conform to its OpenAPI document. */
export async function compat(app: TestApp, key: string | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<CompatResponse> {
  const h: Record<string, string> = { ...headers };
  if (key !== undefined) h['x-authorization'] = key;
  if (body !== undefined) h['content-type'] = 'application/json';
  const url = path.startsWith('http') ? path : `${app.baseUrl}${path}`;
  const res = await fetch(url, { method, headers: h, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  // Every answer is held to the committed /api/v1 OpenAPI document (test/support/contract.ts).
  await assertConforms(method, url, res);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export interface SeededReturn {
  id: string;
  numericId: number;
  orderNumericId: number;
  orderName: string;
  externalOrderId: string;
  /** Numeric ids of the order's lines, by external id. */
  lines: Record<string, number>;
}

/** An order (two lines by default) and a return of one unit of each line through the v2.2 API; numeric ids read back. */
export async function seedReturn(app: TestApp, account: TestAccount, options: { lines?: OrderLine[]; items?: Record<string, unknown>[]; order?: Record<string, unknown> } = {}): Promise<SeededReturn> {
  const order = orderBody(options.order ?? {}, options.lines);
  const pushed = await pushOrder(app, account, order);
  if (pushed.status !== 200) throw new Error(`order push failed: ${JSON.stringify(pushed.body)}`);
  const items = options.items ?? (order.lineItems as { id: string }[]).map((l) => ({ lineItemId: l.id, quantity: 1, reason: 'Too small' }));
  const created = await postReturn(app, account, returnBody(order.id as string, items));
  if (created.status !== 201) throw new Error(`return failed: ${JSON.stringify(created.body)}`);
  const id = created.body.return.id as string;
  const [row] = await query<{ numeric: string; order_numeric: string }>(
    app.databaseUrl,
    'select r.compat_id::text as numeric, o.compat_id::text as order_numeric from returns.return r join returns."order" o on o.id = r.order_id where r.id = $1',
    [id],
  );
  const lineRows = await query<{ external_id: string; numeric: string }>(app.databaseUrl, 'select external_id, compat_id::text as numeric from returns.order_line_item where order_id = (select order_id from returns.return where id = $1)', [id]);
  return {
    id,
    numericId: Number(row!.numeric),
    orderNumericId: Number(row!.order_numeric),
    orderName: order.name as string,
    externalOrderId: order.id as string,
    lines: Object.fromEntries(lineRows.map((l) => [l.external_id, Number(l.numeric)])),
  };
}

/** Sets a return's service status (and shipment flag, creation time) directly, to reach every state. */
export async function setReturnState(app: TestApp, returnId: string, state: { status?: string; shipmentRecorded?: boolean; createdDaysAgo?: number }): Promise<void> {
  if (state.status) await query(app.databaseUrl, 'update returns.return set status = $2 where id = $1', [returnId, state.status]);
  if (state.shipmentRecorded !== undefined) await query(app.databaseUrl, 'update returns.return set shipment_recorded = $2 where id = $1', [returnId, state.shipmentRecorded]);
  if (state.createdDaysAgo !== undefined) await query(app.databaseUrl, `update returns.return set created_at = now() - make_interval(days => $2) where id = $1`, [returnId, state.createdDaysAgo]);
}

export async function statusOf(app: TestApp, returnId: string): Promise<string> {
  const [row] = await query<{ status: string }>(app.databaseUrl, 'select status from returns.return where id = $1', [returnId]);
  return row!.status;
}
