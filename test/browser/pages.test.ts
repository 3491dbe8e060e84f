import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../platform/project-root.js';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.js';
import { launchChromium, screenshotPath, watch } from './browser.js';
import { eventsSubgraph } from '../../subgraphs/events/index.js';

const document = JSON.parse(readFileSync(join(projectRoot(), 'docs', 'openapi', 'v2.2.json'), 'utf8'));
const summaries: string[] = Object.values(document.paths as Record<string, Record<string, { summary: string }>>).flatMap((item) => Object.values(item).map((op) => op.summary));

describe('pages in a real browser', () => {
  let app: TestApp;
  let account: TestAccount;
  let browser: Browser;
  const scratch = mkdtempSync(join(tmpdir(), 'browser-pages-'));

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestApp(), launchChromium()]);
    account = await app.createAccount();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('the index links to the reference, which loads with no console error and lists every operation, offline', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const watched = await watch(page, app.baseUrl);
    await page.goto(`${app.baseUrl}/`);
    await page.getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL(`${app.baseUrl}/docs`);
    await page.getByText(summaries[0]!).first().waitFor({ timeout: 60_000 });
    const text = await page.evaluate(() => document.body.innerText);
    for (const summary of summaries) expect(text, summary).toContain(summary);
    await page.screenshot({ path: screenshotPath('api-reference.png', scratch) });
    expect(watched.errors).toEqual([]);
    expect(watched.external).toEqual([]);
  });

  it('the unsubscribe page asks to confirm, and its button unsubscribes, with no console error, offline', async () => {
    const res = await app.request(`/v2.2/stores/${account.storeId}/customer-subscriptions`, {
      method: 'POST',
      token: account.apiSecret,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: { email: 'reader@example.com', subscriptions: { marketing: { subscriptionStatus: 'subscribed' } } } }),
    });
    expect(res.status).toBe(200);
    const { customerIds } = (
      await app.graphql<{ updateCustomerSubscriptions: { customerIds: string[] } }>(
        'mutation($s: ID!, $i: JSON!) { updateCustomerSubscriptions(storeId: $s, input: $i) { customerIds } }',
        { s: account.storeId, i: { email: { email: 'reader@example.com', subscriptions: { marketing: { subscriptionStatus: 'subscribed' } } } } },
        account.apiSecret,
      )
    ).data!.updateCustomerSubscriptions;
    const events = app.service.runtime.servicesOf(eventsSubgraph)!;
    const token = await events.consent.unsubscribeToken({ storeId: account.storeId, customerId: customerIds[0]!, channel: 'email' });
    const page = await browser.newPage({ viewport: { width: 420, height: 800 } });
    const watched = await watch(page, app.baseUrl);
    await page.goto(`${app.baseUrl}/u/${token}`);
    await page.getByRole('heading', { name: 'Unsubscribe' }).waitFor();
    expect(await page.evaluate(() => document.body.innerText)).toContain('r***@example.com');
    await page.screenshot({ path: screenshotPath('unsubscribe.png', scratch) });
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('heading', { name: 'You are unsubscribed' }).waitFor();
    const consent = await app.graphql<{ customer: { consent: { channel: string; kind: string; status: string; method: string }[] } }>(
      'query($s: ID!, $id: ID!) { customer(storeId: $s, id: $id) { consent { channel kind status method } } }',
      { s: account.storeId, id: customerIds[0] },
      account.apiSecret,
    );
    expect(consent.data!.customer.consent.find((c) => c.channel === 'email' && c.kind === 'marketing')).toMatchObject({ status: 'unsubscribed', method: 'UNSUBSCRIBE_LINK' });
    expect(watched.errors).toEqual([]);
    expect(watched.external).toEqual([]);
  });

  it('the GraphQL explorer loads and runs a query with an API secret', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const watched = await watch(page, app.baseUrl);
    const query = `query StoreReturns {\n  returns(storeId: "${account.storeId}", first: 5) {\n    edges { node { id status } }\n    pageInfo { hasNextPage }\n  }\n}\n`;
    await page.goto(`${app.baseUrl}/graphql?query=${encodeURIComponent(query)}`);
    await page.locator('.graphiql-container').waitFor();
    // The token goes where a person types it: the Headers tab's editor.
    await page.getByRole('button', { name: 'Headers' }).click();
    await page.locator('.graphiql-editor-tool .CodeMirror:visible').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${account.apiSecret}` }));
    await page.getByRole('button', { name: /Execute query/ }).click();
    await page.locator('.result-window').getByText('"hasNextPage": false').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: screenshotPath('graphql-explorer.png', scratch) });
    expect(watched.errors).toEqual([]);
    expect(watched.external).toEqual([]);
  });
});
