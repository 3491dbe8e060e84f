import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { daysAgo, seedBulk, seedEveryState, setTimes, type StateReturn } from '../support/clients.js';

/**
 * Replay of lecca-io's Redo app (lecca-digital/lecca-io,
 * packages/apps/src/lib/redo/actions/list-returns.action.ts): `GET
 * /v2.2/stores/{storeId}/returns` with `Authorization: Bearer <key>`, the
 * page in request headers (`X-Page-Size` from its text input,
 * `X-Page-Continue` from its page marker), `updated_at_min`/`updated_at_max`
 * through URLSearchParams; it returns the body spread with `nextPageMarker`,
 * the response's `x-page-next`, which a workflow feeds back as the next page
 * marker. Its HTTP helper throws on a non-2xx.
 */

type Rec = Record<string, unknown>;

const app = useTestApp();
const account = useTestAccount(app, 'Lecca');

/** The action's run(): its headers, its query, and what it returns. */
async function listReturns(config: { storeId: string; updatedAtMax?: string; updatedAtMin?: string; pageMarker?: string; pageSize?: string }) {
  const headers: Record<string, string> = { Authorization: `Bearer ${account.apiSecret}` };
  if (config.pageMarker) headers['X-Page-Continue'] = config.pageMarker;
  if (config.pageSize) headers['X-Page-Size'] = config.pageSize.toString();
  let url = `/v2.2/stores/${config.storeId}/returns`;
  const query = new URLSearchParams();
  if (config.updatedAtMax) query.append('updated_at_max', config.updatedAtMax);
  if (config.updatedAtMin) query.append('updated_at_min', config.updatedAtMin);
  if (query.toString()) url += `?${query.toString()}`;
  const res = await app.request(url, { headers });
  if (res.status < 200 || res.status >= 300) throw new Error(`Request failed with status code ${res.status}: ${await res.text()}`);
  const data = (await res.json()) as { returns: Rec[]; orders: Rec[] };
  return { ...data, nextPageMarker: res.headers.get('x-page-next') ?? undefined };
}

let made: StateReturn[];
let bulk: string[];
beforeAll(async () => {
  made = await seedEveryState(app, account);
  bulk = await seedBulk(app, account, 9);
  await setTimes(app, bulk.slice(0, 3), daysAgo(20));
});

describe('lecca-io Redo list-returns action, unchanged', () => {
  it('walks every page by feeding nextPageMarker back, in every status, newest update first', async () => {
    const seen: Rec[] = [];
    let marker: string | undefined;
    let pages = 0;
    do {
      const out = await listReturns({ storeId: account.storeId, pageMarker: marker, pageSize: '4' });
      seen.push(...out.returns);
      const orderIds = new Set(out.orders.map((o) => o.id));
      for (const ret of out.returns) expect(orderIds.has((ret.order as Rec).id)).toBe(true);
      marker = out.nextPageMarker;
      pages++;
    } while (marker);
    expect(pages).toBe(Math.ceil((made.length + bulk.length) / 4));
    expect(seen.map((r) => r.id).sort()).toEqual([...made.map((r) => r.id), ...bulk].sort());
    expect(new Set(seen.map((r) => r.status))).toEqual(new Set(made.map((r) => r.status)));
    const times = seen.map((r) => Date.parse(r.updatedAt as string));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('filters by its updated-at inputs (ISO dates) on every page', async () => {
    const inputs = { storeId: account.storeId, updatedAtMax: daysAgo(1).toISOString(), updatedAtMin: daysAgo(30).toISOString(), pageSize: '2' };
    const seen: string[] = [];
    let marker: string | undefined;
    do {
      const out = await listReturns({ ...inputs, pageMarker: marker });
      seen.push(...out.returns.map((r) => r.id as string));
      marker = out.nextPageMarker;
    } while (marker);
    expect(seen.sort()).toEqual(bulk.slice(0, 3).sort());
  });
});
