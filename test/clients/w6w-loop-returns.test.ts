import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { compat, seedReturn } from '../support/compat.js';
import { daysAgo, seedBulk, seedEveryState, type StateReturn } from '../support/clients.js';
import { eventually } from '../support/eventually.js';

/**
 * Replay of the w6w Loop Returns app (segevsh/w6w-apps, apps/loop-returns/):
 * lib/client.ts (how it builds URLs with URLSearchParams, which headers it
 * sends, and how it decides success from the body: Loop answers several
 * failures with a 200), auth/api-key.ts (its key probe), health/api.ts (its
 * unsigned probe) and actions/return-*.ts (the ten warehouse endpoints, with
 * their inputs and what each reads). Only the base URL and the key change.
 */

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** lib/client.ts#errorText: a sentence out of any of Loop's error shapes, or null when the body is none. */
function errorText(body: unknown): string | null {
  if (!isRec(body)) return null;
  const err = body.error;
  if (isRec(err) && typeof err.message === 'string') return `${typeof err.http_code === 'string' ? `${err.http_code}: ` : ''}${err.message}`;
  const errs = body.errors;
  if (typeof errs === 'string' && errs) return errs;
  if (Array.isArray(errs)) {
    const parts = errs.map((e) => (isRec(e) && typeof e.message === 'string' ? e.message : null)).filter((m): m is string => !!m);
    if (parts.length) return parts.join('; ');
  }
  if (isRec(errs)) {
    if (typeof errs.message === 'string') return errs.message;
    const parts = Object.entries(errs).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
    if (parts.length) return typeof body.message === 'string' ? `${body.message} (${parts.join('; ')})` : parts.join('; ');
  }
  return null;
}

class LoopError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

const app = useTestApp();
const account = useTestAccount(app, 'w6w');

/** lib/client.ts#LoopClient.request: throws on a non-2xx and on a 2xx whose body is an error shape. */
async function request(method: string, path: string, opts: { query?: Record<string, string | number | boolean | undefined>; body?: unknown; key?: string } = {}): Promise<unknown> {
  const url = new URL(`${app.baseUrl}/api/v1${path}`);
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  const res = await compat(app, opts.key ?? account.compatKey, method, url.toString(), opts.body, { accept: 'application/json' });
  const ok = res.status >= 200 && res.status < 300;
  const bare = isRec(res.body) && typeof res.body.message === 'string' ? res.body.message : null;
  const msg = errorText(res.body) ?? (ok ? null : bare);
  if (!ok) throw new LoopError(`Loop ${method} ${path} failed (HTTP ${res.status})${msg ? `: ${msg}` : ''}`, res.status, res.body);
  if (msg !== null) throw new LoopError(`Loop ${method} ${path} refused the request: ${msg}`, res.status, res.body);
  return res.body;
}

/** lib/client.ts#cursorOf. */
const cursorOf = (url: unknown) => (typeof url === 'string' && url ? new URL(url).searchParams.get('cursor') : null);

// actions/return-*.ts, each as its execute() calls the client and shapes its output.
const actions = {
  async list(input: { from?: string; to?: string; filter?: string; state?: string; pageSize?: number; cursor?: string | null }) {
    const res = await request('GET', '/warehouse/return/list', {
      query: { from: input.from, to: input.to, filter: input.filter, state: input.state, paginate: true, pageSize: input.pageSize ?? 25, cursor: input.cursor ?? undefined },
    });
    const page = (Array.isArray(res) ? { returns: res } : res) as Rec;
    const next = (page.nextPageUrl ?? null) as string | null;
    return { returns: (page.returns ?? []) as Rec[], nextCursor: cursorOf(next), nextPageUrl: next };
  },
  get: (input: { returnId?: number; orderId?: number; orderName?: string; currencyType?: string }) =>
    request('GET', '/warehouse/return/details', { query: { return_id: input.returnId, order_id: input.orderId, order_name: input.orderName, currency_type: input.currencyType } }) as Promise<Rec>,
  perform: async (returnId: number, action: 'process' | 'cancel' | 'close' | 'flag', body?: Rec) => ({
    success: (await request('POST', `/warehouse/return/${encodeURIComponent(String(returnId))}/${action}`, { body })) === true,
  }),
  removeLineItems: async (returnId: number, lineItemIds: string) => ({
    success: (await request('POST', `/warehouse/return/${returnId}/remove`, { query: { line_item_id: lineItemIds.split(',').map((s) => s.trim()).filter(Boolean).join(',') } })) === true,
  }),
  createNote: async (returnId: number, content: string) => ({ success: (await request('POST', `/warehouse/return/${returnId}/note`, { body: { content } })) === true }),
  async listNotes(returnId: number) {
    try {
      const res = await request('GET', `/warehouse/return/${returnId}/notes`);
      return { notes: Array.isArray(res) ? res : [] };
    } catch (e) {
      if (e instanceof LoopError && e.status === 422 && e.body === false) return { notes: [] };
      throw e;
    }
  },
  asn: async (input: { from?: string; to?: string }) => {
    const res = await request('GET', '/warehouse/reporting/asn', { query: input });
    return { items: Array.isArray(res) ? (res as Rec[]) : [] };
  },
};

/** `yyyy-mm-dd hh:mm:ss`, as the app's list inputs ask for them. */
const loopDate = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

let made: StateReturn[];
let bulk: string[];
beforeAll(async () => {
  made = await seedEveryState(app, account);
  // More returns than one page of the app's default page size (25).
  bulk = await seedBulk(app, account, 20);
});

describe('w6w Loop Returns app, unchanged', () => {
  it('auth/api-key.ts: the key probe accepts the key (a returns page) and reports a rejected one', async () => {
    const probe = async (key: string) => {
      const res = await compat(app, key, 'GET', '/api/v1/warehouse/return/list?paginate=true&pageSize=1', undefined, { accept: 'application/json' });
      if (res.status >= 200 && res.status < 300 && errorText(res.body) === null) return Array.isArray(res.body?.returns) ? { ok: true } : { ok: false, message: 'not the documented returns page' };
      if (res.status === 401 || /unauthori[sz]ed/i.test(errorText(res.body) ?? '')) return { ok: false, message: 'rejected' };
      return { ok: false, message: `HTTP ${res.status}` };
    };
    expect(await probe(account.compatKey)).toEqual({ ok: true });
    expect(await probe('not-a-key')).toEqual({ ok: false, message: 'rejected' });
  });

  it('health/api.ts: an unsigned GET /webhooks answers a JSON 401 the probe reads as "API serving"', async () => {
    const res = await compat(app, undefined, 'GET', '/api/v1/webhooks', undefined, { accept: 'application/json' });
    expect(res.text.trimStart().startsWith('<')).toBe(false);
    expect(res.status).toBe(401);
    expect(errorText(res.body)).toBe('GEN-UNAUTHORIZED: Unauthorized.');
  });

  it('return-list.ts: its default inputs walk every page by nextCursor; each state filter with from/to finds its returns', async () => {
    const seen: string[] = [];
    let page = await actions.list({});
    seen.push(...page.returns.map((r) => r.service_id as string));
    while (page.nextCursor) {
      page = await actions.list({ cursor: page.nextCursor });
      seen.push(...page.returns.map((r) => r.service_id as string));
    }
    // Loop's default: open, closed and expired returns of the last 24 hours.
    const expected = [...made.filter((r) => r.state === 'open' || r.state === 'closed').map((r) => r.id), ...bulk];
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(expected.sort());

    for (const state of ['open', 'closed', 'cancelled', 'expired', 'review'] as const) {
      const found: string[] = [];
      let next: string | null = null;
      do {
        const res = await actions.list({ from: loopDate(daysAgo(45)), to: loopDate(daysAgo(-1)), filter: 'created_at', state, pageSize: 3, cursor: next });
        expect(res.returns.every((r) => r.state === state), state).toBe(true);
        found.push(...res.returns.map((r) => r.service_id as string));
        next = res.nextCursor;
      } while (next);
      const want = [...made.filter((r) => r.state === state).map((r) => r.id), ...(state === 'open' ? bulk : [])];
      expect(found.sort(), state).toEqual(want.sort());
    }
  });

  it('return-get.ts: a return by return ID, order ID or order name, with what it outputs; an unknown one is an error', async () => {
    const exchange = made.find((r) => r.exchanged)!;
    for (const input of [{ returnId: exchange.numericId }, { orderId: exchange.orderNumericId, currencyType: 'shop' }, { orderName: exchange.orderName }]) {
      const ret = await actions.get(input);
      expect(ret).toMatchObject({ id: exchange.numericId, state: 'open', order_name: exchange.orderName, outcome: 'exchange' });
      expect((ret.line_items as Rec[]).map((l) => l.line_item_id)).toEqual(Object.values(exchange.lines));
      expect((ret.exchanges as Rec[]).length).toBe(2);
    }
    await expect(actions.get({ returnId: 999_999 })).rejects.toThrow('No return found with this ID.');
  });

  it('return-process/cancel/close/flag.ts: true is success; a refusal in a 200 body is raised (or, for cancel\'s {content}, not a success)', async () => {
    const open = await seedReturn(app, account);
    expect(await actions.perform(open.numericId, 'process', { processed_by: 'w6w' })).toEqual({ success: true });
    await eventually(async () => ((await actions.get({ returnId: open.numericId })).state === 'closed' ? true : undefined), 'the processed return to close');
    await expect(actions.perform(open.numericId, 'process')).rejects.toThrow('Return is closed and therefore cannot be processed.');

    const flagged = await seedReturn(app, account);
    expect(await actions.perform(flagged.numericId, 'flag')).toEqual({ success: true });
    expect(await actions.perform(flagged.numericId, 'cancel')).toEqual({ success: false });
    expect(await actions.perform(flagged.numericId, 'close')).toEqual({ success: true });
    const cancelled = await seedReturn(app, account);
    expect(await actions.perform(cancelled.numericId, 'cancel')).toEqual({ success: true });
    await expect(actions.perform(999_999, 'flag')).rejects.toThrow('No return found with this ID.');
  });

  it('return-remove-line-items.ts, return-note-create.ts, return-notes-list.ts', async () => {
    const ret = await seedReturn(app, account);
    expect(await actions.listNotes(ret.numericId)).toEqual({ notes: [] });
    expect(await actions.createNote(ret.numericId, 'Box crushed')).toEqual({ success: true });
    expect((await actions.listNotes(ret.numericId)).notes).toEqual([expect.objectContaining({ content: 'Box crushed' })]);
    expect(await actions.removeLineItems(ret.numericId, ` ${Object.values(ret.lines)[0]}, `)).toEqual({ success: true });
    const left = await actions.get({ returnId: ret.numericId });
    expect((left.line_items as Rec[]).map((l) => l.line_item_id)).toEqual([Object.values(ret.lines)[1]]);
  });

  it('return-asn-report.ts: one row per returned item in a yyyy-mm-dd range', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const { items } = await actions.asn({ from: daysAgo(6).toISOString().slice(0, 10), to: today });
    const exchange = made.find((r) => r.exchanged)!;
    expect(items.filter((i) => i.id === exchange.numericId).map((i) => i.outcome)).toEqual(['exchange', 'exchange']);
    expect(items.some((i) => i.id === made.find((r) => r.state === 'expired')!.numericId)).toBe(false);
    expect((await actions.asn({})).items.length).toBe(items.length);
  });
});
