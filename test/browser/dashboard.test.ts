import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.js';
import { query } from '../support/database.js';
import { drained } from '../support/events.js';
import { seedDemo } from '../../server/cli/seed-demo.js';
import { launchChromium, screenshotPath, watch } from './browser.js';

/** A store with a quarter of history, as `seed-demo` makes it (its returns dated in the database, as the command does). */
async function seedStore(app: TestApp, account: TestAccount): Promise<void> {
  await seedDemo({
    baseUrl: app.baseUrl,
    token: app.adminToken,
    storeId: account.storeId,
    counts: { orders: 240, returns: 60, events: 3000, inventory: 8, days: 90 },
    progress: { phase: () => ({ tick: () => {}, done: () => {} }) },
    dateReturns: async (dates) => {
      for (const { returnId, createdAt } of dates) await query(app.databaseUrl, 'update returns.return set created_at = $2 where id = $1', [returnId, createdAt.toISOString()]);
    },
  });
  await drained(app.databaseUrl);
}

const panelState = (page: Page, id: string) => page.locator(`#${id}`).getAttribute('data-state');

interface DashboardState {
  refreshes: number;
  window: { interval: string; timeZone: string } | null;
}

/**
 * Waits until the page has drawn a window of `interval`. A function, not a string: the page's
 * Content-Security-Policy forbids the eval a string predicate needs.
 */
const untilDrawn = (page: Page, interval: string) =>
  page.waitForFunction((want) => (globalThis as unknown as { dashboard: DashboardState }).dashboard.window?.interval === want, interval, { timeout: 60_000 });

describe('the dashboard in a real browser', () => {
  let app: TestApp;
  let account: TestAccount;
  let browser: Browser;
  const scratch = mkdtempSync(join(tmpdir(), 'browser-dashboard-'));

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestApp({ EVENTS_RATE_LIMIT_PER_SECOND: '10000' }), launchChromium()]);
    account = await app.createAccount('Dashboard demo');
    await seedStore(app, account);
  }, 300_000);
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
    await untilDrawn(page, 'DAY');

    for (const id of ['returns-status', 'returns-reasons', 'returns-skus', 'returns-money', 'events', 'stock', 'webhooks', 'flows']) {
      expect(await panelState(page, id), `${id}: ${await page.locator(`#${id} .status`).textContent()}`).toBe('ready');
    }
    // Each chart holds the store's numbers: a bucket per day of the window, and the totals the API gives.
    // In the page (a string: the test compiles without the DOM's types).
    const drawn = await page.evaluate<{ days: number; returns: number; events: number; reasons: number; kpiReturns: number }>(`(() => {
      const chart = (id) => Chart.getChart(document.querySelector('#' + id + ' canvas'));
      const sum = (id, i = 0) => chart(id).data.datasets[i].data.reduce((n, v) => n + (v ?? 0), 0);
      const statuses = chart('returns-status').data.datasets.map((_, i) => sum('returns-status', i));
      const kpiReturns = Number(document.querySelector('#returns-money .kpis b').textContent);
      return { days: chart('returns-status').data.labels.length, returns: statuses.reduce((a, b) => a + b, 0), events: sum('events'), reasons: chart('returns-reasons').data.labels.length, kpiReturns };
    })()`);
    // The same numbers from the API, for the window the page sent.
    const shown = (await page.locator('#events .query').textContent())!;
    const window = JSON.parse(`{${/window: \{(.*?)\}/.exec(shown)![1]!.replace(/(\w+): /g, '"$1": ').replace(/"interval": (\w+)/, '"interval": "$1"')}}`);
    const eventName = /eventName: "(.*?)"/.exec(shown)![1]!;
    const api = await app.graphql<{ r: { totals: { returns: number } }; e: { totals: { count: number } } }>(
      `query($s: ID!, $w: TimeWindowInput!, $n: String!) { r: returnStats(storeId: $s, window: $w) { totals { returns } } e: eventStats(storeId: $s, eventName: $n, window: $w) { totals { count } } }`,
      { s: account.storeId, w: window, n: eventName },
      account.apiSecret,
    );
    expect(window.timeZone).toBe('Europe/Berlin');
    expect(drawn.days).toBeGreaterThanOrEqual(90);
    expect(drawn.returns).toBe(api.data!.r.totals.returns);
    expect(drawn.kpiReturns).toBe(api.data!.r.totals.returns);
    expect(drawn.returns).toBeGreaterThan(40);
    expect(drawn.reasons).toBe(5);
    expect(drawn.events).toBe(api.data!.e.totals.count);
    expect(drawn.events).toBeGreaterThan(100);
    // The operation shown beside a chart is the one sent.
    expect(operations.some((o) => (JSON.parse(o) as { query: string }).query === shown)).toBe(true);

    // The return rate beside the rate by order date and the previous period's (decisions section 22).
    const rates = await page.evaluate<string[]>(`Chart.getChart(document.querySelector('#returns-money canvas')).data.datasets.map((d) => d.label)`);
    expect(rates).toEqual(['return rate (%)', 'by order date (%)', 'previous period (%)']);
    const moneyQuery = (await page.locator('#returns-money .query').textContent())!;
    expect(moneyQuery).toContain('compareTo: PREVIOUS_PERIOD');
    expect(moneyQuery).toContain('basis: ORDER_DATE');
    // Every chart as CSV: a row per label, a column per dataset, as drawn; downloaded through its link.
    const csv = await page.evaluate<Record<string, string>>('window.dashboard.csv');
    for (const id of ['returns-status', 'returns-reasons', 'returns-skus', 'returns-money', 'events', 'stock', 'webhooks', 'flows']) expect(csv[id], id).toMatch(/^label,/);
    const statusRows = csv['returns-status']!.trimEnd().split('\r\n');
    expect(statusRows).toHaveLength(drawn.days + 1);
    const csvReturns = statusRows.slice(1).reduce((n, row) => n + row.split(',').slice(1).reduce((m, v) => m + Number(v || 0), 0), 0);
    expect(csvReturns).toBe(drawn.returns);
    await page.locator('#returns-money summary').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#returns-money a.csv').click()]);
    expect(download.suggestedFilename()).toBe('returns-money.csv');
    expect(readFileSync((await download.path())!, 'utf8')).toBe(csv['returns-money']);
    await page.locator('#returns-money summary').click();

    await page.screenshot({ path: screenshotPath('dashboard.png', scratch), fullPage: true });

    const sent = operations.length;
    await page.locator('#interval').selectOption('WEEK');
    await untilDrawn(page, 'WEEK');
    expect(operations.length).toBeGreaterThan(sent);
    expect(operations.slice(sent).some((o) => o.includes('interval: WEEK'))).toBe(true);
    const weeks = await page.evaluate<number>('window.dashboard.buckets.returns');
    expect(weeks).toBeGreaterThanOrEqual(13);
    expect(weeks).toBeLessThanOrEqual(15);
    expect(watched.errors).toEqual([]);
    expect(watched.external).toEqual([]);
  });
});
