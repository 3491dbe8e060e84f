import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketLabel, inWindow, type WindowArg } from './support/analytics.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { accept } from './support/events.js';
import { createFlow, createTemplate, flowsIdle } from './support/flows.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';
import { createWebhook } from './support/webhooks.js';
import { adjust, createLocation, createShipment, IN_TRANSIT, gql, receive, upsertProduct } from './inventory-fixtures.js';

/** The other capabilities' dashboard questions (inventory, webhooks, flows) against the rows they count. */
describe('inventoryStats, webhookStats, flowStats', () => {
  const app = useTestApp({ EVENTS_RATE_LIMIT_PER_SECOND: '10000' });
  const acme = useTestAccount(app, 'Acme');
  const other = useTestAccount(app, 'Other');
  const receivers: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });

  describe('inventory', () => {
    const window: WindowArg = { from: '2026-12-01T00:00:00Z', until: '2026-12-29T00:00:00Z', interval: 'WEEK', timeZone: 'America/New_York' };
    beforeAll(async () => {
      const [main, east] = [await createLocation(app, acme.storeId, 'Main'), await createLocation(app, acme.storeId, 'East')];
      for (const sku of ['A', 'B']) await upsertProduct(app, acme.storeId, { sku, title: sku });
      await adjust(app, acme.storeId, { sku: 'A', locationId: main, kind: 'PRODUCT', delta: 40 });
      await adjust(app, acme.storeId, { sku: 'B', locationId: main, kind: 'PRODUCT', delta: 7 });
      await adjust(app, acme.storeId, { sku: 'A', locationId: main, kind: 'RETURN', delta: 3 });
      await adjust(app, acme.storeId, { sku: 'B', locationId: east, kind: 'PRODUCT', delta: 12 });
      const products = await gql<{ a: { id: string }; b: { id: string } }>(app, 'query($s: ID!) { a: product(storeId: $s, sku: "A") { id } b: product(storeId: $s, sku: "B") { id } }', { s: acme.storeId });
      // Expected on a Monday (New York), a Sunday, before the window, after it, and with no date; one still pending.
      const dates = ['2026-12-07', '2026-12-13', '2026-11-20', '2027-01-15', null, '2026-12-08'];
      for (const [n, date] of dates.entries()) {
        const shipment = await createShipment(app, acme.storeId, {
          locationId: n % 2 ? east : main,
          shipmentId: `ASN-${n}`,
          ...(date ? { estimatedArrivalDate: date } : {}),
          items: [
            { productId: products.a.id, quantity: 10 + n },
            { productId: products.b.id, quantity: 5 },
          ],
        });
        if (n === 5) continue;
        const moving = await gql<{ markInboundShipmentInTransit: { items: { id: string }[] } }>(app, IN_TRANSIT, { id: shipment.id });
        if (n === 1) await receive(app, shipment.id, [{ itemId: moving.markInboundShipmentInTransit.items[0]!.id, receivedQuantity: 4, damagedQuantity: 1 }]);
      }
    });

    it('answers stock on hand by location and kind, and units in transit by expected arrival week', async () => {
      const res = await app.graphql<{ inventoryStats: any }>(
        `query($s: ID!, $w: TimeWindowInput!) { inventoryStats(storeId: $s, window: $w) {
          onHand { locationName kind units }
          inbound { totals { shipments units } overdue { shipments units } later { shipments units } unscheduled { shipments units } series { start measures { shipments units } } } } }`,
        { s: acme.storeId, w: window },
        acme.apiSecret,
      );
      expect(res.errors).toBeUndefined();
      const stats = res.data!.inventoryStats;
      const levels = await query<{ name: string; kind: string; units: number }>(
        app.databaseUrl,
        `select loc.name, l.kind, sum(l.quantity)::int as units from inventory.inventory_level l join inventory.location loc on loc.id = l.location_id
          where loc.store_id = $1 and l.quantity > 0 group by 1, 2 order by 1, 2`,
        [acme.storeId],
      );
      expect(stats.onHand).toEqual(levels.map((l) => ({ locationName: l.name, kind: l.kind, units: l.units })));
      expect(stats.onHand).toEqual([
        { locationName: 'East', kind: 'PRODUCT', units: 16 }, // 12 of B, and 4 of A received from a shipment
        { locationName: 'Main', kind: 'PRODUCT', units: 47 },
        { locationName: 'Main', kind: 'RETURN', units: 3 },
      ]);
      // Still to come per shipment (10 + n of A, 5 of B): 15 (Monday 7th), 16 less 5 received or damaged (Sunday 13th: the same
      // week), 17 overdue, 18 later, 19 unscheduled; the pending one is not in transit.
      expect(stats.inbound.series.map((b: { start: string }) => b.start)).toEqual(['2026-12-01T00:00:00.000Z', '2026-12-07T05:00:00.000Z', '2026-12-14T05:00:00.000Z', '2026-12-21T05:00:00.000Z', '2026-12-28T05:00:00.000Z']);
      expect(stats.inbound.series.map((b: { measures: unknown }) => b.measures)).toEqual([
        { shipments: 0, units: 0 },
        { shipments: 2, units: 26 },
        { shipments: 0, units: 0 },
        { shipments: 0, units: 0 },
        { shipments: 0, units: 0 },
      ]);
      expect(stats.inbound.totals).toEqual({ shipments: 2, units: 26 });
      expect(stats.inbound.overdue).toEqual({ shipments: 1, units: 17 });
      expect(stats.inbound.later).toEqual({ shipments: 1, units: 18 });
      expect(stats.inbound.unscheduled).toEqual({ shipments: 1, units: 19 });
    });
  });

  describe('webhooks', () => {
    let window: WindowArg;
    beforeAll(async () => {
      const [good, bad] = [await startReceiver(), await startReceiver()];
      receivers.push(good, bad);
      bad.answer(() => ({ status: 500 }));
      expect((await createWebhook(app, acme, { callback: { url: good.url, auth: null }, topic: 'return' })).status).toBe(201);
      expect((await createWebhook(app, acme, { callback: { url: bad.url, auth: null }, topic: 'return' })).status).toBe(201);
      await pushOrder(app, acme, orderBody({ id: 'w-1' }, [{ id: 'l', quantity: 10, price: '3.00' }]));
      const from = new Date(Date.now() - 3_600_000).toISOString();
      for (let n = 0; n < 3; n++) expect((await postReturn(app, acme, returnBody('w-1', [{ lineItemId: 'l', quantity: 1, reason: 'r' }]))).status).toBe(201);
      // Until every delivery is settled (the failing receiver's after its retries), so the rows stand still.
      await eventually(async () => {
        const [row] = await query<{ n: number; owed: number }>(
          app.databaseUrl,
          `select count(*)::int as n, (count(*) filter (where m.state = 'queued'))::int as owed from webhooks.message m join webhooks.subscription s on s.id = m.subscription_id where s.store_id = $1`,
          [acme.storeId],
        );
        return row!.n === 6 && row!.owed === 0;
      }, 'every delivery to succeed or be given up');
      window = { from, until: new Date(Date.now() + 3_600_000).toISOString(), interval: 'HOUR' };
    });

    it('answers deliveries succeeded, failed and pending with latency percentiles, per hour and per subscription', async () => {
      const res = await app.graphql<{ webhookStats: any }>(
        `query($s: ID!, $w: TimeWindowInput!) { webhookStats(storeId: $s, window: $w) {
          totals { deliveries succeeded failed pending attempts latencyP50Ms latencyP95Ms }
          series { start measures { deliveries succeeded failed pending } }
          subscriptions { webhookId url measures { deliveries succeeded failed pending attempts latencyP50Ms } } } }`,
        { s: acme.storeId, w: window },
        acme.apiSecret,
      );
      expect(res.errors).toBeUndefined();
      const stats = res.data!.webhookStats;
      const rows = await query<{ subscriptionId: string; state: string; attempts: number; createdAt: Date; latency: number | null }>(
        app.databaseUrl,
        `select m.subscription_id as "subscriptionId", m.state, m.attempts, m.created_at as "createdAt",
                case when m.state = 'succeeded' then extract(epoch from m.finished_at - m.created_at) * 1000 end::float8 as latency
           from webhooks.message m join webhooks.subscription s on s.id = m.subscription_id where s.store_id = $1`,
        [acme.storeId],
      );
      const median = (values: number[]) => {
        const v = [...values].sort((a, b) => a - b);
        return v.length ? (v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2) : null;
      };
      const latencies = rows.filter((r) => r.latency !== null).map((r) => r.latency!);
      expect(stats.totals).toMatchObject({ deliveries: 6, succeeded: 3, failed: 3, pending: 0, attempts: rows.reduce((n, r) => n + r.attempts, 0) });
      expect(stats.totals.latencyP50Ms).toBeCloseTo(median(latencies)!, 6);
      expect(stats.totals.attempts).toBeGreaterThan(6);
      for (const sub of stats.subscriptions) {
        const own = rows.filter((r) => r.subscriptionId === sub.webhookId);
        expect(sub.measures.deliveries).toBe(own.length);
        expect(sub.measures.succeeded).toBe(own.filter((r) => r.state === 'succeeded').length);
        expect(sub.measures.failed).toBe(own.filter((r) => r.state === 'discarded').length);
      }
      const perHour = new Map<string, number>();
      for (const r of rows) perHour.set(bucketLabel(r.createdAt, window), (perHour.get(bucketLabel(r.createdAt, window)) ?? 0) + 1);
      for (const b of stats.series) expect(b.measures.deliveries).toBe(perHour.get(bucketLabel(new Date(b.start), window)) ?? 0);
    });

    it('hides other accounts\' stores and needs webhooks_read', async () => {
      const res = await app.graphql(`query($s: ID!, $w: TimeWindowInput!) { webhookStats(storeId: $s, window: $w) { totals { deliveries } } }`, { s: acme.storeId, w: window }, other.apiSecret);
      expect(res.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    });
  });

  describe('flows', () => {
    let flowId: string;
    const window: WindowArg = { from: new Date(Date.now() - 86_400_000).toISOString(), until: new Date(Date.now() + 86_400_000).toISOString(), timeZone: 'Europe/Berlin' };
    beforeAll(async () => {
      const email = await createTemplate(app, acme, { name: 'Thanks', channel: 'EMAIL', subject: 'Thanks', body: 'Thanks {{ customer.firstName }}' });
      const sms = await createTemplate(app, acme, { name: 'Ping', channel: 'SMS', body: 'Hi' });
      flowId = (
        await createFlow(app, acme, {
          name: 'Follow-up',
          trigger: { eventName: 'Order Placed' },
          steps: [{ condition: { if: { profile: { field: 'event.total', operator: 'GREATER_THAN', value: 50 } }, then: [{ sendEmail: { templateId: email, kind: 'transactional' } }], else: [{ sendSms: { templateId: sms, kind: 'transactional' } }] } }],
        })
      ).id;
      await createFlow(app, acme, { name: 'Idle', trigger: { eventName: 'Never Happens' }, steps: [{ sendEmail: { templateId: email, kind: 'transactional' } }] });
      await accept(app, acme, { eventName: 'Order Placed', customer: { email: 'big@example.com', phoneNumber: '+15550001001', firstName: 'Big' }, data: { total: 120 } });
      await accept(app, acme, { eventName: 'Order Placed', customer: { email: 'small@example.com', phoneNumber: '+15550001002', firstName: 'Small' }, data: { total: 20 } });
      await accept(app, acme, { eventName: 'Order Placed', customer: { email: 'big2@example.com', phoneNumber: '+15550001003', firstName: 'Big' }, data: { total: 99 } });
      await eventually(async () => {
        const [row] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from events.flow_run where store_id = $1 and finished_at is not null`, [acme.storeId]);
        return row!.n === 3;
      }, 'the three runs to finish');
      await flowsIdle(app.databaseUrl);
    });

    it('answers runs started, finished and messages by channel and status, per day and per flow', async () => {
      const res = await app.graphql<{ flowStats: any }>(
        `query($s: ID!, $w: TimeWindowInput!) { flowStats(storeId: $s, window: $w) {
          totals { runsStarted runsCompleted runsFailed runsExited messages { channel status count } }
          series { start measures { runsStarted runsCompleted } }
          flows { flowId name measures { runsStarted runsCompleted messages { channel status count } } } } }`,
        { s: acme.storeId, w: window },
        acme.apiSecret,
      );
      expect(res.errors).toBeUndefined();
      const stats = res.data!.flowStats;
      const runs = await query<{ startedAt: Date; status: string }>(app.databaseUrl, `select started_at as "startedAt", status from events.flow_run where store_id = $1`, [acme.storeId]);
      expect(stats.totals).toEqual({
        runsStarted: 3,
        runsCompleted: runs.filter((r) => r.status === 'COMPLETED').length,
        runsFailed: 0,
        runsExited: 0,
        messages: [
          { channel: 'EMAIL', status: 'RECORDED', count: 2 },
          { channel: 'SMS', status: 'RECORDED', count: 1 },
        ],
      });
      expect(stats.flows.map((f: { name: string }) => f.name)).toEqual(['Follow-up', 'Idle']);
      expect(stats.flows[0].flowId).toBe(flowId);
      expect(stats.flows[1].measures).toEqual({ runsStarted: 0, runsCompleted: 0, messages: [] });
      const perDay = new Map<string, number>();
      for (const r of runs.filter((r) => inWindow(r.startedAt, window))) perDay.set(bucketLabel(r.startedAt, window), (perDay.get(bucketLabel(r.startedAt, window)) ?? 0) + 1);
      for (const b of stats.series) expect(b.measures.runsStarted).toBe(perDay.get(bucketLabel(new Date(b.start), window)) ?? 0);

      const one = await app.graphql<{ flowStats: any }>(`query($s: ID!, $w: TimeWindowInput!, $f: ID) { flowStats(storeId: $s, window: $w, flowId: $f) { flows { name } totals { runsStarted } } }`, {
        s: acme.storeId,
        w: window,
        f: flowId,
      }, acme.apiSecret);
      expect(one.data!.flowStats).toEqual({ flows: [{ name: 'Follow-up' }], totals: { runsStarted: 3 } });
    });
  });
});
