import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { compat, seedReturn, type CompatResponse } from '../support/compat.js';
import { axiosQuery, seedBulk, seedEveryState, type StateReturn } from '../support/clients.js';
import { eventually } from '../support/eventually.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

/**
 * Replay of Pipedream's Loop Returns components (PipedreamHQ/pipedream,
 * components/loop_returns/): loop_returns.app.mjs sends every request through
 * the platform's axios with `X-Authorization` (params by axios' serializer);
 * its `returnId` prop lists options page by page with
 * `GET /warehouse/return/list` and its own params (`paginate`, `pageSize`,
 * no `from`/`to`) plus the `cursor` it read from the previous page's
 * `nextPageUrl`. actions/process-return, cancel-return and flag-return POST
 * `/warehouse/return/{returnId}/<action>` without a body and report success
 * on any 2xx (axios throws on the others). The instant sources (sources/:
 * return-created, return-status-updated, label-updated, on common/webhook.mjs)
 * register with `POST /webhooks {url, topic, trigger}`, then `PUT
 * /webhooks/{id}` with `status: "active"`, receive deliveries on their HTTP
 * interface (answering 200), decide relevance as their methods do, and
 * remove the registration with `DELETE /webhooks/{id}` on deactivation.
 */

type Rec = Record<string, unknown>;
const DEFAULT_LIMIT = 30;

const app = useTestApp();
const account = useTestAccount(app, 'Pipedream');

/** The platform's axios: status 2xx resolves with the data, anything else rejects. */
async function axios(method: 'GET' | 'POST', path: string, params: Record<string, string | number | boolean | null | undefined> = {}, key = account.compatKey): Promise<CompatResponse> {
  const query = axiosQuery(params);
  const res = await compat(app, key, method, `${app.baseUrl}/api/v1${path}${query ? `?${query}` : ''}`, undefined, { Accept: 'application/json, text/plain, */*', 'Content-Type': 'application/json' });
  if (res.status < 200 || res.status >= 300) throw Object.assign(new Error(`Request failed with status code ${res.status}`), { response: res });
  return res;
}

/** The `returnId` prop's options: one page per call, the next call carries the cursor in its context. */
async function returnIdOptions(prevContext: { cursor?: string | null }) {
  if (prevContext.cursor === null) return { options: [], context: { cursor: null } };
  const { body } = await axios('GET', '/warehouse/return/list', { paginate: true, pageSize: DEFAULT_LIMIT, cursor: prevContext.cursor });
  const page = body as { returns: Rec[]; nextPageUrl: string | null };
  return {
    options: page.returns.map((r) => ({ label: `${String(r.order_name)} (${String(r.state)})`, value: r.id as number })),
    context: { cursor: page.nextPageUrl ? new URL(page.nextPageUrl).searchParams.get('cursor') : null },
  };
}

/** An action's run(): the POST, then the summary it exports. */
async function runAction(action: 'process' | 'cancel' | 'flag', returnId: number, key = account.compatKey): Promise<{ summary: string; response: unknown }> {
  const { body } = await axios('POST', `/warehouse/return/${returnId}/${action}`, {}, key);
  const done = { process: 'processed', cancel: 'cancelled', flag: 'flagged' }[action];
  return { summary: `Successfully ${done} return with ID \`${returnId}\``, response: body };
}

let made: StateReturn[];
let bulk: string[];
beforeAll(async () => {
  made = await seedEveryState(app, account);
  // More than one page of options (30).
  bulk = await seedBulk(app, account, DEFAULT_LIMIT + 3);
});

describe('Pipedream Loop Returns components, unchanged', () => {
  it('the returnId prop loads every page of options with its own params and the cursor of nextPageUrl', async () => {
    const values: number[] = [];
    let context: { cursor?: string | null } = {};
    let pages = 0;
    do {
      const page = await returnIdOptions(context);
      values.push(...page.options.map((o) => o.value));
      context = page.context;
      pages++;
    } while (context.cursor);
    expect(pages).toBe(2);
    // Loop's default list: the open, closed and expired returns of the last 24 hours.
    const listed = [...made.filter((r) => r.state === 'open' || r.state === 'closed').map((r) => r.numericId)];
    expect(values.length).toBe(listed.length + bulk.length);
    expect(new Set(values).size).toBe(values.length);
    for (const id of listed) expect(values).toContain(id);
  });

  it('process-return, flag-return and cancel-return POST without a body and report success', async () => {
    const toProcess = await seedReturn(app, account);
    expect(await runAction('process', toProcess.numericId)).toEqual({ summary: `Successfully processed return with ID \`${toProcess.numericId}\``, response: true });
    await eventually(async () => ((await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${toProcess.numericId}`)).body.state === 'closed' ? true : undefined), 'the return to close');
    const toFlag = await seedReturn(app, account);
    expect((await runAction('flag', toFlag.numericId)).response).toBe(true);
    const toCancel = await seedReturn(app, account);
    expect((await runAction('cancel', toCancel.numericId)).response).toBe(true);
    // A refusal is a 200 with Loop's body: the action passes it on as its result.
    expect((await runAction('process', toFlag.numericId)).response).toEqual({ errors: { message: 'Return is review and therefore cannot be processed.', code: 'UNPROCESSABLE_FLAGGED_RETURN' } });
  });

  it('the unsigned key probe of any path is 401', async () => {
    await expect(axios('GET', '/warehouse/return/list', {}, 'revoked-key')).rejects.toMatchObject({ response: { status: 401 } });
  });

  it('the three instant sources: activate (POST /webhooks, then PUT status active), receive, decide relevance as their code does, deactivate (DELETE)', async () => {
    const account = await app.createAccount('Pipedream sources');
    const created = await source(account.compatKey, { topic: 'return', trigger: 'return.created' }, createdMethods);
    const statuses = await source(account.compatKey, { topic: 'return', trigger: 'return.updated' }, statusMethods());
    const labels = await source(account.compatKey, { topic: 'label', trigger: 'label.updated' }, labelMethods);
    for (const s of [created, statuses, labels]) expect(s.webhookId).toEqual(expect.any(Number));
    const ids = (await compat(app, account.compatKey, 'GET', '/api/v1/webhooks')).body.webhooks as { id: number; status: string }[];
    expect(ids.filter((w) => [created, statuses, labels].some((s) => s.webhookId === w.id)).map((w) => w.status)).toEqual(['active', 'active', 'active']);

    const ret = await seedReturn(app, account);
    await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/note`, { content: 'Box crushed' });
    const ship = (status: string) =>
      app.graphql(`mutation($id: ID!, $s: ShipmentStatus!) { recordReturnShipmentEvent(returnId: $id, input: {status: $s, carrier: "UPS", trackingNumber: "1Z9"}) { id } }`, { id: ret.id, s: status }, account.apiSecret);
    expect((await ship('label_created')).errors).toBeUndefined();
    expect((await ship('in_transit')).errors).toBeUndefined();
    // The status source's meta id is `<id>-<Date.parse(updated_at)>`, and Loop's updated_at has whole seconds: with `dedupe: "unique"`,
    // Pipedream drops a second change of the same second. The flag comes in a later second than the changes before it, as a person's would.
    await eventually(async () => (statuses.received >= 3 ? true : undefined), 'the label deliveries');
    const lastSecond = Date.parse(`${String((await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${ret.numericId}`)).body.updated_at)}Z`);
    await eventually(async () => (Date.now() >= lastSecond + 1000 ? true : undefined), 'the next second of updated_at');
    expect((await runAction('flag', ret.numericId, account.compatKey)).response).toBe(true);

    // return.updated: the note, the two label events, the flag; the status source emits only when the state changed.
    await eventually(async () => (statuses.received >= 4 ? true : undefined), 'four return.updated deliveries');
    expect(statuses.emitted.map((e) => [e.resource.id, e.resource.state])).toEqual([
      [ret.numericId, 'open'],
      [ret.numericId, 'review'],
    ]);
    expect(statuses.emitted[1]!.meta).toEqual({ id: `${ret.numericId}-${Date.parse(statuses.emitted[1]!.resource.updated_at as string)}`, summary: `Return Status Updated: ${ret.orderName}`, ts: Date.parse(statuses.emitted[1]!.resource.updated_at as string) });
    await eventually(async () => (created.emitted.length ? true : undefined), 'the created source to emit');
    expect(created.emitted.map((e) => e.meta)).toEqual([{ id: ret.numericId, summary: `Return Created With Order: ${ret.orderName}`, ts: Date.parse(created.emitted[0]!.resource.created_at as string) }]);
    await eventually(async () => (labels.emitted.length ? true : undefined), 'the label source to emit');
    expect(labels.emitted.map((e) => [e.resource.label_status, e.resource.tracking_number])).toEqual([['in_transit', '1Z9']]);

    // Deactivate: DELETE answers 204; nothing more reaches the deleted sources, while a source still active receives the next change (the marker).
    for (const s of [created, labels]) await s.deactivate();
    const before = { created: created.received, labels: labels.received };
    expect((await runAction('cancel', (await seedReturn(app, account)).numericId, account.compatKey)).response).toBe(true);
    await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/note`, { content: 'after' });
    await eventually(async () => (statuses.received >= 6 ? true : undefined), 'the active source to receive the later changes');
    expect({ created: created.received, labels: labels.received }).toEqual(before);
    await statuses.deactivate();
    expect((await compat(app, account.compatKey, 'GET', '/api/v1/webhooks')).body.webhooks).toEqual([]);
  });
});

/** What a source does with a received resource (its methods), as its code decides. */
interface SourceMethods {
  isResourceRelevant(resource: Rec, db: Map<unknown, unknown>): boolean;
  processResource?(resource: Rec, db: Map<unknown, unknown>, emit: (r: Rec) => void): void;
  generateMeta(resource: Rec): Rec;
}

/** return-created-instant: every resource is relevant; meta id is the return's id. */
const createdMethods: SourceMethods = {
  isResourceRelevant: () => true,
  generateMeta: (r) => ({ id: r.id, summary: `Return Created With Order: ${String(r.order_name)}`, ts: Date.parse(r.created_at as string) }),
};

/** return-status-updated-instant: relevant when the return's state differs from the one it stored (or none was stored). */
const statusMethods = (): SourceMethods => ({
  isResourceRelevant(r, db) {
    const previous = db.get(r.id);
    if (!previous) return true;
    return r.state !== previous;
  },
  processResource(r, db, emit) {
    if (this.isResourceRelevant(r, db)) {
      db.set(r.id, r.state);
      emit(r);
    }
  },
  generateMeta(r) {
    const ts = Date.parse(r.updated_at as string);
    return { id: `${String(r.id)}-${ts}`, summary: `Return Status Updated: ${String(r.order_name)}`, ts };
  },
});

/** label-updated-instant: every resource is relevant; meta id is its updated_at. */
const labelMethods: SourceMethods = {
  isResourceRelevant: () => true,
  generateMeta: (r) => {
    const ts = Date.parse(r.updated_at as string);
    return { id: ts, summary: `Label Updated: ${String(r.updated_at)}`, ts };
  },
};

/**
 * One deployed source (sources/common/webhook.mjs): its HTTP interface (a receiver that answers
 * 200 and processes the body), `activate` (createWebhook with getEventData, then updateWebhook
 * with status active, then the id kept in its db), `run`, and `deactivate` (deleteWebhook).
 * `dedupe: "unique"`: an emit whose meta id was seen is dropped by the platform.
 */
async function source(key: string, eventData: { topic: string; trigger: string }, methods: SourceMethods) {
  const db = new Map<unknown, unknown>();
  const seen = new Set<unknown>();
  const emitted: { resource: Rec; meta: Rec }[] = [];
  const state = { received: 0 };
  const receiver = await startReceiver();
  hooks.push(receiver);
  const emit = (resource: Rec) => {
    const meta = methods.generateMeta(resource);
    if (seen.has(meta.id)) return;
    seen.add(meta.id);
    emitted.push({ resource, meta });
  };
  receiver.answer((req) => {
    state.received++;
    const body = JSON.parse(req.body) as Rec;
    if (methods.processResource) methods.processResource(body, db, emit);
    else if (methods.isResourceRelevant(body, db)) emit(body);
    return { status: 200 };
  });
  const data = { url: receiver.url, ...eventData };
  const created = await axiosJson(key, 'POST', '/webhooks', data);
  const webhookId = (created as { id: number }).id;
  await axiosJson(key, 'PUT', `/webhooks/${webhookId}`, { ...data, status: 'active' });
  db.set('webhookId', webhookId);
  return {
    webhookId,
    emitted,
    get received() {
      return state.received;
    },
    async deactivate() {
      const id = db.get('webhookId');
      if (id) expect((await compat(app, key, 'DELETE', `/api/v1/webhooks/${String(id)}`)).status).toBe(204);
    },
  };
}

/** The app's post/put: JSON through axios, the data of a 2xx (anything else throws). */
async function axiosJson(key: string, method: 'POST' | 'PUT', path: string, data: unknown): Promise<unknown> {
  const res = await compat(app, key, method, `${app.baseUrl}/api/v1${path}`, data, { Accept: 'application/json, text/plain, */*' });
  if (res.status < 200 || res.status >= 300) throw Object.assign(new Error(`Request failed with status code ${res.status}`), { response: res });
  return res.body;
}

const hooks: Receiver[] = [];
afterAll(async () => {
  for (const r of hooks) await r.close();
});
