import type { TestAccount, TestApp } from './app.js';
import { seedReturn, setReturnState, type SeededReturn } from './compat.js';
import { query } from './database.js';
import { orderBody, postReturn, pushOrder, returnBody } from './returns.js';

/**
 * What the replays of public clients (test/clients/) share: a store with a
 * return in every state, bulk returns (more than one page of any client),
 * and the query encodings of the HTTP libraries those clients use, so each
 * replay sends its client's bytes.
 */

/** Every service status (decisions section 8) with the Loop state it shows as (section 11). */
export const STATES = {
  pre_shipment: 'open',
  open: 'open',
  in_transit: 'open',
  delivered: 'open',
  needs_review: 'review',
  in_review: 'review',
  flagged: 'review',
  complete: 'closed',
  rejected: 'closed',
  deleted: 'cancelled',
} as const;

type ServiceStatus = keyof typeof STATES;

export interface StateReturn extends SeededReturn {
  status: ServiceStatus;
  /** The Loop state it shows as. */
  state: 'open' | 'review' | 'closed' | 'cancelled' | 'expired';
  /** Items exchanged (compensation `exchange`): the Loop list shows exchange lines for them. */
  exchanged: boolean;
}

/**
 * One return per service status (every Loop state), an expired one (open,
 * never shipped, created 40 days ago) and an exchange return (one item
 * exchanged for the same variant, one plain exchange), all on orders of
 * `ada@example.com`.
 */
export async function seedEveryState(app: TestApp, account: TestAccount): Promise<StateReturn[]> {
  const made: StateReturn[] = [];
  for (const status of Object.keys(STATES) as ServiceStatus[]) {
    const ret = await seedReturn(app, account);
    // Statuses after a carrier event carry it, so their label fields are filled.
    const shipped = status === 'in_transit' || status === 'delivered';
    if (shipped) await query(app.databaseUrl, `update returns.return set shipment = '{"carrier":"UPS","tracker":"1Z999","status":"in_transit"}' where id = $1`, [ret.id]);
    await setReturnState(app, ret.id, { status, shipmentRecorded: shipped });
    made.push({ ...ret, status, state: STATES[status], exchanged: false });
  }
  const expired = await seedReturn(app, account);
  await setReturnState(app, expired.id, { createdDaysAgo: 40 });
  made.push({ ...expired, status: 'open', state: 'expired', exchanged: false });
  const exchange = await seedReturn(app, account, {
    items: [
      { lineItemId: 'li-1', quantity: 2, reason: 'Too small', compensation: 'same_item_replacement' },
      { lineItemId: 'li-2', quantity: 1, reason: 'Wrong colour', compensation: 'exchange' },
    ],
  });
  made.push({ ...exchange, status: 'open', state: 'open', exchanged: true });
  return made;
}

/** `count` returns of one unit each on one order line, created a few at a time (the order line's lock serialises their writes). */
export async function seedBulk(app: TestApp, account: TestAccount, count: number): Promise<string[]> {
  const order = orderBody({ customer: { email: 'bulk@example.com', firstName: 'Bo', lastName: 'Bulk' } }, [
    { id: 'bulk', quantity: count, price: '4.00', sku: 'BULK-1', title: 'Bulk tee', productId: 'prod-bulk', variantId: 'var-bulk' },
  ]);
  const pushed = await pushOrder(app, account, order);
  if (pushed.status !== 200) throw new Error(`order push failed: ${JSON.stringify(pushed.body)}`);
  const ids: string[] = [];
  for (let start = 0; start < count; start += 8) {
    const batch = Array.from({ length: Math.min(8, count - start) }, () => postReturn(app, account, returnBody(order.id as string, [{ lineItemId: 'bulk', quantity: 1, reason: 'Too big' }])));
    for (const created of await Promise.all(batch)) {
      if (created.status !== 201) throw new Error(`return create failed: ${JSON.stringify(created.body)}`);
      ids.push(created.body.return.id as string);
    }
  }
  return ids;
}

/** Sets the creation (and last update) time of returns. */
export async function setTimes(app: TestApp, returnIds: readonly string[], createdAt: Date | string, updatedAt: Date | string = createdAt): Promise<void> {
  const iso = (t: Date | string) => (typeof t === 'string' ? t : t.toISOString());
  await query(app.databaseUrl, 'update returns.return set created_at = $2, updated_at = $3 where id = any($1)', [returnIds, iso(createdAt), iso(updatedAt)]);
}

export const daysAgo = (days: number, from = Date.now()) => new Date(from - days * 86_400_000);

const escapeReserved = (s: string) => s.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Python's `urllib.parse.quote_plus` (what `requests` applies to params) and Go's `url.QueryEscape` (`urlquery`): spaces as `+`. */
export function quotePlus(value: string): string {
  return escapeReserved(encodeURIComponent(value)).replace(/%20/g, '+');
}

/** Python's `urllib.parse.quote` with its default safe `/`: spaces as `%20`. */
export function quote(value: string): string {
  return escapeReserved(encodeURIComponent(value)).replace(/%2F/g, '/');
}

export type PythonValue = string | number | boolean | null | undefined | readonly (string | number)[];

/** `requests`' params: `None` dropped, `str()` of each value (`True`, `False`), lists as repeated keys, `quote_plus`. */
export function requestsQuery(params: Record<string, PythonValue>): string {
  const pairs: string[] = [];
  const str = (v: string | number | boolean) => (typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v));
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value as string | number | boolean]) pairs.push(`${quotePlus(key)}=${quotePlus(str(v))}`);
  }
  return pairs.join('&');
}

/** axios' default params serializer: `null`/`undefined` dropped, `encodeURIComponent` keeping `: $ , [ ]`, spaces as `+`. */
export function axiosQuery(params: Record<string, string | number | boolean | null | undefined>): string {
  const encode = (v: string) =>
    encodeURIComponent(v).replace(/%3A/gi, ':').replace(/%24/g, '$').replace(/%2C/gi, ',').replace(/%20/g, '+').replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  return Object.entries(params)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${encode(k)}=${encode(String(v))}`)
    .join('&');
}

/** Python's `urllib.parse.parse_qsl` (blank values dropped, `+` as space), as a dict keeps the last of each name. */
export function parseQsl(url: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URL(url).searchParams) if (v !== '') out[k] = v;
  return out;
}
