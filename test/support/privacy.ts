import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { useTestAccount, type TestAccount, type TestApp } from './app.js';
import { jobRows, query } from './database.js';
import { eventually } from './eventually.js';
import { accept } from './events.js';
import { createFlow, createTemplate } from './flows.js';
import { startReceiver, type Receiver } from './receiver.js';
import { orderBody, postReturn, pushOrder, returnBody } from './returns.js';
import { call, commentOn, createWebhook } from './webhooks.js';

/** One row of one column, anywhere in the database, holding one of the needles. */
export interface Hit {
  table: string;
  column: string;
  /** The whole row, as JSON (its ids tell what record it is). */
  row: Record<string, unknown>;
}

/**
 * Every text, character, JSON and array column of every table of every schema (pg-boss's job
 * partitions included), searched for the needles case-insensitively.
 */
export async function scan(databaseUrl: string, needles: readonly string[]): Promise<Hit[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await scanWith(client, needles);
  } finally {
    await client.end();
  }
}

async function scanWith(client: pg.Client, needles: readonly string[]): Promise<Hit[]> {
  const { rows: columns } = await client.query<{ schema: string; table: string; column: string }>(
    `select c.table_schema as schema, c.table_name as table, c.column_name as column from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where t.table_type = 'BASE TABLE' and c.table_schema not in ('pg_catalog', 'information_schema')
        and (c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED'))
      order by 1, 2, 3`,
  );
  const patterns = needles.map((n) => `%${n.replace(/[\\%_]/g, '\\$&')}%`);
  const hits: Hit[] = [];
  for (const { schema, table, column } of columns) {
    const { rows } = await client.query<{ row: Record<string, unknown> }>(`select to_jsonb(t) as row from "${schema}"."${table}" t where t."${column}"::text ilike any($1)`, [patterns]);
    hits.push(...rows.map(({ row }) => ({ table: `${schema}.${table}`, column, row })));
  }
  return hits;
}

/** The person every privacy test erases, and someone who only mentions them. */
export const ANN = { email: 'Ann.Erased@example.com', phoneNumber: '+14155550123', firstName: 'Ann', lastName: 'Erasmus' };
export const NEEDLES = [ANN.email.toLowerCase(), ANN.phoneNumber];

/** Waits until no job that could still copy or remove personal data is pending, and no webhook message is owed. */
export async function settled(databaseUrl: string): Promise<void> {
  await eventually(async () => {
    const [row] = await query<{ n: number }>(
      databaseUrl,
      `select (select count(*) from events.event_inbox where ready_at <= now())
            + (select count(*) from webhooks.message where state = 'queued') as n`,
    );
    const jobs = await jobRows(databaseUrl, { names: ['flow-triggers', 'webhooks-outbox', 'inventory-restock', 'privacy-erasure', 'privacy-retention'], unfinished: true });
    const due = jobs.filter((j) => new Date(j.startAfter) <= new Date()).length;
    return Number(row!.n) + due === 0;
  }, 'the queues and the webhook deliveries to settle');
}

interface Seeded {
  annId: string;
  bobId: string;
  orderId: string;
  returnId: string;
  flowId: string;
}

/**
 * Ann's data in every place the service keeps customer data: a profile (events by email and by
 * phone), events with her identifiers in their properties, a flow that emails and texts her, an
 * order and a return with a merchant's comment quoting her, webhook subscriptions that received
 * copies of all of it; and Bob, whose event mentions her email.
 */
async function seedAnn(app: TestApp, account: TestAccount, webhookUrl: string): Promise<Seeded> {
  for (const topic of ['custom_event', 'return', 'customer']) {
    expect((await createWebhook(app, account, { callback: { url: webhookUrl, auth: null }, topic })).status).toBe(201);
  }
  const email = await createTemplate(app, account, { name: 'Thanks', channel: 'EMAIL', subject: 'Thanks {{ customer.firstName }}', body: 'We wrote to {{ customer.email }} about {{ event.data.total }}.' });
  const sms = await createTemplate(app, account, { name: 'Text', channel: 'SMS', body: 'Hi {{ customer.firstName }}, your number {{ customer.phoneNumber }}' });
  const flow = await createFlow(app, account, { name: 'After order', trigger: { eventName: 'Placed Order' }, steps: [{ sendEmail: { templateId: email, kind: 'transactional' } }, { sendSms: { templateId: sms, kind: 'transactional' } }] });

  await accept(app, account, {
    eventName: 'Placed Order',
    uniqueId: 'order-ann-1',
    customer: { ...ANN, location: { street1: '7 Privacy Lane', city: 'Springfield', postalCode: '99999' } },
    data: { total: 42, note: `call ${ANN.email} back`, $extra: { phone: ANN.phoneNumber } },
  });
  await accept(app, account, { eventName: 'Viewed', customer: { phoneNumber: ANN.phoneNumber }, data: { page: 'home' } });
  await accept(app, account, { eventName: 'Referred', customer: { email: 'bob@example.com' }, data: { friend: ANN.email.toLowerCase() } });

  const order = orderBody(
    { customer: { email: ANN.email.toUpperCase(), firstName: ANN.firstName, lastName: ANN.lastName, phoneNumber: ANN.phoneNumber }, shippingAddress: { line1: '7 Privacy Lane', city: 'Springfield', state: 'IL', postalCode: '99999', country: 'US' } },
    [{ id: 'l1', quantity: 2, price: '20.00', sku: 'SKU-P', title: 'Lamp' }],
  );
  const pushed = await pushOrder(app, account, order);
  expect(pushed.status).toBe(200);
  const created = await postReturn(app, account, returnBody(order.id as string, [{ lineItemId: 'l1', quantity: 1, reason: 'broken', notes: `Ann says: reach me at ${ANN.phoneNumber}` }]));
  expect(created.status).toBe(201);
  const returnId = created.body.return.id as string;
  expect((await commentOn(app, account, returnId, `Customer ${ANN.email} called`)).status).toBe(201);
  expect((await call(app, account.apiSecret, 'PUT', `/v2.2/returns/${returnId}/status`, { status: 'complete' })).status).toBe(204);

  const ids = await eventually(async () => {
    const rows = await query<{ id: string; email: string | null }>(app.databaseUrl, 'select id, email from events.customer where store_id = $1', [account.storeId]);
    const runs = await query(app.databaseUrl, `select 1 from events.flow_run where flow_id = $1 and status = 'COMPLETED'`, [flow.id]);
    const ann = rows.find((r) => r.email === ANN.email);
    const bob = rows.find((r) => r.email === 'bob@example.com');
    return ann && bob && runs.length ? { annId: ann.id, bobId: bob.id } : undefined;
  }, "Ann's and Bob's profiles and the flow's run");
  // Her return's two status changes (created, complete) are events of hers too (return.statusChanged): stored before anything is asked.
  await eventually(async () => {
    const rows = await query(app.databaseUrl, `select 1 from events.custom_event where store_id = $1 and event_name = 'return.statusChanged'`, [account.storeId]);
    return rows.length === 2;
  }, "her return's status changes to be stored as her events");
  await settled(app.databaseUrl);
  return { ...ids, orderId: pushed.body.order.id as string, returnId, flowId: flow.id };
}

/** A store of the test app with Ann seeded everywhere (seedAnn), and the receiver of its webhooks: filled in a beforeAll. */
export interface AnnsStore {
  shop: TestAccount;
  seeded: Seeded;
  receiver: Receiver;
}

export function useAnnsStore(app: TestApp, name: string): AnnsStore {
  const store = { shop: useTestAccount(app, name) } as AnnsStore;
  beforeAll(async () => {
    store.receiver = await startReceiver();
    store.seeded = await seedAnn(app, store.shop, store.receiver.url);
  });
  afterAll(() => store.receiver?.close());
  return store;
}

/** POST .../customers/erasure; the request's id. */
export async function requestErasure(app: TestApp, account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await call(app, account.apiSecret, 'POST', `/v2.2/stores/${account.storeId}/customers/erasure`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.erasure.id as string;
}

/** Polls the erasure's status until it completed; its document. */
export async function erasureCompleted(app: TestApp, account: TestAccount, id: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const res = await call(app, account.apiSecret, 'GET', `/v2.2/stores/${account.storeId}/customers/erasure/${id}`);
    return res.body.erasure.status === 'COMPLETED' ? (res.body.erasure as Record<string, any>) : undefined;
  }, `erasure ${id} to complete`, { timeoutMs: 60_000 });
}

/** The counts of an erasure document as `kind/ACTION -> n`. */
export function countsOf(erasure: Record<string, any>): Record<string, number> {
  return Object.fromEntries((erasure.counts as { kind: string; action: string; count: number }[]).map((c) => [`${c.kind}/${c.action}`, c.count]));
}
