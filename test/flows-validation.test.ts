import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { accept, drained, storedEvents } from './support/events.js';
import { FLOWS_GQL, createFlow, createTemplate, finished, gqlOk, messagesOf, runsWhen } from './support/flows.js';

/**
 * Templates and flows refuse what is wrong with a pointer and change nothing;
 * previews render what a send would; without providers messages are
 * RECORDED; another account's ids are unknown ids; scopes hold.
 */
describe('flows: templates, previews, validation, visibility', () => {
  const app = useTestApp();
  const account = useTestAccount(app, 'Validation');
  let emailTpl: string;
  let smsTpl: string;

  beforeAll(async () => {
    emailTpl = await createTemplate(app, account, { name: 'Mail', channel: 'EMAIL', subject: 'Hi {{ customer.firstName }}', body: 'Total {{ event.value | money }}' });
    smsTpl = await createTemplate(app, account, { name: 'Text', channel: 'SMS', body: 'Hey {{ customer.firstName }}' });
  });

  const errorsOf = (result: { errors?: { message: string; extensions?: Record<string, unknown> }[] }) => {
    expect(result.errors, 'the operation must be refused').toBeDefined();
    const [error] = result.errors!;
    return { code: error!.extensions?.code, message: error!.message, errors: (error!.extensions?.errors ?? []) as { pointer: string; detail: string }[] };
  };

  it('templates: Liquid that does not parse is refused with its line; subject required for EMAIL, refused for SMS', async () => {
    const bad = errorsOf(await app.graphql(FLOWS_GQL.createTemplate, { s: account.storeId, i: { name: 'x', channel: 'EMAIL', subject: 'ok', body: 'line one\nline two {% if %}' } }, account.apiSecret));
    expect(bad.code).toBe('BAD_USER_INPUT');
    expect(bad.message).toMatch(/line:2/);
    expect(bad.errors).toEqual([{ pointer: '/input/body', detail: expect.stringMatching(/does not parse as Liquid: .*line:2/) }]);
    const noSubject = errorsOf(await app.graphql(FLOWS_GQL.createTemplate, { s: account.storeId, i: { name: 'x', channel: 'EMAIL', body: 'b' } }, account.apiSecret));
    expect(noSubject.errors).toEqual([{ pointer: '/input/subject', detail: 'is required for an EMAIL template' }]);
    const smsSubject = errorsOf(await app.graphql(FLOWS_GQL.createTemplate, { s: account.storeId, i: { name: 'x', channel: 'SMS', subject: 's', body: 'b' } }, account.apiSecret));
    expect(smsSubject.errors).toEqual([{ pointer: '/input/subject', detail: 'an SMS has no subject' }]);
    const include = errorsOf(await app.graphql(FLOWS_GQL.createTemplate, { s: account.storeId, i: { name: 'x', channel: 'SMS', body: `{% include 'secrets' %}` } }, account.apiSecret));
    expect(include.errors[0]!.pointer).toBe('/input/body');
    const list = await gqlOk<{ templates: { totalCount: number } }>(app, FLOWS_GQL.templates, { s: account.storeId }, account.apiSecret);
    expect(list.templates.totalCount).toBe(2); // nothing refused was stored

    const updated = await gqlOk<{ updateTemplate: { body: string; subject: string } }>(app, FLOWS_GQL.updateTemplate, { id: smsTpl, i: { body: 'Hello {{ customer.firstName }}' } }, account.apiSecret);
    expect(updated.updateTemplate).toMatchObject({ body: 'Hello {{ customer.firstName }}', subject: null });
    const badUpdate = errorsOf(await app.graphql(FLOWS_GQL.updateTemplate, { id: smsTpl, i: { body: '{{ ' } }, account.apiSecret));
    expect(badUpdate.errors[0]!.pointer).toBe('/input/body');
  });

  it('previewTemplate renders sample values, a real event with its customer, or a customer alone', async () => {
    const sample = await gqlOk<{ previewTemplate: { subject: string; body: string } }>(
      app,
      FLOWS_GQL.preview,
      { s: account.storeId, i: { channel: 'EMAIL', subject: 'Hi {{ customer.firstName }}', body: '{{ event.value | money }} at {{ store.name }} {{ event.timestamp | date: "%b %d" }} [{{ nope }}]' } },
      account.apiSecret,
    );
    expect(sample.previewTemplate).toEqual({ subject: 'Hi Ada', body: '€120.50 at Validation store Mar 02 []' });

    await accept(app, account, { eventName: 'Order Placed', customer: { email: 'pre@example.com', firstName: 'Pat' }, value: 99, valueCurrency: 'USD', data: { total: 99, shippedAt: '2026-04-05T06:07:08Z' } });
    await drained(app.databaseUrl);
    const [event] = await storedEvents(app.databaseUrl, account.storeId);
    const real = await gqlOk<{ previewTemplate: { subject: string | null; body: string } }>(
      app,
      FLOWS_GQL.preview,
      { s: account.storeId, i: { channel: 'SMS', body: '{{ customer.firstName }} {{ event.value | money }} {{ event.data.shippedAt | date: "%Y-%m-%d %H:%M" }}' }, e: event!.id },
      account.apiSecret,
    );
    expect(real.previewTemplate).toEqual({ subject: null, body: 'Pat $99.00 2026-04-05 06:07' });
    const customerOnly = await gqlOk<{ previewTemplate: { body: string } }>(app, FLOWS_GQL.preview, { s: account.storeId, i: { channel: 'SMS', body: '{{ customer.email }}' }, c: event!.customer_id }, account.apiSecret);
    expect(customerOnly.previewTemplate.body).toBe('pre@example.com');

    const loop = errorsOf(await app.graphql(FLOWS_GQL.preview, { s: account.storeId, i: { channel: 'SMS', body: '{% for i in (1..100000000) %}{% endfor %}' } }, account.apiSecret));
    expect(loop.code).toBe('BAD_USER_INPUT');
    expect(loop.message).toMatch(/limit/);
    // Another store's event is an unknown event.
    const other = await app.createAccount('Preview other');
    const unknown = errorsOf(await app.graphql(FLOWS_GQL.preview, { s: other.storeId, i: { channel: 'SMS', body: 'x' }, e: event!.id }, other.apiSecret));
    expect(unknown.code).toBe('NOT_FOUND');
  });

  it('flows: every invalid part is refused with its pointer, and nothing is stored', async () => {
    const other = await app.createAccount('Validation other');
    const othersTemplate = await createTemplate(app, other, { name: 'theirs', channel: 'EMAIL', subject: 's', body: 'b' });
    const result = await app.graphql(
      FLOWS_GQL.createFlow,
      {
        s: account.storeId,
        i: {
          name: 'Broken',
          trigger: { eventName: 'Ordered', where: [{ key: 'total', operator: 'GREATER_THAN', value: 'lots' }] },
          audience: { all: [{ profile: { field: 'shoeSize', operator: 'EQUALS', value: 42 } }] },
          steps: [
            { wait: { seconds: 0 } },
            { wait: { seconds: 90 * 86400 + 1 } },
            { sendEmail: { templateId: 'tpl_unknown' } },
            { sendEmail: { templateId: smsTpl } },
            { sendSms: { templateId: othersTemplate } },
            { webhook: { url: 'http://169.254.169.254/latest/meta-data' } },
            { webhook: { url: 'https://10.0.0.1/hook' } },
            { condition: { if: { profile: { field: 'event.total', operator: 'CONTAINS', value: '' } }, then: [{ wait: { seconds: 1 }, sendSms: { templateId: smsTpl } }] } },
          ],
        },
      },
      account.apiSecret,
    );
    const { code, errors } = errorsOf(result);
    expect(code).toBe('BAD_USER_INPUT');
    const pointers = errors.map((e) => e.pointer).sort();
    expect(pointers).toEqual(
      [
        '/input/trigger/where/0/value',
        '/input/audience/all/0/profile/field',
        '/input/steps/0/wait/seconds',
        '/input/steps/1/wait/seconds',
        '/input/steps/2/sendEmail/templateId',
        '/input/steps/3/sendEmail/templateId',
        '/input/steps/4/sendSms/templateId',
        '/input/steps/5/webhook/url',
        '/input/steps/6/webhook/url',
        '/input/steps/7/condition/if/profile/value',
        '/input/steps/7/condition/then/0',
      ].sort(),
    );
    const detail = (p: string) => errors.find((e) => e.pointer === p)!.detail;
    expect(detail('/input/steps/3/sendEmail/templateId')).toMatch(/is an SMS template, not EMAIL/);
    expect(detail('/input/steps/4/sendSms/templateId')).toMatch(/no template/);
    expect(detail('/input/steps/6/webhook/url')).toMatch(/https|private/);

    const empty = errorsOf(await app.graphql(FLOWS_GQL.createFlow, { s: account.storeId, i: { name: 'Empty', trigger: { eventName: 'X' }, steps: [] } }, account.apiSecret));
    expect(empty.errors).toEqual([{ pointer: '/input/steps', detail: 'give at least one step' }]);
    // An operator that is not one of the segment operators is refused by the schema, before anything runs.
    const operator = await app.graphql(FLOWS_GQL.createFlow, { s: account.storeId, i: { name: 'Op', trigger: { eventName: 'X', where: [{ key: 'a', operator: 'ROUGHLY', value: 1 }] }, steps: [{ wait: { seconds: 1 } }] } }, account.apiSecret);
    expect(operator.errors?.[0]?.message).toMatch(/ROUGHLY/);
    const flows = await gqlOk<{ flows: { totalCount: number } }>(app, FLOWS_GQL.flows, { s: account.storeId }, account.apiSecret);
    expect(flows.flows.totalCount).toBe(0);
  });

  it('without providers, messages are rendered and RECORDED', async () => {
    const store = await app.createAccount('Recorded');
    const mail = await createTemplate(app, store, { name: 'm', channel: 'EMAIL', subject: 'Order {{ event.data.n }}', body: 'Thanks {{ customer.firstName }}' });
    const text = await createTemplate(app, store, { name: 't', channel: 'SMS', body: 'Order {{ event.data.n }}' });
    const flow = await createFlow(app, store, { name: 'Rec', trigger: { eventName: 'Bought' }, steps: [{ sendEmail: { templateId: mail, kind: 'transactional' } }, { sendSms: { templateId: text, kind: 'transactional' } }] });
    await accept(app, store, { eventName: 'Bought', customer: { email: 'rec@example.com', phoneNumber: '+15550003333', firstName: 'Rae' }, data: { n: 'N-7' } });
    await runsWhen(app, store, flow.id, (r) => r.length === 1 && r.every(finished), 'the run');
    const messages = await messagesOf(app, store);
    expect(messages.map((m) => ({ channel: m.channel, to: m.to, subject: m.subject, body: m.body, status: m.status, provider: m.provider })).sort((a, b) => a.channel.localeCompare(b.channel))).toEqual([
      { channel: 'EMAIL', to: 'rec@example.com', subject: 'Order N-7', body: 'Thanks Rae', status: 'RECORDED', provider: 'RECORDED' },
      { channel: 'SMS', to: '+15550003333', subject: null, body: 'Order N-7', status: 'RECORDED', provider: 'RECORDED' },
    ]);
  });

  it("another account's flows and templates are unknown; scopes flows_read / flows_write hold", async () => {
    const flow = await createFlow(app, account, { name: 'Mine', trigger: { eventName: 'Mine' }, steps: [{ sendEmail: { templateId: emailTpl } }] });
    const other = await app.createAccount('Intruder');
    expect((await app.graphql<{ flow: unknown }>(FLOWS_GQL.flow, { id: flow.id }, other.apiSecret)).data?.flow).toBeNull();
    expect(errorsOf(await app.graphql(FLOWS_GQL.flowRuns, { f: flow.id }, other.apiSecret)).code).toBe('NOT_FOUND');
    expect(errorsOf(await app.graphql(FLOWS_GQL.setFlowStatus, { id: flow.id, st: 'PAUSED' }, other.apiSecret)).code).toBe('NOT_FOUND');
    expect(errorsOf(await app.graphql(FLOWS_GQL.updateTemplate, { id: emailTpl, i: { body: 'pwned' } }, other.apiSecret)).code).toBe('NOT_FOUND');
    expect(errorsOf(await app.graphql(FLOWS_GQL.flows, { s: account.storeId }, other.apiSecret)).code).toBe('NOT_FOUND');
    // A flow of another store may not send this store's template.
    const borrowed = errorsOf(await app.graphql(FLOWS_GQL.createFlow, { s: other.storeId, i: { name: 'Borrow', trigger: { eventName: 'X' }, steps: [{ sendEmail: { templateId: emailTpl } }] } }, other.apiSecret));
    expect(borrowed.errors[0]!.pointer).toBe('/input/steps/0/sendEmail/templateId');

    // The template a flow sends cannot change channel under it.
    const channel = errorsOf(await app.graphql(FLOWS_GQL.updateTemplate, { id: emailTpl, i: { channel: 'SMS' } }, account.apiSecret));
    expect(channel.errors).toEqual([{ pointer: '/input/channel', detail: `flow ${flow.id} sends it as EMAIL` }]);

    const { apiSecret: readOnly } = await app.service.runtime.accounts.createSecret(account.accountId, ['flows_read']);
    expect((await app.graphql<{ flow: { id: string } }>(FLOWS_GQL.flow, { id: flow.id }, readOnly)).data?.flow?.id).toBe(flow.id);
    expect(errorsOf(await app.graphql(FLOWS_GQL.setFlowStatus, { id: flow.id, st: 'PAUSED' }, readOnly)).code).toBe('FORBIDDEN');
    expect(errorsOf(await app.graphql(FLOWS_GQL.createTemplate, { s: account.storeId, i: { name: 'x', channel: 'SMS', body: 'b' } }, readOnly)).code).toBe('FORBIDDEN');
    const { apiSecret: noFlows } = await app.service.runtime.accounts.createSecret(account.accountId, ['customers_read']);
    expect(errorsOf(await app.graphql(FLOWS_GQL.flows, { s: account.storeId }, noFlows)).code).toBe('FORBIDDEN');
  });
});
