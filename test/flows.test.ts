import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { jobRows } from './support/database.js';
import { accept, customersOf, drained } from './support/events.js';
import {
  FLOWS_GQL,
  createFlow,
  createTemplate,
  finished,
  flowsIdle,
  gqlOk,
  messagesOf,
  runsOf,
  runsWhen,
  startReceiver,
  startSmtpServer,
  type Run,
} from './support/flows.js';

/**
 * Flows end to end with real providers: a real SMTP server (smtp-server,
 * mails parsed with mailparser) and a real HTTP receiver for SMS and webhook
 * steps; real workers on the embedded PostgreSQL. Waits are short (1-2 s).
 */
describe('flows', () => {
  let app: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let sms: Awaited<ReturnType<typeof startReceiver>>;
  let hook: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    sms = await startReceiver();
    hook = await startReceiver();
    app = await startTestApp({ SMTP_URL: smtp.url, SMTP_FROM: 'shop@example.com', SMS_WEBHOOK_URL: `${sms.url}/sms`, TEMPLATE_RENDER_TIMEOUT_MS: '300', TEMPLATE_MAX_OUTPUT_BYTES: '20000' });
  });
  afterAll(async () => {
    await app?.stop();
    await smtp?.close();
    await sms?.close();
    await hook?.close();
  });

  const stepsOf = (run: Run) => run.steps.map((s) => `${s.path} ${s.type} ${s.status}${s.detail && ['condition'].includes(s.type) ? ` ${s.detail}` : ''}`);

  it('the worked example: Order Placed waits, branches on the total and sends a templated email (SMTP) or an SMS (gateway)', async () => {
    const account = await app.createAccount('Worked example');
    const vip = await createTemplate(app, account, {
      name: 'Big order',
      channel: 'EMAIL',
      subject: 'Thanks {{ customer.firstName }} for order {{ event.data.orderNumber }}',
      body: 'Hi {{ customer.firstName }}, your order of {{ event.value | money }} at {{ store.name }} on {{ event.timestamp | date: "%Y-%m-%d" }} ships soon.',
    });
    const small = await createTemplate(app, account, { name: 'Small order', channel: 'SMS', body: 'Order {{ event.data.orderNumber }} received, {{ customer.firstName }}!' });
    const flow = await createFlow(app, account, {
      name: 'Order follow-up',
      trigger: { eventName: 'Order Placed' },
      steps: [
        { wait: { seconds: 1 } },
        { condition: { if: { profile: { field: 'event.total', operator: 'GREATER_THAN', value: 100 } }, then: [{ sendEmail: { templateId: vip, kind: 'transactional' } }], else: [{ sendSms: { templateId: small, kind: 'transactional' } }] } },
      ],
    });
    expect(flow.signingSecret).toMatch(/^whsec_/);

    await accept(app, account, { eventName: 'Order Placed', customer: { email: 'ada@example.com', firstName: 'Ada' }, eventTimestamp: '2026-03-02T10:20:00Z', value: 120.5, valueCurrency: 'EUR', data: { total: 120.5, orderNumber: 'A-1' } });
    await accept(app, account, { eventName: 'Order Placed', customer: { phoneNumber: '+15550001111', firstName: 'Bob' }, data: { total: 40, orderNumber: 'B-2' } });

    const runs = await runsWhen(app, account, flow.id, (r) => r.length === 2 && r.every(finished), 'both runs to finish');
    const ada = runs.find((r) => r.customer?.email === 'ada@example.com')!;
    const bob = runs.find((r) => r.customer?.email === null)!;
    expect(ada.status).toBe('COMPLETED');
    expect(stepsOf(ada)).toEqual(['0 wait DONE', '1 condition DONE then', '1.then.0 send_email DONE']);
    expect(stepsOf(bob)).toEqual(['0 wait DONE', '1 condition DONE else', '1.else.0 send_sms DONE']);

    const mail = smtp.mails.find((m) => m.to.includes('ada@example.com'))!;
    expect(mail.from).toBe('shop@example.com');
    expect(mail.subject).toBe('Thanks Ada for order A-1');
    expect(mail.text.trim()).toBe('Hi Ada, your order of €120.50 at Worked example store on 2026-03-02 ships soon.');
    const smsBody = sms.received.map((r) => JSON.parse(r.body) as { to: string; body: string }).find((b) => b.to === '+15550001111');
    expect(smsBody).toEqual({ to: '+15550001111', body: 'Order B-2 received, Bob!' });

    const messages = await messagesOf(app, account, { flowId: flow.id });
    expect(messages.map((m) => [m.channel, m.to, m.status, m.provider]).sort()).toEqual([
      ['EMAIL', 'ada@example.com', 'SENT', 'SMTP'],
      ['SMS', '+15550001111', 'SENT', 'SMS_WEBHOOK'],
    ]);
    const sms1 = messages.find((m) => m.channel === 'SMS')!;
    expect(sms1.subject).toBeNull();
    expect(sms1.flowRunId).toBe(bob.id);
    // Customer.flowRuns and Customer.messages show the same.
    const [adaRow] = (await customersOf(app.databaseUrl, account.storeId)).filter((c) => c.email === 'ada@example.com');
    const customer = await gqlOk<{ customer: { flowRuns: { edges: { node: { id: string } }[] }; messages: { edges: { node: { subject: string } }[] } } }>(
      app,
      `query($s: ID!, $id: ID!) { customer(storeId: $s, id: $id) { flowRuns { edges { node { id } } } messages { edges { node { subject } } } } }`,
      { s: account.storeId, id: adaRow!.id },
      account.apiSecret,
    );
    expect(customer.customer.flowRuns.edges.map((e) => e.node.id)).toEqual([ada.id]);
    expect(customer.customer.messages.edges.map((e) => e.node.subject)).toEqual(['Thanks Ada for order A-1']);
    // /metrics counts the runs and their steps.
    const metrics = await (await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${app.adminToken}` } })).text();
    expect(metrics).toMatch(/^flow_runs_started_total [1-9]/m);
    expect(metrics).toMatch(/^flow_steps_total\{type="send_email",status="DONE"\} [1-9]/m);
  });

  it('trigger conditions are typed like segments, and the audience is evaluated at the trigger', async () => {
    const account = await app.createAccount('Triggers');
    const tpl = await createTemplate(app, account, { name: 't', channel: 'EMAIL', subject: 's', body: 'b' });
    const flow = await createFlow(app, account, {
      name: 'Big recent orders of gold customers',
      trigger: {
        eventName: 'Ordered',
        where: [
          { key: 'total', operator: 'GREATER_THAN', value: 9 },
          { key: 'shippedAt', operator: 'AFTER', value: '2026-01-01' },
        ],
      },
      audience: { all: [{ profile: { field: 'customFields.tier', operator: 'EQUALS', value: 'gold' } }] },
      steps: [{ sendEmail: { templateId: tpl, kind: 'transactional' } }],
    });
    const order = (email: string, tier: string, data: Record<string, unknown>) => ({ eventName: 'Ordered', customer: { email, customFields: { tier } }, data });
    await accept(app, account, order('in@example.com', 'gold', { total: 10, shippedAt: '2026-02-01T00:00:00Z' })); // 10 > 9 as numbers
    await accept(app, account, order('string@example.com', 'gold', { total: '10', shippedAt: '2026-02-01' })); // a string is not a number
    await accept(app, account, order('old@example.com', 'gold', { total: 50, shippedAt: '2025-12-31' }));
    await accept(app, account, order('silver@example.com', 'silver', { total: 50, shippedAt: '2026-02-01' })); // audience out
    await accept(app, account, { eventName: 'Viewed', customer: { email: 'in@example.com' }, data: { total: 50 } }); // another event name
    // Every event processed, every trigger job and step done: only the matching one started a run.
    await flowsIdle(app.databaseUrl);
    const runs = await runsOf(app, account, flow.id);
    expect(runs.map((r) => [r.customer?.email, r.status])).toEqual([['in@example.com', 'COMPLETED']]);
  });

  it('nested branches on profile fields, custom fields, event properties and event history', async () => {
    const account = await app.createAccount('Branches');
    const tpl = await createTemplate(app, account, { name: 'hello', channel: 'EMAIL', subject: 'Hello {{ customer.firstName }}', body: 'b' });
    const flow = await createFlow(app, account, {
      name: 'Branchy',
      trigger: { eventName: 'Checkout' },
      steps: [
        {
          condition: {
            if: { profile: { field: 'location.city', operator: 'EQUALS', value: 'Paris' } },
            then: [
              {
                condition: {
                  if: { profile: { field: 'customFields.points', operator: 'GREATER_THAN', value: 100 } },
                  then: [{ condition: { if: { profile: { field: 'event.coupon', operator: 'CONTAINS', value: 'vip' } }, then: [{ sendEmail: { templateId: tpl, kind: 'transactional' } }] } }],
                  else: [{ condition: { if: { event: { eventName: 'Checkout', minCount: 2 } }, then: [{ sendEmail: { templateId: tpl, kind: 'transactional' } }] } }],
                },
              },
            ],
            else: [{ condition: { if: { profile: { field: 'firstName', operator: 'IS_SET' } }, then: [{ sendEmail: { templateId: tpl, kind: 'transactional' } }] } }],
          },
        },
      ],
    });
    await accept(app, account, { eventName: 'Checkout', customer: { email: 'rich@example.com', firstName: 'Rich', location: { city: 'Paris' }, customFields: { points: 150 } }, data: { coupon: 'VIP-10' } });
    await accept(app, account, { eventName: 'Checkout', customer: { email: 'poor@example.com', location: { city: 'Paris' }, customFields: { points: 5 } }, data: {} });
    await accept(app, account, { eventName: 'Checkout', customer: { email: 'far@example.com', location: { city: 'Rome' } }, data: {} });
    const runs = await runsWhen(app, account, flow.id, (r) => r.length === 3 && r.every(finished), 'three runs');
    const by = (email: string) => stepsOf(runs.find((r) => r.customer?.email === email)!);
    expect(by('rich@example.com')).toEqual(['0 condition DONE then', '0.then.0 condition DONE then', '0.then.0.then.0 condition DONE then', '0.then.0.then.0.then.0 send_email DONE']);
    // First checkout: the history holds one, so the branch on "at least 2" is not taken.
    expect(by('poor@example.com')).toEqual(['0 condition DONE then', '0.then.0 condition DONE else', '0.then.0.else.0 condition DONE else']);
    expect(by('far@example.com')).toEqual(['0 condition DONE else', '0.else.0 condition DONE else']);

    // The second checkout of the same customer: history now has two.
    await accept(app, account, { eventName: 'Checkout', customer: { email: 'poor@example.com' }, data: {} });
    const again = await runsWhen(app, account, flow.id, (r) => r.length === 4 && r.every(finished), 'the fourth run');
    const latest = again.find((r) => r.customer?.email === 'poor@example.com' && r.steps.length === 4)!;
    expect(stepsOf(latest)).toEqual(['0 condition DONE then', '0.then.0 condition DONE else', '0.then.0.else.0 condition DONE then', '0.then.0.else.0.then.0 send_email DONE']);
  });

  it('a customer without the address a step needs skips it; the run completes', async () => {
    const account = await app.createAccount('Skips');
    const email = await createTemplate(app, account, { name: 'e', channel: 'EMAIL', subject: 's', body: 'b' });
    const text = await createTemplate(app, account, { name: 's', channel: 'SMS', body: 'b' });
    const flow = await createFlow(app, account, { name: 'Both', trigger: { eventName: 'Ping' }, steps: [{ sendEmail: { templateId: email, kind: 'transactional' } }, { sendSms: { templateId: text, kind: 'transactional' } }] });
    await accept(app, account, { eventName: 'Ping', customer: { email: 'only-mail@example.com' } });
    const [run] = await runsWhen(app, account, flow.id, (r) => r.length === 1 && r.every(finished), 'the run');
    expect(run!.status).toBe('COMPLETED');
    expect(run!.steps.map((s) => [s.path, s.status, s.detail])).toEqual([
      ['0', 'DONE', expect.stringContaining('sent to only-mail@example.com')],
      ['1', 'SKIPPED', 'no phone number'],
    ]);
  });

  it('webhook steps are signed (Standard Webhooks) with the flow secret and carry the bearer token', async () => {
    const account = await app.createAccount('Webhook step');
    const flow = await createFlow(app, account, { name: 'Hook', trigger: { eventName: 'Signed Up' }, steps: [{ webhook: { url: `${hook.url}/ok`, bearerToken: 'tok-123' } }] });
    await accept(app, account, { eventName: 'Signed Up', customer: { email: 'hook@example.com' }, data: { plan: 'pro' } });
    const [run] = await runsWhen(app, account, flow.id, (r) => r.length === 1 && r.every(finished), 'the run');
    expect(run!.steps).toMatchObject([{ path: '0', type: 'webhook', status: 'DONE', detail: 'HTTP 200' }]);
    const request = hook.received.find((r) => r.path === '/ok')!;
    expect(request.headers.authorization).toBe('Bearer tok-123');
    const payload = new Webhook(flow.signingSecret).verify(request.body, {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    }) as Record<string, unknown>;
    expect(payload).toMatchObject({ type: 'flow.webhook', flowId: flow.id, runId: run!.id, event: { eventName: 'Signed Up', data: { plan: 'pro' } }, customer: { email: 'hook@example.com' } });
    // The steps list shows the token masked.
    const read = await gqlOk<{ flows: { edges: { node: { id: string } }[] } }>(app, FLOWS_GQL.flows, { s: account.storeId }, account.apiSecret);
    expect(read.flows.edges).toHaveLength(1);
  });

  it('provider failures retry on the schedule and end FAILED with the provider error; a recovery in between succeeds', async () => {
    const account = await app.createAccount('Failures');
    let calls = 0;
    hook.status.next = (r) => (r.path === '/flaky' ? (++calls === 1 ? 503 : 200) : r.path === '/down' ? 500 : 200);
    const flaky = await createFlow(app, account, { name: 'Flaky', trigger: { eventName: 'Flaky' }, steps: [{ webhook: { url: `${hook.url}/flaky` } }] });
    const down = await createFlow(app, account, { name: 'Down', trigger: { eventName: 'Down' }, steps: [{ webhook: { url: `${hook.url}/down` } }] });
    const mail = await createTemplate(app, account, { name: 'e', channel: 'EMAIL', subject: 'Hi', body: 'b' });
    const bounce = await createFlow(app, account, { name: 'Bounce', trigger: { eventName: 'Bounce' }, steps: [{ sendEmail: { templateId: mail, kind: 'transactional' } }] });
    smtp.reject.next = true;
    await accept(app, account, { eventName: 'Flaky', customer: { email: 'f@example.com' } });
    await accept(app, account, { eventName: 'Down', customer: { email: 'd@example.com' } });
    await accept(app, account, { eventName: 'Bounce', customer: { email: 'b@example.com' } });

    const [ok] = await runsWhen(app, account, flaky.id, (r) => r.length === 1 && r.every(finished), 'the flaky run');
    expect(ok!.status).toBe('COMPLETED');
    expect(calls).toBe(2);
    // WEBHOOK_RETRY_SCHEDULE=1,1,2 in tests: four attempts, then FAILED with the receiver's status.
    const [failed] = await runsWhen(app, account, down.id, (r) => r.length === 1 && r.every(finished), 'the failing run');
    expect(failed!.status).toBe('FAILED');
    expect(failed!.steps).toMatchObject([{ type: 'webhook', status: 'FAILED', detail: 'HTTP 500 (after 4 attempts)' }]);
    expect(hook.received.filter((r) => r.path === '/down')).toHaveLength(4);

    const [bounced] = await runsWhen(app, account, bounce.id, (r) => r.length === 1 && r.every(finished), 'the bounced run');
    smtp.reject.next = false;
    expect(bounced!.status).toBe('FAILED');
    expect(bounced!.steps[0]).toMatchObject({ type: 'send_email', status: 'FAILED', detail: expect.stringMatching(/SMTP: .*550.*\(after 4 attempts\)/) });
    const [message] = await messagesOf(app, account, { flowId: bounce.id });
    expect(message).toMatchObject({ status: 'FAILED', provider: 'SMTP', to: 'b@example.com', error: expect.stringContaining('550') });
  });

  it('a template with missing values renders them empty; one that loops or produces a huge output is stopped', async () => {
    const account = await app.createAccount('Templates at send');
    const missing = await createTemplate(app, account, { name: 'm', channel: 'EMAIL', subject: 'Hi {{ customer.firstName }}!', body: '[{{ event.data.nope }}][{{ customer.customFields.tier.deep }}][{{ event.extra.x }}]' });
    const loop = await createTemplate(app, account, { name: 'loop', channel: 'EMAIL', subject: 's', body: '{% for i in (1..100000000) %}{% endfor %}' });
    const huge = await createTemplate(app, account, { name: 'huge', channel: 'SMS', body: '{% for i in (1..5000) %}0123456789{% endfor %}' });
    const f1 = await createFlow(app, account, { name: 'missing', trigger: { eventName: 'T1' }, steps: [{ sendEmail: { templateId: missing, kind: 'transactional' } }] });
    const f2 = await createFlow(app, account, { name: 'loop', trigger: { eventName: 'T2' }, steps: [{ sendEmail: { templateId: loop, kind: 'transactional' } }] });
    const f3 = await createFlow(app, account, { name: 'huge', trigger: { eventName: 'T3' }, steps: [{ sendSms: { templateId: huge, kind: 'transactional' } }] });
    await accept(app, account, { eventName: 'T1', customer: { email: 'miss@example.com' } });
    await accept(app, account, { eventName: 'T2', customer: { email: 'loop@example.com' } });
    await accept(app, account, { eventName: 'T3', customer: { email: 'huge@example.com', phoneNumber: '+15550002222' } });

    const [r1] = await runsWhen(app, account, f1.id, (r) => r.length === 1 && r.every(finished), 'run 1');
    expect(r1!.status).toBe('COMPLETED');
    const mail = smtp.mails.find((m) => m.to.includes('miss@example.com'))!;
    expect(mail.subject).toBe('Hi !');
    expect(mail.text.trim()).toBe('[][][]');
    const [r2] = await runsWhen(app, account, f2.id, (r) => r.length === 1 && r.every(finished), 'run 2');
    expect(r2!.status).toBe('FAILED');
    expect(r2!.steps[0]!.detail).toMatch(/was stopped: .*limit/);
    const [r3] = await runsWhen(app, account, f3.id, (r) => r.length === 1 && r.every(finished), 'run 3');
    expect(r3!.status).toBe('FAILED');
    expect(r3!.steps[0]!.detail).toMatch(/was stopped: .*(limit|over 20000 bytes)/);
    // Nothing went out for the stopped ones.
    expect(smtp.mails.some((m) => m.to.includes('loop@example.com'))).toBe(false);
    expect(sms.received.some((r) => r.body.includes('+15550002222'))).toBe(false);
  });

  it('editing or pausing a flow never changes runs already started; events while paused or before the flow start nothing', async () => {
    const account = await app.createAccount('Edits');
    const a = await createTemplate(app, account, { name: 'A', channel: 'EMAIL', subject: 'Version A', body: 'a' });
    const b = await createTemplate(app, account, { name: 'B', channel: 'EMAIL', subject: 'Version B', body: 'b' });
    await accept(app, account, { eventName: 'Joined', customer: { email: 'before@example.com' } });
    await drained(app.databaseUrl);
    const flow = await createFlow(app, account, { name: 'Welcome', trigger: { eventName: 'Joined' }, steps: [{ wait: { seconds: 2 } }, { sendEmail: { templateId: a, kind: 'transactional' } }] });
    await accept(app, account, { eventName: 'Joined', customer: { email: 'v1@example.com' } });
    await runsWhen(app, account, flow.id, (r) => r.length === 1 && r[0]!.status === 'WAITING', 'the first run to wait');

    // Edit while it waits (version 2 sends B without waiting), then pause.
    const updated = await gqlOk<{ updateFlow: { version: number } }>(app, FLOWS_GQL.updateFlow, { id: flow.id, i: { name: 'Welcome', trigger: { eventName: 'Joined' }, steps: [{ sendEmail: { templateId: b, kind: 'transactional' } }] } }, account.apiSecret);
    expect(updated.updateFlow.version).toBe(2);
    await gqlOk(app, FLOWS_GQL.setFlowStatus, { id: flow.id, st: 'PAUSED' }, account.apiSecret);
    await accept(app, account, { eventName: 'Joined', customer: { email: 'paused@example.com' } });
    await drained(app.databaseUrl);

    const [first] = await runsWhen(app, account, flow.id, (r) => r.length === 1 && r.every(finished), 'the first run to finish');
    expect(first!.version).toBe(1);
    expect(stepsOf(first!)).toEqual(['0 wait DONE', '1 send_email DONE']);
    expect(smtp.mails.find((m) => m.to.includes('v1@example.com'))!.subject).toBe('Version A');

    await gqlOk(app, FLOWS_GQL.setFlowStatus, { id: flow.id, st: 'ACTIVE' }, account.apiSecret);
    await accept(app, account, { eventName: 'Joined', customer: { email: 'v2@example.com' } });
    const runs = await runsWhen(app, account, flow.id, (r) => r.length === 2 && r.every(finished), 'the second run');
    expect(runs.map((r) => r.customer?.email).sort()).toEqual(['v1@example.com', 'v2@example.com']);
    const second = runs.find((r) => r.customer?.email === 'v2@example.com')!;
    expect(second.version).toBe(2);
    expect(smtp.mails.find((m) => m.to.includes('v2@example.com'))!.subject).toBe('Version B');
  });
  it('flows read processed events from the outbox: runs start only for the events an active flow is triggered by, and processing queues no trigger job', async () => {
    const account = await app.createAccount('Trigger reads');
    const triggered = async () => (await runsOf(app, account, flow.id)).map((r) => r.customer?.email).sort();
    const triggerJobs = () => jobRows(app.databaseUrl, { names: ['flow-triggers'], storeId: account.storeId });
    await accept(app, account, { eventName: 'Wanted', customer: { email: 'none-yet@example.com' } });
    await flowsIdle(app.databaseUrl);

    const flow = await createFlow(app, account, { name: 'Wanted', trigger: { eventName: 'Wanted' }, steps: [{ wait: { seconds: 1 } }] });
    await accept(app, account, { eventName: 'Wanted', customer: { email: 'wanted@example.com' } });
    await accept(app, account, { eventName: 'Unwanted', customer: { email: 'wanted@example.com' } });
    await runsWhen(app, account, flow.id, (r) => r.length === 1, 'the run');
    await flowsIdle(app.databaseUrl);
    expect(await triggered()).toEqual(['wanted@example.com']);

    await gqlOk(app, FLOWS_GQL.setFlowStatus, { id: flow.id, st: 'PAUSED' }, account.apiSecret);
    await accept(app, account, { eventName: 'Wanted', customer: { email: 'paused@example.com' } });
    await flowsIdle(app.databaseUrl);
    expect(await triggered()).toEqual(['wanted@example.com']);
    expect(await triggerJobs()).toEqual([]);
  });
});
