import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.js';
import { query } from '../support/database.js';
import { drained, postEvent } from '../support/events.js';
import { randomFrom } from '../support/random.js';
import { orderBody, postReturn, pushOrder, returnBody } from '../support/returns.js';
import { adjust, createLocation, upsertProduct } from '../inventory-fixtures.js';
import { launchChromium, screenshotPath, watch } from './browser.js';

const DAY = 86_400_000;

/** A store with a quarter of history: orders, returns spread over it, events, stock. */
async function seedStore(app: TestApp, account: TestAccount): Promise<void> {
  const random = randomFrom(90);
  const now = Date.now();
  const reasons = ['Too small', 'Too large', 'Arrived damaged', 'Changed my mind'];
  for (let n = 0; n < 30; n++) {
    const lines = [0, 1].map((k) => ({ id: `l${k}`, quantity: 2 + k, price: (20 + k * 15).toFixed(2), sku: `SKU-${(n + k) % 6}`, title: 'Thing' }));
    await pushOrder(app, account, orderBody({ id: `d-${n}`, createdAt: new Date(now - Math.floor(random() * 88 * DAY)).toISOString() }, lines));
    if (n % 2) continue;
    const res = await postReturn(app, account, returnBody(`d-${n}`, [{ lineItemId: 'l0', quantity: 1, reason: reasons[(n / 2) % 4], compensation: n % 3 ? 'refund' : 'store_credit' }]));
    expect(res.status).toBe(201);
    await query(app.databaseUrl, 'update returns.return set created_at = $2 where id = $1', [res.body.return.id, new Date(now - Math.floor(random() * 85 * DAY)).toISOString()]);
  }
  const events = Array.from({ length: 300 }, (_, n) => ({
    eventName: n % 4 ? 'Viewed Product' : 'Placed Order',
    eventTimestamp: new Date(now - Math.floor(random() * 89 * DAY)).toISOString(),
    customer: { email: `shopper${n % 40}@example.com` },
    data: { total: 10 + (n % 90) },
  }));
  for (let i = 0; i < events.length; i += 100) expect((await postEvent(app, account, { events: events.slice(i, i + 100) }, { path: '/bulk' })).status).toBe(202);
  const location = await createLocation(app, account.storeId, 'Main warehouse');
  for (const sku of ['SKU-0', 'SKU-1']) {
    await upsertProduct(app, account.storeId, { sku, title: sku });
    await adjust(app, account.storeId, { sku, locationId: location, kind: 'PRODUCT', delta: 25 });
  }
  await drained(app.databaseUrl);
}

const panelState = (page: Page, id: string) => page.locator(`#${id}`).getAttribute('data-state');

describe('the dashboard in a real browser', () => {
  let app: TestApp;
  let account: TestAccount;
  let browser: Browser;
  const scratch = mkdtempSync(join(tmpdir(), 'browser-dashboard-'));

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestApp({ EVENTS_RATE_LIMIT_PER_SECOND: '10000' }), launchChromium()]);
    account = await app.createAccount('Dashboard demo');
    await seedStore(app, account);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('loads offline, draws every chart from the store, and queries again when the interval changes', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1900 } });
    const watched = await watch(page, app.baseUrl);
    const operations: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith('/graphql') && req.method() === 'POST') operations.push(req.postData() ?? '');
    });
    await page.goto(`${app.baseUrl}/`);
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.waitForURL(`${app.baseUrl}/dashboard`);
    await page.locator('#token').fill(account.apiSecret);
    await page.locator('#zone').fill('Europe/Berlin');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForFunction('window.dashboard.refreshes >= 1', undefined, { timeout: 60_000 });

    for (const id of ['returns-status', 'returns-reasons', 'returns-skus', 'returns-money', 'events', 'stock', 'webhooks', 'flows']) {
      expect(await panelState(page, id), `${id}: ${await page.locator(`#${id} .status`).textContent()}`).toBe('ready');
    }
    // Each chart holds the store's numbers: a bucket per day of the window, and the totals the API gives.
    // In the page (a string: the test compiles without the DOM's types).
    const drawn = await page.evaluate<{ days: number; returns: number; events: number; reasons: number }>(`(() => {
      const chart = (id) => Chart.getChart(document.querySelector('#' + id + ' canvas'));
      const sum = (id, i = 0) => chart(id).data.datasets[i].data.reduce((n, v) => n + (v ?? 0), 0);
      const statuses = chart('returns-status').data.datasets.map((_, i) => sum('returns-status', i));
      return { days: chart('returns-status').data.labels.length, returns: statuses.reduce((a, b) => a + b, 0), events: sum('events'), reasons: chart('returns-reasons').data.labels.length };
    })()`);
    expect(drawn.days).toBeGreaterThanOrEqual(90);
    expect(drawn.returns).toBe(15);
    expect(drawn.reasons).toBe(4);
    const viewed = await app.graphql<{ eventStats: { totals: { count: number } } }>(
      `query($s: ID!, $w: TimeWindowInput!) { eventStats(storeId: $s, eventName: "Placed Order", window: $w) { totals { count } } }`,
      { s: account.storeId, w: { from: new Date(Date.now() - 91 * DAY).toISOString(), until: new Date(Date.now() + DAY).toISOString() } },
      account.apiSecret,
    );
    expect(drawn.events).toBe(viewed.data!.eventStats.totals.count);
    // The operation shown beside a chart is the one sent.
    const shown = await page.locator('#events .query').textContent();
    expect(operations.some((o) => (JSON.parse(o) as { query: string }).query === shown)).toBe(true);

    await page.screenshot({ path: screenshotPath('dashboard.png', scratch), fullPage: true });

    const sent = operations.length;
    await page.locator('#interval').selectOption('WEEK');
    await page.waitForFunction('window.dashboard.refreshes >= 2', undefined, { timeout: 60_000 });
    expect(operations.length).toBeGreaterThan(sent);
    expect(operations.slice(sent).some((o) => o.includes('interval: WEEK'))).toBe(true);
    const weeks = await page.evaluate<number>('window.dashboard.buckets.returns');
    expect(weeks).toBeGreaterThanOrEqual(13);
    expect(weeks).toBeLessThanOrEqual(15);
    expect(watched.errors).toEqual([]);
    expect(watched.external).toEqual([]);
  });
});
