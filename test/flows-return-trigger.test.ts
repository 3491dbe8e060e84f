import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { query } from './support/database.js';
import { postEvent } from './support/events.js';
import { eventually } from './support/eventually.js';
import { createFlow, createTemplate, finished, runsWhen, startSmtpServer } from './support/flows.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

/**
 * Flows started by return outcomes (decisions section 22): each status change of a return, from
 * the returns' outbox with its previous status, is a `return.statusChanged` event of the order's
 * customer; flows trigger on it with conditions on status, previousStatus, reason and totals, and
 * on the customer's return history; each change starts a flow once.
 */
describe('flows on return status changes', () => {
  let app: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    app = await startTestApp({ SMTP_URL: smtp.url, SMTP_FROM: 'shop@example.com' });
  });
  afterAll(async () => {
    await app?.stop();
    await smtp?.close();
  });

  const setStatus = async (token: string, id: string, status: string) => {
    const res = await app.graphql(`mutation($id: ID!, $s: ReturnStatus!) { updateReturnStatus(returnId: $id, status: $s) { id } }`, { id, s: status }, token);
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  };

  it('starts a flow when a return is rejected, with the return in its message, once per change', async () => {
    const account = await app.createAccount('Return outcomes');
    const template = await createTemplate(app, account, {
      name: 'Rejected',
      channel: 'EMAIL',
      subject: 'Your return for {{ event.data.orderName }}',
      body: 'Sorry {{ customer.firstName }}, your return ({{ event.data.reason }}, {{ event.data.units }} units) went from {{ event.data.previousStatus }} to {{ event.data.status }}.',
    });
    const flow = await createFlow(app, account, {
      name: 'Return rejected',
      trigger: { eventName: 'return.statusChanged', where: [{ key: 'status', operator: 'EQUALS', value: 'rejected' }] },
      steps: [{ sendEmail: { templateId: template } }],
    });
    // Any change that is not a rejection starts nothing; a flow on a customer's return history sees this one too.
    const serial = await createFlow(app, account, {
      name: 'Second return or more',
      trigger: { eventName: 'return.statusChanged', where: [{ key: 'previousStatus', operator: 'IS_NOT_SET' }] },
      audience: { all: [{ returns: { minCount: 2 } }] },
      steps: [{ wait: { seconds: 1 } }],
    });

    const order = orderBody({ id: 'o-1', customer: { email: 'Rae@example.com', firstName: 'Rae' } }, [{ id: 'l1', quantity: 3, price: '20.00', sku: 'S' }]);
    expect((await pushOrder(app, account, order)).status).toBe(200);
    const first = await postReturn(app, account, returnBody('o-1', [{ lineItemId: 'l1', quantity: 2, reason: 'too small' }]));
    expect(first.status).toBe(201);
    const id = first.body.return.id as string;
    await setStatus(account.apiSecret, id, 'rejected');

    const shown = await app.graphql<{ flow: { transactional: boolean; steps: { sendEmail: { kind: string } }[] } }>(`query($id: ID!) { flow(id: $id) { transactional steps } }`, { id: flow.id }, account.apiSecret);
    expect(shown.data?.flow.transactional).toBe(true);
    // Its message steps are transactional: sent without marketing consent (the customer never subscribed).
    expect(shown.data?.flow.steps[0]!.sendEmail.kind).toBe('transactional');
    const runs = await runsWhen(app, account, flow.id, (r) => r.length === 1 && r.every(finished), 'the rejection run to finish');
    expect(runs[0]!.status).toBe('COMPLETED');
    expect(runs[0]!.customer?.email).toBe('Rae@example.com');
    const mail = await eventually(async () => smtp.mails.find((m) => m.to.includes('Rae@example.com')), 'the email');
    expect(mail.subject).toBe('Your return for #' + String(order.name).slice(1));
    expect(mail.text.trim()).toBe(`Sorry Rae, your return (too small, 2 units) went from ${first.body.return.status} to rejected.`);

    // The events stored: one per change (creation, rejection), under the service's own uniqueIds.
    const stored = await query<{ status: string; previous: string | null }>(
      app.databaseUrl,
      `select data->>'status' as status, data->>'previousStatus' as previous from events.custom_event where store_id = $1 and event_name = 'return.statusChanged' order by event_timestamp`,
      [account.storeId],
    );
    expect(stored).toEqual([
      { status: first.body.return.status, previous: null },
      { status: 'rejected', previous: first.body.return.status },
    ]);

    // A second return: its creation is the customer's second return, so the history flow starts (once).
    const second = await postReturn(app, account, returnBody('o-1', [{ lineItemId: 'l1', quantity: 1, reason: 'damaged' }]));
    expect(second.status).toBe(201);
    const serialRuns = await runsWhen(app, account, serial.id, (r) => r.length === 1 && r.every(finished), 'the history run');
    expect(serialRuns).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await runsWhen(app, account, flow.id, (r) => r.every(finished), 'no more rejection runs')).toHaveLength(1);
  });

  it('refuses return trigger conditions on unknown properties or statuses, and the event name from clients', async () => {
    const account = await app.createAccount('Return trigger validation');
    const res = await app.graphql(
      `mutation($s: ID!, $i: FlowInput!) { createFlow(storeId: $s, input: $i) { id } }`,
      { s: account.storeId, i: { name: 'Bad', trigger: { eventName: 'return.statusChanged', where: [{ key: 'colour', operator: 'EQUALS', value: 'red' }, { key: 'status', operator: 'EQUALS', value: 'lost' }] }, steps: [{ wait: { seconds: 1 } }] } },
      account.apiSecret,
    );
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const pointers = (res.errors![0]!.extensions!.errors as { pointer: string }[]).map((e) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/input/trigger/where/0/key', '/input/trigger/where/1/value']));

    const spoofed = await postEvent(app, account, { eventName: 'return.statusChanged', customer: { email: 'x@example.com' }, data: { status: 'rejected' } });
    expect(spoofed.status).toBe(400);
  });
});
