import pg from 'pg';
import { expect } from 'vitest';
import type { Spawned } from './processes.js';
import { TEST_ADMIN_TOKEN } from './app.js';
import { query } from './database.js';
import { eventually } from './eventually.js';
import type { Receiver } from './receiver.js';
import { orderBody, returnBody } from './returns.js';
import { RETURN_STATUS_CHANGED } from '../../subgraphs/events/flows/return-trigger.js';

/**
 * Load on every part of the service at once, through its public HTTP doors, as clients that follow
 * the advice of a 503 (retry, with the same Idempotency-Key or uniqueId): return creations and
 * reads, inventory adjustments, custom events (some starting a flow with a webhook step), and a
 * webhook subscription receiving every return. It records what was acknowledged, so that after
 * database crashes the test can check nothing acknowledged was lost or doubled, and every answer.
 */

/** A request without any answer this long counts as unanswered (the service's own deadline is far shorter). */
const NO_ANSWER_MS = 60_000;
/** How long a client keeps retrying one operation before the test fails it. */
const GIVE_UP_MS = 120_000;
const ORDERS = 4;
const FLOWED = 'Flowed';

export interface Store {
  storeId: string;
  apiSecret: string;
  productId: string;
  locationId: string;
  flowId: string;
}

/** The body of every return creation of the load: one unit of the order's line. */
const returnRequest = (orderId: string) => returnBody(orderId, [{ lineItemId: 'l1', quantity: 1, reason: 'crash' }]);

interface Answer {
  status: number;
  body: any;
}

export interface LoadOptions {
  waitSeconds?: number;
  comments?: boolean;
}

export class CrashLoad {
  /** Answers by operation and status (0: no connection, -1: no answer within NO_ANSWER_MS). */
  readonly answers = new Map<string, number>();
  /** Return id by Idempotency-Key, for every key the service acknowledged (201 or 200). */
  readonly returns = new Map<string, string>();
  readonly events: string[] = [];
  /** The acknowledged events that start a flow run. */
  readonly flowed = new Set<string>();
  inventory = { acknowledged: 0, unknown: 0 };
  /** When each acknowledged write was sent (its last try) and acknowledged. */
  private readonly acks: { sentAt: number; at: number }[] = [];
  /** Operations that ended in an answer no retry fixes (a bug), with what was answered. */
  readonly failures: string[] = [];
  private running = false;
  private clients: Promise<void>[] = [];

  /** Comments acknowledged per return. */
  readonly comments = new Map<string, number>();

  constructor(
    readonly baseUrl: string,
    readonly databaseUrl: string,
    readonly store: Store,
    private readonly options: LoadOptions = {},
  ) {}

  /** One account with orders to return from, a product at a location, a flow and a webhook subscription. */
  /**
   * `waitSeconds`: the flow waits that long before its webhook step (a delayed job across the
   * failures); `comments`: a client also comments on the acknowledged returns, one after the other,
   * so each return has several changes whose webhooks must arrive in order.
   */
  static async prepare(baseUrl: string, databaseUrl: string, receiver: Receiver, options: LoadOptions = {}): Promise<CrashLoad> {
    const admin = async (q: string, variables: Record<string, unknown>) => {
      const res = await call(baseUrl, 'POST', '/graphql', TEST_ADMIN_TOKEN, { query: q, variables });
      expect(res.body?.errors, JSON.stringify(res.body)).toBeUndefined();
      return res.body.data;
    };
    const { createAccount } = await admin('mutation($i: CreateAccountInput!) { createAccount(input: $i) { storeId apiSecret } }', { i: { name: 'Crash', storeName: 'Crash store' } });
    const { storeId, apiSecret } = createAccount as { storeId: string; apiSecret: string };
    for (let o = 0; o < ORDERS; o++) {
      const order = await call(baseUrl, 'POST', `/v2.2/stores/${storeId}/custom/orders`, apiSecret, orderBody({ id: `CRASH-${o}` }, [{ id: 'l1', quantity: 1_000_000, price: '1.00' }]));
      expect(order.status, JSON.stringify(order.body)).toBe(200);
    }
    const held = await call(baseUrl, 'POST', `/v2.2/stores/${storeId}/custom/orders`, apiSecret, orderBody({ id: 'HELD' }, [{ id: 'l1', quantity: 10, price: '1.00' }]));
    expect(held.status).toBe(200);
    const { createLocation } = await admin('mutation($s: ID!, $i: CreateLocationInput!) { createLocation(storeId: $s, input: $i) { id } }', { s: storeId, i: { name: 'Dock' } });
    const { upsertProduct } = await admin('mutation($s: ID!, $i: UpsertProductInput!) { upsertProduct(storeId: $s, input: $i) { id } }', { s: storeId, i: { sku: 'WIDGET', title: 'Widget' } });
    const hook = await call(baseUrl, 'POST', `/v2.2/stores/${storeId}/webhooks`, apiSecret, { webhook: { callback: { url: receiver.url, auth: null }, topic: 'return' } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const flow = await call(baseUrl, 'POST', '/graphql', apiSecret, {
      query: 'mutation($s: ID!, $i: FlowInput!) { createFlow(storeId: $s, input: $i) { id } }',
      variables: {
        s: storeId,
        i: {
          name: 'Crash',
          trigger: { eventName: FLOWED },
          steps: [...(options.waitSeconds ? [{ wait: { seconds: options.waitSeconds } }] : []), { webhook: { url: `http://127.0.0.1:${receiver.port}/flow` } }],
        },
      },
    });
    expect(flow.body?.errors, JSON.stringify(flow.body)).toBeUndefined();
    const store = { storeId, apiSecret, productId: upsertProduct.id as string, locationId: createLocation.id as string, flowId: flow.body.data.createFlow.id as string };
    return new CrashLoad(baseUrl, databaseUrl, store, options);
  }

  private count(operation: string, status: number): void {
    const key = `${operation} ${status}`;
    this.answers.set(key, (this.answers.get(key) ?? 0) + 1);
  }

  private async request(operation: string, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<Answer> {
    const answer = await call(this.baseUrl, method, path, this.store.apiSecret, body, idempotencyKey);
    this.count(operation, answer.status);
    return answer;
  }

  /**
   * Sends one operation until the service acknowledges it, as a well-behaved client does: again
   * after a 503 or a dropped connection, and after a 409 for a key whose first request still runs.
   */
  private async untilAcknowledged(operation: string, send: () => Promise<Answer>, acknowledged: (a: Answer) => boolean): Promise<Answer | undefined> {
    const started = Date.now();
    for (;;) {
      const sentAt = Date.now();
      const answer = await send();
      if (acknowledged(answer)) {
        this.acks.push({ sentAt, at: Date.now() });
        return answer;
      }
      if (![0, 409, 503].includes(answer.status) || Date.now() - started > GIVE_UP_MS) {
        this.failures.push(`${operation}: ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 300)}`);
        return undefined;
      }
      await sleep(200);
    }
  }

  /** One return creation under its own key, retried with the same key until acknowledged. */
  async createReturn(key: string, orderId: string): Promise<string | undefined> {
    const send = () => this.request('create return', 'POST', `/v2.2/stores/${this.store.storeId}/returns`, returnRequest(orderId), key);
    const answer = await this.untilAcknowledged(`return ${key}`, send, (a) => a.status === 201 || a.status === 200);
    if (answer) this.returns.set(key, answer.body.return.id);
    return answer?.body.return.id;
  }

  private async returnCreator(c: number): Promise<void> {
    for (let i = 0; this.running; i++) {
      await this.createReturn(`r-${c}-${i}`, `CRASH-${c % ORDERS}`);
      await sleep(50);
    }
  }

  private async returnReader(): Promise<void> {
    while (this.running) {
      await this.request('list returns', 'GET', `/v2.2/stores/${this.store.storeId}/returns?page-size=5`);
      const known = [...this.returns.values()];
      if (known.length) await this.request('get return', 'GET', `/v2.2/returns/${known[known.length - 1]}`);
      await this.graphql('graphql returns', `query($s: ID!) { returns(storeId: $s, first: 3) { edges { node { id status } } } }`, { s: this.store.storeId });
      await sleep(100);
    }
  }

  /** A GraphQL operation; its status is 503 when it failed with SERVICE_UNAVAILABLE, 500 for any other error. */
  async graphql(operation: string, q: string, variables: Record<string, unknown>): Promise<Answer> {
    const answer = await call(this.baseUrl, 'POST', '/graphql', this.store.apiSecret, { query: q, variables });
    const code = answer.body?.errors?.[0]?.extensions?.code as string | undefined;
    const status = answer.status !== 200 || !code ? answer.status : code === 'SERVICE_UNAVAILABLE' ? 503 : 500;
    this.count(operation, status);
    return { status, body: answer.body };
  }

  async adjustInventory(): Promise<number> {
    const answer = await this.graphql('adjust inventory', 'mutation($s: ID!, $i: AdjustInventoryInput!) { adjustInventory(storeId: $s, input: $i) { id quantity } }', {
      s: this.store.storeId,
      i: { productId: this.store.productId, locationId: this.store.locationId, delta: 1 },
    });
    // A 503 or a lost answer leaves the outcome unknown: the change may have committed before the crash.
    if (answer.status === 200) this.inventory.acknowledged++;
    else if (answer.status === 503 || answer.status === 0) this.inventory.unknown++;
    else this.failures.push(`adjust inventory: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    return answer.status;
  }

  private async inventoryAdjuster(): Promise<void> {
    while (this.running) {
      await this.adjustInventory();
      await sleep(50);
    }
  }

  /** One custom event under its own uniqueId, sent again until accepted (202). */
  async sendEvent(uniqueId: string, eventName: string): Promise<void> {
    const body = { eventName, uniqueId, customer: { email: `${uniqueId.split('-')[1]}@example.com` }, data: { uniqueId } };
    const send = () => this.request('create event', 'POST', `/v2.2/stores/${this.store.storeId}/events`, body);
    if (!(await this.untilAcknowledged(`event ${uniqueId}`, send, (a) => a.status === 202))) return;
    this.events.push(uniqueId);
    if (eventName === FLOWED) this.flowed.add(uniqueId);
  }

  private async eventSender(c: number): Promise<void> {
    for (let i = 0; this.running; i++) {
      await this.sendEvent(`e-${c}-${i}`, i % 4 === 0 ? FLOWED : 'Load');
      await sleep(50);
    }
  }

  start(): void {
    this.running = true;
    // Modest on purpose: the machine running the tests runs other test files beside this one.
    this.clients = [this.returnCreator(0), this.returnCreator(1), this.returnReader(), this.inventoryAdjuster(), this.eventSender(0), this.eventSender(1)];
    if (this.options.comments) this.clients.push(this.commenter());
  }

  /** Stops the clients after the operation each has under way is acknowledged. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.clients);
  }

  /** Comments on the returns acknowledged so far, one at a time, retried until acknowledged (a retry after a lost answer may add it twice). */
  private async commenter(): Promise<void> {
    for (let i = 0; this.running; i++) {
      const known = [...this.returns.values()];
      if (known.length) {
        const returnId = known[i % known.length]!;
        const send = () => this.request('comment', 'POST', `/v2.2/returns/${returnId}/comments`, { comment: { message: `comment ${i}` } });
        if (await this.untilAcknowledged(`comment ${returnId}`, send, (a) => a.status === 200 || a.status === 201)) this.comments.set(returnId, (this.comments.get(returnId) ?? 0) + 1);
      }
      await sleep(100);
    }
  }

  /** When the first write sent at or after `t` was acknowledged (a write gap's end); Infinity when none was. */
  firstWriteSentSince(t: number): number {
    return Math.min(...this.acks.filter((a) => a.sentAt >= t).map((a) => a.at));
  }

  /** How much each part has acknowledged so far. */
  progress(): { returns: number; events: number; inventory: number } {
    return { returns: this.returns.size, events: this.events.length, inventory: this.inventory.acknowledged };
  }

  /** Waits until every part acknowledged more than it had (the service answers again under load). */
  async moves(what: string): Promise<void> {
    const before = this.progress();
    await eventually(
      async () => {
        const now = this.progress();
        return now.returns > before.returns && now.events > before.events && now.inventory > before.inventory;
      },
      `every part to acknowledge work again ${what} (${JSON.stringify(this.summary())})`,
      { timeoutMs: 60_000 },
    );
  }

  summary(): Record<string, unknown> {
    return { answers: Object.fromEntries([...this.answers].sort()), progress: this.progress(), inventory: this.inventory, failures: this.failures.slice(0, 5) };
  }

  /**
   * Nothing acknowledged lost or doubled: one return per key, each event stored once, the
   * inventory between what was acknowledged and that plus what is unknown, every flow run
   * finished and its webhook sent, every return delivered to the subscription.
   */
  async verify(receiver: Receiver, extraReturns: string[] = []): Promise<void> {
    const { storeId } = this.store;
    const db = <T>(text: string, params: unknown[] = [storeId]) => query<T>(this.databaseUrl, text, params);

    const stored = await db<{ id: string }>('select id from returns.return where store_id = $1');
    expect(new Set(stored.map((r) => r.id)), 'one return per acknowledged key, and no other').toEqual(new Set([...this.returns.values(), ...extraReturns]));

    const ids = new Set(this.events);
    expect(ids.size, 'each uniqueId acknowledged once').toBe(this.events.length);
    // The clients' events (a return's status changes are events of its customer too, made by the service).
    const theirs = `store_id = $1 and event_name <> '${RETURN_STATUS_CHANGED}'`;
    await eventually(async () => (await db<{ n: number }>(`select count(*)::int as n from events.custom_event where ${theirs}`))[0]!.n >= ids.size, 'the acknowledged events to be stored', {
      timeoutMs: 120_000,
      intervalMs: 250,
    });
    const events = await db<{ unique_id: string; n: number }>(`select unique_id, count(*)::int as n from events.custom_event where ${theirs} group by unique_id`);
    expect(events.filter((e) => e.n !== 1), 'no event stored twice').toEqual([]);
    expect(new Set(events.map((e) => e.unique_id)), 'every acknowledged event stored').toEqual(ids);

    const [level] = await db<{ quantity: number }>(`select quantity from inventory.inventory_item where store_id = $1 and sku = 'WIDGET'`);
    expect(level!.quantity).toBeGreaterThanOrEqual(this.inventory.acknowledged);
    expect(level!.quantity).toBeLessThanOrEqual(this.inventory.acknowledged + this.inventory.unknown);

    let seen: { id: string; status: string }[] = [];
    const runs = await eventually(
      async () => {
        seen = await db<{ id: string; status: string }>('select id, status from events.flow_run where flow_id = $1', [this.store.flowId]);
        return seen.length === this.flowed.size && seen.every((r) => r.status === 'COMPLETED') ? seen : undefined;
      },
      `one completed flow run per ${FLOWED} event (${this.flowed.size})`,
      { timeoutMs: 120_000, intervalMs: 250 },
    ).catch((err: Error) => {
      const statuses = seen.reduce<Record<string, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});
      throw new Error(`${err.message}: runs ${JSON.stringify(statuses)}`);
    });
    const sent = new Set(receiver.received.filter((r) => r.path === '/flow').map((r) => r.headers['webhook-id']));
    // A step's webhook id is the run's and the step's place (after the wait, when there is one).
    const step = this.options.waitSeconds ? 1 : 0;
    expect(runs.filter((r) => !sent.has(`${r.id}.${step}`)), 'every run sent its webhook').toEqual([]);

    const returnIds = [...this.returns.values(), ...extraReturns];
    await eventually(
      async () => {
        const delivered = new Set(receiver.received.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body) as { type: string; return: { id: string } }).filter((b) => b.type === 'created').map((b) => b.return.id));
        return returnIds.every((id) => delivered.has(id));
      },
      'every return delivered to the webhook subscription',
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    if (this.options.comments) await this.verifyChangesInOrder(receiver);
  }

  /**
   * Each return's changes reached the subscription in the order they committed: taking each
   * message at its first arrival (a delivery whose outcome was lost is sent again under the same
   * webhook-id), the notes the bodies carry only grow, and every acknowledged comment arrived.
   */
  private async verifyChangesInOrder(receiver: Receiver): Promise<void> {
    const arrivals = () => {
      const first = new Map<string, { returnId: string; notes: number }>();
      for (const r of receiver.received.filter((r) => r.path === '/hook')) {
        const id = String(r.headers['webhook-id']);
        if (first.has(id)) continue;
        const body = JSON.parse(r.body) as { return: { id: string; notes: unknown[] } };
        first.set(id, { returnId: body.return.id, notes: body.return.notes.length });
      }
      return [...first.values()];
    };
    await eventually(
      async () => {
        const latest = new Map<string, number>();
        for (const a of arrivals()) latest.set(a.returnId, Math.max(latest.get(a.returnId) ?? 0, a.notes));
        return [...this.comments].every(([returnId, n]) => (latest.get(returnId) ?? 0) >= n);
      },
      'every acknowledged comment delivered',
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const seen = new Map<string, number>();
    const outOfOrder: string[] = [];
    for (const { returnId, notes } of arrivals()) {
      if (notes < (seen.get(returnId) ?? 0)) outOfOrder.push(`${returnId}: ${notes} notes after ${seen.get(returnId)}`);
      seen.set(returnId, Math.max(seen.get(returnId) ?? 0, notes));
    }
    expect(outOfOrder, 'each return\'s changes delivered in commit order').toEqual([]);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One HTTP call: status 0 when the connection failed, -1 when no answer came within NO_ANSWER_MS. */
export async function call(baseUrl: string, method: string, path: string, token: string, body?: unknown, idempotencyKey?: string): Promise<Answer> {
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(idempotencyKey && { 'idempotency-key': idempotencyKey }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(NO_ANSWER_MS),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: kept as text for the failure message
    }
    return { status: res.status, body: parsed };
  } catch (err) {
    return { status: (err as Error).name === 'TimeoutError' ? -1 : 0, body: (err as Error).message };
  }
}

/**
 * Holds the order `HELD` (a row lock on another connection) and starts a return creation with
 * `key` on it, which waits inside its transaction holding the key: the request a crash cuts off.
 */
async function holdCreation(load: CrashLoad, key: string): Promise<{ answer: Promise<Answer>; blocker: pg.Client }> {
  const blocker = new pg.Client({ connectionString: load.databaseUrl });
  blocker.on('error', () => undefined); // it dies with the server
  await blocker.connect();
  await blocker.query('begin');
  await blocker.query(`select 1 from returns."order" where external_id = 'HELD' and store_id = $1 for update`, [load.store.storeId]);
  const answer = call(load.baseUrl, 'POST', `/v2.2/stores/${load.store.storeId}/returns`, load.store.apiSecret, returnRequest('HELD'), key);
  const held = `select 1 from pg_locks where locktype = 'advisory' and granted and objsubid = 1
                  and ((classid::bigint << 32) | objid::bigint) = hashtextextended('idempotency:' || $1 || ':' || $2, 0)`;
  await eventually(async () => (await query(load.databaseUrl, held, [load.store.storeId, key])).length === 1, 'the held creation to claim its key', { timeoutMs: 30_000 });
  return { answer, blocker };
}

/** The environment of the service processes the crash tests start (the database URL and ports on top). */
export function serviceEnv(extra: Record<string, string>): Record<string, string | undefined> {
  return {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    DEMO_ACCOUNT: 'false',
    DATABASE_URL: undefined,
    // Small pools: a pool that lost connections for good would run dry within the first kills.
    DB_POOL_SIZE: '4',
    EVENTS_RATE_LIMIT_PER_SECOND: '100000',
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
    ...extra,
  };
}

/** Polls each process's /readyz: which kills each saw answered 503, and whether all are ready now. */
function watchReadiness(urls: string[]) {
  let kill = -1;
  let running = true;
  const saw = urls.map(() => new Set<number>());
  const last = urls.map(() => 0);
  const loops = urls.map(async (url, i) => {
    while (running) {
      const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(15_000) }).then(
        (r) => r.status,
        () => 0,
      );
      last[i] = status;
      if (status === 503 && kill >= 0) saw[i]!.add(kill);
      await sleep(100);
    }
  });
  return {
    killed: (k: number) => (kill = k),
    notReadyAfter: (k: number) => eventually(async () => saw.every((s) => s.has(k)), `every process's /readyz to answer 503 after kill ${k + 1}`, { timeoutMs: 30_000 }),
    ready: (what: string) => eventually(async () => last.every((s) => s === 200), `every process to be ready again ${what} (last: ${last.join(', ')})`, { timeoutMs: 90_000 }),
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Every operation of every part, once, right after the recovery: each must answer as on any day. */
async function everyOperationAnswers(load: CrashLoad): Promise<void> {
  const { storeId } = load.store;
  expect(await load.createReturn('after-the-crashes', 'CRASH-0')).toEqual(expect.any(String));
  const reads = [
    await call(load.baseUrl, 'GET', `/v2.2/stores/${storeId}/returns?page-size=5`, load.store.apiSecret),
    await call(load.baseUrl, 'GET', `/v2.2/stores/${storeId}/inventory-items`, load.store.apiSecret),
    await call(load.baseUrl, 'GET', `/v2.2/stores/${storeId}/webhooks`, load.store.apiSecret),
    await load.graphql('flows', 'query($s: ID!) { flows(storeId: $s) { totalCount } }', { s: storeId }),
  ];
  expect(reads.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  expect(await load.adjustInventory()).toBe(200);
  await load.sendEvent('after-the-crashes', FLOWED);
  expect(load.events).toContain('after-the-crashes');
}

/** SIGTERM, then the exit: code 0, and no pool left waiting on a connection lost in the crash. */
export async function stopsCleanly(spawned: Spawned): Promise<void> {
  spawned.child.kill('SIGTERM');
  const { code } = await spawned.exited;
  expect(code, spawned.output().slice(-3000)).toBe(0);
  expect(spawned.output()).not.toContain('did not close in time');
}

/** What each failure cost: from the failure until the first write sent after it was acknowledged, and until every process was ready again. */
export interface Gap {
  writesMs: number;
  readyMs: number;
}

/**
 * Runs the load, brings the database down `kills` times through `kill` (3 unless said), checks the
 * answers on the way and the outcome, and measures each gap: from when `kill` says the failure
 * began (the time it returns, or the call's start), until the first write sent after it was
 * acknowledged, and until every process was ready again.
 */
export async function crashUnderLoad(
  load: CrashLoad,
  receiver: Receiver,
  readyUrls: string[],
  kill: (k: number) => Promise<number | void>,
  output: () => string,
  options: { kills?: number } = {},
): Promise<Gap[]> {
  const kills = options.kills ?? 3;
  const gaps: Gap[] = [];
  const readiness = watchReadiness(readyUrls);
  const context = () => `${JSON.stringify(load.summary())}\n${output().slice(-3000)}`;
  try {
    load.start();
    await load.moves('once the load is under way');
    // The first kill cuts off a return creation inside its transaction, holding its Idempotency-Key.
    const held = await holdCreation(load, 'held-key');
    for (let k = 0; k < kills; k++) {
      if (k > 0) await sleep(300 + Math.random() * 2_000);
      readiness.killed(k);
      const called = Date.now();
      const killedAt = (await kill(k)) ?? called;
      await readiness.notReadyAfter(k).catch((err: Error) => {
        throw new Error(`${err.message}\n${context()}`);
      });
      await readiness.ready(`after kill ${k + 1}`).catch((err: Error) => {
        throw new Error(`${err.message}\n${context()}`);
      });
      const readyMs = Date.now() - killedAt;
      if (k === 0) {
        // Cut off by the crash: answered, as "retry", not left hanging nor a masked 500.
        expect((await held.answer).status, JSON.stringify(await held.answer)).toBe(503);
        await held.blocker.end().catch(() => undefined);
      }
      await load.moves(`after kill ${k + 1}`).catch((err: Error) => {
        throw new Error(`${err.message}\n${output().slice(-3000)}`);
      });
      gaps.push({ writesMs: load.firstWriteSentSince(killedAt) - killedAt, readyMs });
    }
  } finally {
    await load.stop();
    await readiness.stop();
  }
  await everyOperationAnswers(load);

  // The key the crash cut off is retried: one return, replayed from then on.
  const heldId = await load.createReturn('held-key', 'HELD');
  expect(heldId, context()).toEqual(expect.any(String));
  const replay = await call(load.baseUrl, 'POST', `/v2.2/stores/${load.store.storeId}/returns`, load.store.apiSecret, returnRequest('HELD'), 'held-key');
  expect(replay.status).toBe(200);
  expect(replay.body.return.id).toBe(heldId);

  const answers = [...load.answers.keys()];
  expect(load.failures, context()).toEqual([]);
  // Every request got an answer, and what failed for the crash said "retry" (503), never a masked 500.
  expect(answers.filter((a) => / (-1|500)$/.test(a)), context()).toEqual([]);
  expect(answers.some((a) => a.endsWith(' 503')), context()).toBe(true);
  await load.verify(receiver);
  return gaps;
}
