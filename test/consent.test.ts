import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept } from './support/events.js';
import { eventually } from './support/eventually.js';
import { createFlow, createTemplate, finished, flowsIdle, gqlOk, runsWhen, startReceiver, startSmtpServer, type Run } from './support/flows.js';

/**
 * Consent and messaging (decisions section 21) end to end, through the real interfaces: the
 * `customer-subscriptions` REST operation and its GraphQL twin, flows sending through a real SMTP
 * server and a real SMS gateway, the unsubscribe link and its one-click POST, an SMS provider's
 * inbound STOP, and merges. No marketing message reaches a customer without consent.
 */
describe('consent and messaging', () => {
  let app: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let sms: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    sms = await startReceiver();
    app = await startTestApp({ SMTP_URL: smtp.url, SMTP_FROM: 'shop@example.com', SMS_WEBHOOK_URL: `${sms.url}/sms`, UNSUBSCRIBE_MAILTO: 'unsubscribe@shop.example.com' });
  });
  afterAll(async () => {
    await app?.stop();
    await smtp?.close();
    await sms?.close();
  });

  const subscriptions = (account: TestAccount, body: unknown, token = account.apiSecret) =>
    app.request(`/v2.2/stores/${account.storeId}/customer-subscriptions`, { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  const emailMarketing = (email: string, subscriptionStatus: 'subscribed' | 'unsubscribed', extra: Record<string, unknown> = {}) => ({
    email: { email, subscriptions: { marketing: { subscriptionStatus, ...extra } } },
  });

  async function customerId(account: TestAccount, by: { email?: string; phoneNumber?: string }): Promise<string> {
    const [row] = await query<{ id: string }>(
      app.databaseUrl,
      'select id from events.customer where store_id = $1 and (lower(email) = lower($2) or phone_number = $3)',
      [account.storeId, by.email ?? null, by.phoneNumber ?? null],
    );
    return row!.id;
  }

  async function consentOf(account: TestAccount, id: string) {
    const data = await gqlOk<{
      customer: {
        id: string;
        consent: { channel: string; kind: string; status: string; method: string | null }[];
        consentHistory: { edges: { node: { channel: string; kind: string; status: string; previousStatus: string | null; method: string; actor: string } }[] };
      };
    }>(
      app,
      `query($s: ID!, $id: ID!) { customer(storeId: $s, id: $id) { id consent { channel kind status method }
         consentHistory(first: 50) { edges { node { channel kind status previousStatus method actor } } } } }`,
      { s: account.storeId, id },
      account.apiSecret,
    );
    const status = (channel: string, kind = 'marketing') => data.customer.consent.find((c) => c.channel === channel && c.kind === kind)!;
    return { ...data.customer, status, history: data.customer.consentHistory.edges.map((e) => e.node) };
  }

  /** A marketing email flow (and, when asked, an SMS one) on `eventName`. */
  async function marketingFlows(account: TestAccount, eventName: string, steps: Record<string, unknown>[] = []) {
    const email = await createTemplate(app, account, { name: `${eventName} mail`, channel: 'EMAIL', subject: `News for {{ customer.email }}`, body: 'Hello. Unsubscribe: {{ unsubscribe.url }}' });
    const text = await createTemplate(app, account, { name: `${eventName} sms`, channel: 'SMS', body: 'Sale! {{ unsubscribe.url }}' });
    return createFlow(app, account, { name: eventName, trigger: { eventName }, steps: steps.length ? steps : [{ sendEmail: { templateId: email } }, { sendSms: { templateId: text } }] }).then((flow) => ({ ...flow, email, text }));
  }

  const stepLines = (run: Run) => run.steps.map((s) => `${s.type} ${s.status}${s.status === 'DONE' ? '' : ` ${s.detail}`}`);
  const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address));
  const smsTo = (phone: string) => sms.received.map((r) => JSON.parse(r.body) as { to: string; body: string }).filter((b) => b.to === phone);

  async function runFor(account: TestAccount, flowId: string, n: number): Promise<Run[]> {
    return runsWhen(app, account, flowId, (runs) => runs.length >= n && runs.every(finished), `${n} runs to finish`);
  }

  it('customer-subscriptions records consent per channel and kind with its history; an older change is not recorded', async () => {
    const account = await app.createAccount('Subscriptions');
    const res = await subscriptions(account, {
      email: { email: 'Jane@Example.com', subscriptions: { marketing: { subscriptionStatus: 'subscribed', updatedAt: '2026-01-15T10:30:00Z' } } },
      sms: { phoneNumber: '+15550000001', subscriptions: { marketing: { subscriptionStatus: 'confirmed' }, transactional: { subscriptionStatus: 'unsubscribed' } } },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, message: 'Customer subscriptions updated successfully', updatedSubscriptions: { email: { marketing: true }, sms: { marketing: true, transactional: true } } });
    // One profile with both identifiers (created, as the published operation says).
    const id = await customerId(account, { email: 'jane@example.com' });
    expect(await customerId(account, { phoneNumber: '+15550000001' })).toBe(id);
    const consent = await consentOf(account, id);
    expect(consent.status('email')).toMatchObject({ status: 'subscribed', method: 'API' });
    expect(consent.status('email', 'transactional')).toMatchObject({ status: 'never_subscribed', method: null });
    expect(consent.status('sms')).toMatchObject({ status: 'confirmed' });
    expect(consent.status('sms', 'transactional')).toMatchObject({ status: 'unsubscribed' });
    expect(consent.history).toHaveLength(3);
    expect(consent.history.every((h) => h.method === 'API' && h.actor.startsWith('secret:') && h.previousStatus === null)).toBe(true);

    // A change dated before the stored one is not recorded; the answer says so.
    const older = await subscriptions(account, emailMarketing('jane@example.com', 'unsubscribed', { updatedAt: '2026-01-01T00:00:00Z' }));
    expect(await older.json()).toMatchObject({ success: true, updatedSubscriptions: { email: { marketing: false } } });
    expect((await consentOf(account, id)).status('email').status).toBe('subscribed');
    const later = await subscriptions(account, emailMarketing('jane@example.com', 'unsubscribed'));
    expect(await later.json()).toMatchObject({ updatedSubscriptions: { email: { marketing: true } } });
    const after = await consentOf(account, id);
    expect(after.status('email').status).toBe('unsubscribed');
    expect(after.history[0]).toMatchObject({ channel: 'email', status: 'unsubscribed', previousStatus: 'subscribed', method: 'API' });
  });

  it('customer-subscriptions refuses invalid bodies with pointers, needs customers_write, and stays in the account', async () => {
    const account = await app.createAccount('Subscriptions refused');
    const other = await app.createAccount('Another merchant');
    const bad = await subscriptions(account, { email: { email: 'not-an-email', subscriptions: { marketing: { subscriptionStatus: 'confirmed' } } }, sms: { phoneNumber: '555', subscriptions: {} } });
    expect(bad.status).toBe(400);
    const problem = (await bad.json()) as { errors: { pointer: string }[] };
    expect(problem.errors.map((e) => e.pointer)).toEqual(expect.arrayContaining(['/email/email', '/email/subscriptions/marketing/subscriptionStatus', '/sms/phoneNumber']));
    expect((await subscriptions(account, {})).status).toBe(400);
    // Another account's secret cannot touch this store.
    expect((await subscriptions(account, emailMarketing('x@example.com', 'subscribed'), other.apiSecret)).status).toBe(404);
    const { apiSecret: readOnly } = await app.service.runtime.accounts.createSecret(account.accountId, ['customers_read']);
    expect((await subscriptions(account, emailMarketing('x@example.com', 'subscribed'), readOnly)).status).toBe(403);
  });

  it('a marketing step reaches only subscribed customers, with List-Unsubscribe headers; others are skipped with the reason; transactional goes to both', async () => {
    const account = await app.createAccount('Marketing');
    const flow = await marketingFlows(account, 'Browse');
    const receipt = await createTemplate(app, account, { name: 'receipt', channel: 'EMAIL', subject: 'Receipt', body: 'Your order.' });
    const transactional = await createFlow(app, account, { name: 'Receipt', trigger: { eventName: 'Browse' }, steps: [{ sendEmail: { templateId: receipt, kind: 'transactional' } }] });
    await subscriptions(account, { ...emailMarketing('yes@example.com', 'subscribed'), sms: { phoneNumber: '+15550000002', subscriptions: { marketing: { subscriptionStatus: 'subscribed' } } } });
    await accept(app, account, { eventName: 'Browse', customer: { email: 'yes@example.com', phoneNumber: '+15550000002' } });
    await accept(app, account, { eventName: 'Browse', customer: { email: 'never@example.com', phoneNumber: '+15550000003' } });
    const runs = await runFor(account, flow.id, 2);
    const yes = runs.find((r) => r.customer?.email === 'yes@example.com')!;
    const never = runs.find((r) => r.customer?.email === 'never@example.com')!;
    expect(stepLines(yes)).toEqual(['send_email DONE', 'send_sms DONE']);
    expect(stepLines(never)).toEqual(['send_email SKIPPED marketing: no email marketing consent (never_subscribed)', 'send_sms SKIPPED marketing: no SMS marketing consent (never_subscribed)']);
    expect(never.status).toBe('COMPLETED');
    await runFor(account, transactional.id, 2);
    await flowsIdle(app.databaseUrl);

    expect(mailsTo('never@example.com').map((m) => m.subject)).toEqual(['Receipt']);
    expect(smsTo('+15550000003')).toEqual([]);
    const [marketing] = mailsTo('yes@example.com').filter((m) => m.subject.startsWith('News'));
    const receiptMail = mailsTo('yes@example.com').find((m) => m.subject === 'Receipt')!;
    // RFC 8058: an https (here the configured public URL) link with the signed token, a mailto, and the one-click header.
    expect(marketing!.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(marketing!.headers['list-unsubscribe']).toMatch(/^<http:\/\/localhost:\d+\/u\/u1\.[\w-]+\.[\w-]+>, <mailto:unsubscribe@shop\.example\.com\?subject=unsubscribe%20u1\.[\w-]+\.[\w-]+>$/);
    expect(marketing!.text).toContain('/u/u1.');
    expect(receiptMail.headers['list-unsubscribe']).toBeUndefined();
    expect(smsTo('+15550000002')[0]!.body).toMatch(/^Sale! http:\/\/localhost:\d+\/u\/u1\./);
    // messages record the kind.
    const kinds = await query<{ kind: string; n: string }>(app.databaseUrl, 'select kind, count(*) as n from events.message where store_id = $1 group by kind order by kind', [account.storeId]);
    expect(kinds).toEqual([
      { kind: 'marketing', n: '2' },
      { kind: 'transactional', n: '2' },
    ]);
  });

  /** The token of the List-Unsubscribe link of the newest marketing email to `address`. */
  function unsubscribeToken(address: string): string {
    const mail = mailsTo(address).filter((m) => m.headers['list-unsubscribe']).at(-1)!;
    return /\/u\/([\w.-]+)>/.exec(mail.headers['list-unsubscribe']!)![1]!;
  }

  const unsubscribePost = (token: string, body: string) =>
    fetch(`${app.baseUrl}/u/${token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

  it('one-click POST (RFC 8058) unsubscribes without credentials; the next marketing email is skipped', async () => {
    const account = await app.createAccount('One click');
    const flow = await marketingFlows(account, 'Drop');
    await subscriptions(account, emailMarketing('click@example.com', 'subscribed'));
    await accept(app, account, { eventName: 'Drop', customer: { email: 'click@example.com' } });
    await runFor(account, flow.id, 1);
    const token = unsubscribeToken('click@example.com');

    const res = await unsubscribePost(token, 'List-Unsubscribe=One-Click');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('You are unsubscribed');
    const id = await customerId(account, { email: 'click@example.com' });
    const consent = await consentOf(account, id);
    expect(consent.status('email')).toMatchObject({ status: 'unsubscribed', method: 'ONE_CLICK' });
    expect(consent.history[0]).toMatchObject({ method: 'ONE_CLICK', actor: 'customer', previousStatus: 'subscribed' });
    // Idempotent: again changes nothing more.
    expect((await unsubscribePost(token, 'List-Unsubscribe=One-Click')).status).toBe(200);
    expect((await consentOf(account, id)).history).toHaveLength(2);

    const before = mailsTo('click@example.com').length;
    await accept(app, account, { eventName: 'Drop', customer: { email: 'click@example.com' } });
    const runs = await runFor(account, flow.id, 2);
    expect(runs.map((r) => stepLines(r)[0]).sort()).toEqual(['send_email DONE', 'send_email SKIPPED marketing: no email marketing consent (unsubscribed)']);
    await flowsIdle(app.databaseUrl);
    expect(mailsTo('click@example.com')).toHaveLength(before);
  });

  it('the link shows a page that asks to confirm (a GET changes nothing); the button unsubscribes', async () => {
    const account = await app.createAccount('Link');
    const flow = await marketingFlows(account, 'Promo');
    await subscriptions(account, emailMarketing('link@example.com', 'subscribed'));
    await accept(app, account, { eventName: 'Promo', customer: { email: 'link@example.com' } });
    await runFor(account, flow.id, 1);
    const token = unsubscribeToken('link@example.com');
    const id = await customerId(account, { email: 'link@example.com' });

    const page = await fetch(`${app.baseUrl}/u/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('Link store');
    expect(html).toContain('l***@example.com');
    expect(html).not.toContain('link@example.com');
    expect(html).toMatch(/<form method="post">/);
    expect((await consentOf(account, id)).status('email').status).toBe('subscribed');

    const confirmed = await unsubscribePost(token, 'confirm=yes');
    expect(confirmed.status).toBe(200);
    expect((await consentOf(account, id)).status('email')).toMatchObject({ status: 'unsubscribed', method: 'UNSUBSCRIBE_LINK' });
    expect(await (await fetch(`${app.baseUrl}/u/${token}`)).text()).toContain('You are unsubscribed');
  });

  it('tokens cannot be forged nor used for another customer or store', async () => {
    const account = await app.createAccount('Tokens');
    const flow = await marketingFlows(account, 'Tok');
    await subscriptions(account, emailMarketing('one@example.com', 'subscribed'));
    await subscriptions(account, emailMarketing('two@example.com', 'subscribed'));
    await accept(app, account, { eventName: 'Tok', customer: { email: 'one@example.com' } });
    await runFor(account, flow.id, 1);
    const token = unsubscribeToken('one@example.com');
    const [version, body, sig] = token.split('.') as [string, string, string];
    const two = await customerId(account, { email: 'two@example.com' });
    const claim = JSON.parse(Buffer.from(body, 'base64url').toString()) as [string, string, string];
    const swapped = Buffer.from(JSON.stringify([claim[0], two, claim[2]])).toString('base64url');
    const otherStore = Buffer.from(JSON.stringify(['sto_other', claim[1], claim[2]])).toString('base64url');
    const flipped = `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
    const forged = [`${version}.${swapped}.${sig}`, `${version}.${otherStore}.${sig}`, `${version}.${body}.${flipped}`, `u2.${body}.${sig}`, `${version}.${body}`, 'nonsense', `${token}x`];
    for (const bad of forged) {
      const get = await fetch(`${app.baseUrl}/u/${bad}`);
      expect(get.status, bad).toBe(404);
      expect(await get.text()).toContain('This link is not valid');
      expect((await unsubscribePost(bad, 'List-Unsubscribe=One-Click')).status, bad).toBe(404);
    }
    expect((await consentOf(account, two)).status('email').status).toBe('subscribed');
    expect((await consentOf(account, await customerId(account, { email: 'one@example.com' }))).status('email').status).toBe('subscribed');
  });

  it("SMS STOP through the store's inbound webhook unsubscribes from SMS; START subscribes again; a wrong secret is refused", async () => {
    const account = await app.createAccount('Inbound SMS');
    const text = await createTemplate(app, account, { name: 'sale', channel: 'SMS', body: 'Sale today' });
    const flow = await createFlow(app, account, { name: 'SMS sale', trigger: { eventName: 'Sale' }, steps: [{ sendSms: { templateId: text } }] });
    const phone = '+15550000009';
    await subscriptions(account, { sms: { phoneNumber: phone, subscriptions: { marketing: { subscriptionStatus: 'subscribed' }, transactional: { subscriptionStatus: 'subscribed' } } } });
    const { rotateInboundSmsSecret } = await gqlOk<{ rotateInboundSmsSecret: { url: string } }>(
      app,
      'mutation($s: ID!) { rotateInboundSmsSecret(storeId: $s) { url } }',
      { s: account.storeId },
      account.apiSecret,
    );
    const url = new URL(rotateInboundSmsSecret.url);
    expect(url.pathname).toBe(`/sms/inbound/${account.storeId}`);
    const inbound = (path: string, body: string, type = 'application/x-www-form-urlencoded') => fetch(`${app.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
    const path = `${url.pathname}${url.search}`;

    // A wrong secret, or none: 404, nothing changes.
    expect((await inbound(`${url.pathname}?secret=smsin_wrong`, `From=${encodeURIComponent(phone)}&Body=STOP`)).status).toBe(404);
    expect((await inbound(url.pathname, `From=${encodeURIComponent(phone)}&Body=STOP`)).status).toBe(404);
    const id = await customerId(account, { phoneNumber: phone });
    expect((await consentOf(account, id)).status('sms').status).toBe('subscribed');

    // Any other text changes nothing; Twilio's form post of "Stop " unsubscribes SMS marketing and transactional.
    expect((await inbound(path, `From=${encodeURIComponent(phone)}&Body=${encodeURIComponent('Where is my order?')}`)).status).toBe(200);
    expect((await consentOf(account, id)).status('sms').status).toBe('subscribed');
    const stop = await inbound(path, `From=${encodeURIComponent(phone)}&To=%2B15551112222&Body=${encodeURIComponent(' Stop ')}&MessageSid=SM1`);
    expect(stop.status).toBe(200);
    expect(await stop.text()).toContain('<Response></Response>');
    let consent = await consentOf(account, id);
    expect(consent.status('sms')).toMatchObject({ status: 'unsubscribed', method: 'SMS_KEYWORD' });
    expect(consent.status('sms', 'transactional')).toMatchObject({ status: 'unsubscribed', method: 'SMS_KEYWORD' });

    await accept(app, account, { eventName: 'Sale', customer: { phoneNumber: phone } });
    const [run] = await runFor(account, flow.id, 1);
    expect(stepLines(run!)).toEqual(['send_sms SKIPPED marketing: no SMS marketing consent (unsubscribed)']);
    await flowsIdle(app.databaseUrl);
    expect(smsTo(phone)).toEqual([]);

    // Telnyx's JSON shape, START: subscribed again.
    const start = await inbound(path, JSON.stringify({ data: { event_type: 'message.received', payload: { from: { phone_number: phone }, text: 'START' } } }), 'application/json');
    expect(start.status).toBe(200);
    consent = await consentOf(account, id);
    expect(consent.status('sms').status).toBe('subscribed');
    // An unknown number that texts STOP gets a profile that remembers it (a later import cannot forget it).
    await inbound(path, 'msisdn=15550000077&text=STOP');
    const stranger = await customerId(account, { phoneNumber: '+15550000077' });
    expect((await consentOf(account, stranger)).status('sms').status).toBe('unsubscribed');
  });

  it('an API unsubscribe between a flow start and its send stops the send', async () => {
    const account = await app.createAccount('API unsubscribe');
    const mail = await createTemplate(app, account, { name: 'later', channel: 'EMAIL', subject: 'Later', body: 'b' });
    const flow = await createFlow(app, account, { name: 'Later', trigger: { eventName: 'Later' }, steps: [{ wait: { seconds: 1 } }, { sendEmail: { templateId: mail } }] });
    await subscriptions(account, emailMarketing('api@example.com', 'subscribed'));
    await accept(app, account, { eventName: 'Later', customer: { email: 'api@example.com' } });
    await runsWhen(app, account, flow.id, (runs) => runs.length === 1 && runs[0]!.status === 'WAITING', 'the run to wait');
    await subscriptions(account, emailMarketing('api@example.com', 'unsubscribed'));
    const [run] = await runFor(account, flow.id, 1);
    expect(stepLines(run!)).toEqual(['wait DONE', 'send_email SKIPPED marketing: no email marketing consent (unsubscribed)']);
    expect(mailsTo('api@example.com')).toEqual([]);
  });

  it('a suppressed channel takes nothing, transactional included; unsuppressing lifts it', async () => {
    const account = await app.createAccount('Suppressed');
    const mail = await createTemplate(app, account, { name: 'receipt', channel: 'EMAIL', subject: 'Receipt', body: 'b' });
    const flow = await createFlow(app, account, { name: 'Receipt', trigger: { eventName: 'Paid' }, steps: [{ sendEmail: { templateId: mail, kind: 'transactional' } }] });
    await subscriptions(account, emailMarketing('bounce@example.com', 'subscribed'));
    const id = await customerId(account, { email: 'bounce@example.com' });
    await gqlOk(app, 'mutation($s: ID!, $c: ID!) { suppressCustomer(storeId: $s, customerId: $c, channel: email, reason: "hard bounce") { id } }', { s: account.storeId, c: id }, account.apiSecret);
    await accept(app, account, { eventName: 'Paid', customer: { email: 'bounce@example.com' } });
    const [run] = await runFor(account, flow.id, 1);
    expect(stepLines(run!)).toEqual(['send_email SKIPPED transactional: email suppressed (hard bounce)']);
  });

  it('consent segment conditions and the flow audience re-checked before each send', async () => {
    const account = await app.createAccount('Audience');
    const mail = await createTemplate(app, account, { name: 'm', channel: 'EMAIL', subject: 'VIP', body: 'b' });
    const flow = await createFlow(app, account, {
      name: 'VIP only',
      trigger: { eventName: 'Visit' },
      audience: { all: [{ profile: { field: 'customFields.tier', operator: 'EQUALS', value: 'vip' } }] },
      steps: [{ wait: { seconds: 1 } }, { sendEmail: { templateId: mail, kind: 'transactional' } }],
    });
    await accept(app, account, { eventName: 'Visit', customer: { email: 'vip@example.com', customFields: { tier: 'vip' } } });
    await runsWhen(app, account, flow.id, (runs) => runs.length === 1 && runs[0]!.status === 'WAITING', 'the run to wait');
    // The customer leaves the audience while the run waits.
    await accept(app, account, { eventName: 'Other', customer: { email: 'vip@example.com', customFields: { tier: 'basic' } } });
    const [run] = await runFor(account, flow.id, 1);
    expect(run!.status).toBe('EXITED');
    expect(stepLines(run!)).toEqual(['wait DONE', 'send_email SKIPPED the customer is no longer in the flow audience: the run exits']);

    await subscriptions(account, emailMarketing('sub@example.com', 'subscribed'));
    await subscriptions(account, emailMarketing('unsub@example.com', 'unsubscribed'));
    const members = async (consent: Record<string, unknown>) =>
      (
        await gqlOk<{ segmentMembers: { edges: { node: { email: string } }[] } }>(
          app,
          `query($s: ID!, $d: SegmentDefinitionInput!) { segmentMembers(storeId: $s, definition: $d) { edges { node { email } } } }`,
          { s: account.storeId, d: { all: [{ consent }] } },
          account.apiSecret,
        )
      ).segmentMembers.edges
        .map((e) => e.node.email)
        .sort();
    expect(await members({ channel: 'email', statuses: ['subscribed', 'confirmed'] })).toEqual(['sub@example.com']);
    expect(await members({ channel: 'email', statuses: ['unsubscribed'] })).toEqual(['unsub@example.com']);
    expect(await members({ channel: 'email', statuses: ['never_subscribed'] })).toEqual(['vip@example.com']);
    const invalid = await app.graphql(
      `query($s: ID!, $d: SegmentDefinitionInput!) { segmentMembers(storeId: $s, definition: $d) { totalCount } }`,
      { s: account.storeId, d: { all: [{ consent: { channel: 'email', statuses: [] } }] } },
      account.apiSecret,
    );
    expect(invalid.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('events sent with backfill: true are stored and counted but start no flow', async () => {
    const account = await app.createAccount('Backfill');
    const mail = await createTemplate(app, account, { name: 'm', channel: 'EMAIL', subject: 's', body: 'b' });
    const flow = await createFlow(app, account, { name: 'Order', trigger: { eventName: 'Placed Order' }, steps: [{ sendEmail: { templateId: mail, kind: 'transactional' } }] });
    await accept(app, account, { eventName: 'Placed Order', customer: { email: 'old@example.com' }, eventTimestamp: '2025-01-01T00:00:00Z', backfill: true });
    await accept(app, account, { eventName: 'Placed Order', customer: { email: 'new@example.com' } });
    const runs = await runFor(account, flow.id, 1);
    await flowsIdle(app.databaseUrl);
    expect((await runsWhen(app, account, flow.id, (r) => r.length >= 1, 'runs')).map((r) => r.customer?.email)).toEqual(['new@example.com']);
    expect(runs).toHaveLength(1);
    const stored = await query<{ email: string; backfill: boolean }>(
      app.databaseUrl,
      'select c.email, e.backfill from events.custom_event e join events.customer c on c.id = e.customer_id where e.store_id = $1 order by c.email',
      [account.storeId],
    );
    expect(stored).toEqual([
      { email: 'new@example.com', backfill: false },
      { email: 'old@example.com', backfill: true },
    ]);
  });

  it('re-entry: once ever, and once per N days', async () => {
    const account = await app.createAccount('Re-entry');
    const mail = await createTemplate(app, account, { name: 'm', channel: 'EMAIL', subject: 's', body: 'b' });
    const once = await createFlow(app, account, { name: 'Once', trigger: { eventName: 'Signed Up' }, reentry: { mode: 'ONCE' }, steps: [{ sendEmail: { templateId: mail, kind: 'transactional' } }] });
    const weekly = await createFlow(app, account, { name: 'Weekly', trigger: { eventName: 'Signed Up' }, reentry: { mode: 'ONCE_PER_DAYS', days: 7 }, steps: [{ sendEmail: { templateId: mail, kind: 'transactional' } }] });
    const every = await createFlow(app, account, { name: 'Every', trigger: { eventName: 'Signed Up' }, steps: [{ sendEmail: { templateId: mail, kind: 'transactional' } }] });
    for (let i = 0; i < 3; i++) await accept(app, account, { eventName: 'Signed Up', customer: { email: 'again@example.com' }, data: { i: i + 1 } });
    await runFor(account, every.id, 3);
    await flowsIdle(app.databaseUrl);
    expect(await runFor(account, once.id, 1)).toHaveLength(1);
    expect(await runFor(account, weekly.id, 1)).toHaveLength(1);
    // A week later (the run moved back in time), the weekly flow takes the customer again; the once flow never does.
    await query(app.databaseUrl, `update events.flow_run set started_at = started_at - interval '8 days' where flow_id = any($1)`, [[once.id, weekly.id]]);
    await accept(app, account, { eventName: 'Signed Up', customer: { email: 'again@example.com' } });
    await runFor(account, every.id, 4);
    await flowsIdle(app.databaseUrl);
    expect(await runFor(account, weekly.id, 2)).toHaveLength(2);
    expect(await runFor(account, once.id, 1)).toHaveLength(1);
    const flowOf = await gqlOk<{ flow: { reentry: { mode: string; days: number | null } } }>(app, 'query($id: ID!) { flow(id: $id) { reentry { mode days } } }', { id: weekly.id }, account.apiSecret);
    expect(flowOf.flow.reentry).toEqual({ mode: 'ONCE_PER_DAYS', days: 7 });
  });

  it('quiet hours hold a marketing send until they end; smart sending skips a second marketing message within the window', async () => {
    const account = await app.createAccount('Quiet');
    // Quiet from an hour ago until a few seconds from now, in UTC (the store's zone; the customer has none).
    const hhmmss = (d: Date) => d.toISOString().slice(11, 19);
    const now = Date.now();
    const end = new Date(Math.floor((now + 5_000) / 1000) * 1000);
    await gqlOk(
      app,
      'mutation($s: ID!, $i: MessagingSettingsInput!) { updateMessagingSettings(storeId: $s, input: $i) { storeId } }',
      { s: account.storeId, i: { quietHours: { start: hhmmss(new Date(now - 3_600_000)), end: hhmmss(end) } } },
      account.apiSecret,
    );
    const mail = await createTemplate(app, account, { name: 'm', channel: 'EMAIL', subject: 'Night', body: 'b' });
    const flow = await createFlow(app, account, { name: 'Night', trigger: { eventName: 'Night' }, steps: [{ sendEmail: { templateId: mail } }] });
    await subscriptions(account, emailMarketing('night@example.com', 'subscribed'));
    await accept(app, account, { eventName: 'Night', customer: { email: 'night@example.com' } });
    const [waiting] = await runsWhen(app, account, flow.id, (runs) => runs.length === 1 && runs[0]!.status === 'WAITING', 'the run to wait for the quiet hours');
    expect(waiting!.steps[0]!.detail).toMatch(/^quiet hours \(UTC\): waiting until \d{4}-/);
    const until = Date.parse(/until (\S+)$/.exec(waiting!.steps[0]!.detail ?? '')![1]!);
    expect(until).toBe(end.getTime());
    expect(mailsTo('night@example.com')).toEqual([]);
    // When they end, the send goes out.
    const [sent] = await runFor(account, flow.id, 1);
    expect(stepLines(sent!)).toEqual(['send_email DONE']);
    expect(mailsTo('night@example.com')).toHaveLength(1);
    expect(Date.now()).toBeGreaterThanOrEqual(end.getTime());

    // Smart sending: a second store without quiet hours, a 24-hour window, two marketing flows on one event.
    const smart = await app.createAccount('Smart');
    await gqlOk(app, 'mutation($s: ID!) { updateMessagingSettings(storeId: $s, input: {smartSendingHours: 24}) { smartSendingHours } }', { s: smart.storeId }, smart.apiSecret);
    const a = await createTemplate(app, smart, { name: 'a', channel: 'EMAIL', subject: 'First', body: 'b' });
    const first = await createFlow(app, smart, { name: 'First', trigger: { eventName: 'Viewed' }, steps: [{ sendEmail: { templateId: a } }] });
    await subscriptions(smart, emailMarketing('smart@example.com', 'subscribed'));
    await accept(app, smart, { eventName: 'Viewed', customer: { email: 'smart@example.com' } });
    await runFor(smart, first.id, 1);
    await accept(app, smart, { eventName: 'Viewed', customer: { email: 'smart@example.com' } });
    const runs = await runFor(smart, first.id, 2);
    const lines = runs.map(stepLines).flat().sort();
    expect(lines[0]).toBe('send_email DONE');
    expect(lines[1]).toMatch(/^send_email SKIPPED smart sending: a marketing email went out \d+ min ago \(window 24 h\)$/);
    expect(mailsTo('smart@example.com')).toHaveLength(1);
  });

  it('merging a subscribed and an unsubscribed profile keeps the unsubscribe; the merged id answers as the survivor', async () => {
    const account = await app.createAccount('Merge');
    const flow = await marketingFlows(account, 'Merged');
    // First seen by phone (SMS marketing unsubscribed, email marketing subscribed through a dashboard), later by email (subscribed).
    await subscriptions(account, { sms: { phoneNumber: '+15550000042', subscriptions: { marketing: { subscriptionStatus: 'unsubscribed' } } } });
    await subscriptions(account, emailMarketing('merge@example.com', 'subscribed'));
    const byPhone = await customerId(account, { phoneNumber: '+15550000042' });
    const byEmail = await customerId(account, { email: 'merge@example.com' });
    expect(byPhone).not.toBe(byEmail);
    await gqlOk(
      app,
      'mutation($s: ID!, $c: ID!) { setCustomerConsent(storeId: $s, customerId: $c, input: {channel: email, kind: marketing, status: unsubscribed}) { id } }',
      { s: account.storeId, c: byPhone },
      account.apiSecret,
    );
    await accept(app, account, { eventName: 'Before', customer: { id: byPhone } });

    const merged = await gqlOk<{ mergeCustomers: { id: string; email: string; phoneNumber: string; mergedIds: string[] } }>(
      app,
      'mutation($s: ID!, $into: ID!, $from: [ID!]!) { mergeCustomers(storeId: $s, into: $into, from: $from) { id email phoneNumber mergedIds } }',
      { s: account.storeId, into: byEmail, from: [byPhone] },
      account.apiSecret,
    );
    expect(merged.mergeCustomers).toEqual({ id: byEmail, email: 'merge@example.com', phoneNumber: '+15550000042', mergedIds: [byPhone] });
    const consent = await consentOf(account, byPhone);
    // The old id answers as the survivor.
    expect(consent.id).toBe(byEmail);
    expect(consent.status('email')).toMatchObject({ status: 'unsubscribed', method: 'MERGE' });
    expect(consent.status('sms').status).toBe('unsubscribed');
    // The survivor's history holds both profiles' changes and one MERGE change per consent the merge changed.
    expect(consent.history.filter((h) => h.method === 'MERGE').map((h) => `${h.channel} ${h.previousStatus} -> ${h.status}`).sort()).toEqual(['email subscribed -> unsubscribed', 'sms null -> unsubscribed']);
    expect(consent.history.filter((h) => h.method !== 'MERGE')).toHaveLength(3);

    // An event naming the old id lands on the survivor; no marketing reaches them on either channel.
    await accept(app, account, { eventName: 'Merged', customer: { id: byPhone } });
    const [run] = await runFor(account, flow.id, 1);
    expect(stepLines(run!)).toEqual(['send_email SKIPPED marketing: no email marketing consent (unsubscribed)', 'send_sms SKIPPED marketing: no SMS marketing consent (unsubscribed)']);
    await flowsIdle(app.databaseUrl);
    expect(mailsTo('merge@example.com')).toEqual([]);
    expect(smsTo('+15550000042')).toEqual([]);

    // Nothing points at the merged id any more, anywhere, but its alias row.
    const { scan } = await import('./support/privacy.js');
    const hits = (await scan(app.databaseUrl, [byPhone])).filter((h) => !(h.table === 'events.customer_merge' && h.column === 'merged_id'));
    expect(hits.map((h) => `${h.table}.${h.column}`)).toEqual([]);

    // Refusals: an unknown profile, the survivor itself, a profile merged already.
    const refused = await app.graphql(
      'mutation($s: ID!, $into: ID!, $from: [ID!]!) { mergeCustomers(storeId: $s, into: $into, from: $from) { id } }',
      { s: account.storeId, into: byEmail, from: [byPhone, byEmail, 'cus_missing'] },
      account.apiSecret,
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  }, 120_000);

  it('erasing a customer erases their consent, its history and merged ids', async () => {
    const account = await app.createAccount('Erase consent');
    await subscriptions(account, emailMarketing('gone@example.com', 'subscribed'));
    const id = await customerId(account, { email: 'gone@example.com' });
    const res = await app.request(`/v2.2/stores/${account.storeId}/customers/erasure`, {
      method: 'POST',
      token: account.apiSecret,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'gone@example.com', suppression: 'REFUSE' }),
    });
    expect(res.status).toBeLessThan(300);
    await eventually(async () => {
      const rows = await query<{ n: string }>(
        app.databaseUrl,
        `select (select count(*) from events.customer_consent where customer_id = $1) + (select count(*) from events.consent_change where customer_id = $1) as n`,
        [id],
      );
      return Number(rows[0]!.n) === 0 ? true : undefined;
    }, 'the consent to be erased');
    // Erased with REFUSE: the API refuses to record consent for the person again.
    const again = await subscriptions(account, emailMarketing('gone@example.com', 'subscribed'));
    expect(again.status).toBe(409);
    expect(((await again.json()) as { type: string }).type).toMatch(/customer-erased$/);
  });
});
