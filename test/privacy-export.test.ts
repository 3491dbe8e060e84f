import { QUEUE_SCHEMA } from '../platform/jobs/queue-tables.js';
import { describe, expect, it } from 'vitest';
import { useTestApp } from './support/app.js';
import { drained, postEvent } from './support/events.js';
import { ANN, NEEDLES, scan, useAnnsStore, type Hit } from './support/privacy.js';
import { call } from './support/webhooks.js';

interface Exported {
  identifiers: { customerId: string | null; email: string | null; phoneNumber: string | null };
  customer: { id: string } | null;
  events: { id: string }[];
  mentions: { id: string }[];
  flowRuns: { id: string; steps: unknown[] }[];
  messages: { id: string; to: string }[];
  orders: { id: string }[];
  returns: { id: string }[];
}

/**
 * An access request: everything the store holds about one customer as one JSON document,
 * streamed from REST and read through the graph; it contains every record the every-column scan
 * finds with her email or phone number.
 */
describe('customer export', () => {
  const app = useTestApp();
  const ann = useAnnsStore(app, 'Export');
  const shop = ann.shop;

  const exportOf = (body: Record<string, unknown>) => call(app, shop.apiSecret, 'POST', `/v2.2/stores/${shop.storeId}/customers/export`, body);

  it('contains everything the every-column scan finds about her', { timeout: 120_000 }, async () => {
    const res = await exportOf({ email: ANN.email.toLowerCase() });
    expect(res.status).toBe(200);
    const doc = res.body as Exported;
    expect(doc.identifiers).toEqual({ customerId: ann.seeded.annId, email: ANN.email, phoneNumber: ANN.phoneNumber });
    expect(doc.customer?.id).toBe(ann.seeded.annId);
    // Her two events and her return's two status changes.
    expect(doc).toMatchObject({ events: [{}, {}, {}, {}], mentions: [{}], flowRuns: [{ steps: [{}, {}] }], orders: [{ id: ann.seeded.orderId }], returns: [{ id: ann.seeded.returnId }] });
    expect(doc.messages.map((m) => m.to).sort()).toEqual([ANN.email, ANN.phoneNumber].sort());

    const ids = new Set([doc.customer!.id, ...[doc.events, doc.mentions, doc.flowRuns, doc.messages, doc.orders, doc.returns].flat().map((r) => r.id)]);
    // Each row the scan finds is an exported record, a part of one, or a copy of one (an outbox event, a webhook message, a job).
    const exportedBy = (hit: Hit): string | undefined => {
      const row = hit.row as Record<string, any>;
      // pg-boss's job table and its partitions.
      if (hit.table.startsWith(`${QUEUE_SCHEMA}.job`)) return row.data.subjectId ?? row.data.eventId;
      switch (hit.table) {
        case 'events.flow_run_step':
          return row.run_id;
        case 'returns.return_item':
        case 'returns.return_comment':
        case 'returns.return_timeline':
        case 'events.customer_return': // the segments' copy of her returns and orders, exported as those
        case 'returns.return_stat_source': // each return's contribution to the statistics, with its order's customer
          return row.return_id;
        case 'events.customer_order':
        case 'returns.order_units': // each order's units, with its customer
          return row.order_id;
        case 'webhooks.message':
        case 'webhooks.attempt':
        case 'platform.outbox_event':
          return row.subject_id;
        default:
          return row.id;
      }
    };
    const hits = await scan(app.databaseUrl, NEEDLES);
    expect(hits.length).toBeGreaterThan(10);
    const missing = hits.filter((hit) => !ids.has(exportedBy(hit) ?? '')).map((hit) => `${hit.table}.${hit.column}: ${JSON.stringify(hit.row).slice(0, 200)}`);
    expect(missing).toEqual([]);
  });

  it('is the same through the graph, by phone number', async () => {
    const result = await app.graphql<{ customerExport: Record<string, any> }>(
      `query($s: ID!, $p: String!) { customerExport(storeId: $s, by: {phoneNumber: $p}) {
          customerId email customer { id firstName }
          events { totalCount edges { node { id eventName } } } mentions { totalCount } flowRuns { totalCount } messages { totalCount }
          orders { totalCount edges { node { id erasedAt } } } returns { totalCount edges { node { id } } } } }`,
      { s: shop.storeId, p: ANN.phoneNumber },
      shop.apiSecret,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data!.customerExport).toMatchObject({
      customerId: ann.seeded.annId,
      email: ANN.email,
      customer: { id: ann.seeded.annId, firstName: 'Ann' },
      events: { totalCount: 4 },
      mentions: { totalCount: 1 },
      flowRuns: { totalCount: 1 },
      messages: { totalCount: 2 },
      orders: { totalCount: 1, edges: [{ node: { id: ann.seeded.orderId, erasedAt: null } }] },
      returns: { totalCount: 1, edges: [{ node: { id: ann.seeded.returnId } }] },
    });
  });

  it('streams a long history page by page, and answers an empty document for someone unknown', { timeout: 120_000 }, async () => {
    const gus = { email: 'gus@example.com' };
    for (let i = 0; i < 12; i++) {
      const events = Array.from({ length: 100 }, (_, k) => ({ eventName: 'Tick', customer: gus, data: { n: i * 100 + k + 1 } }));
      expect((await postEvent(app, shop, { events }, { path: '/bulk' })).status).toBe(202);
    }
    await drained(app.databaseUrl);
    const doc = (await exportOf(gus)).body as Exported;
    expect(doc.events).toHaveLength(1200);
    expect(new Set(doc.events.map((e) => e.id)).size).toBe(1200);

    const nobody = await exportOf({ phoneNumber: '+14155550000' });
    expect(nobody.status).toBe(200);
    expect(nobody.body).toMatchObject({ identifiers: { customerId: null, email: null, phoneNumber: '+14155550000' }, customer: null, events: [], mentions: [], orders: [], returns: [] });
  });

  it('needs privacy_read, and one identifier', async () => {
    const { apiSecret: readOnly } = await app.service.runtime.accounts.createSecret(shop.accountId, ['customers_read', 'returns_read']);
    const refused = await call(app, readOnly, 'POST', `/v2.2/stores/${shop.storeId}/customers/export`, { email: ANN.email });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/privacy_read/);
    const other = await app.createAccount('Stranger');
    expect((await call(app, other.apiSecret, 'POST', `/v2.2/stores/${shop.storeId}/customers/export`, { email: ANN.email })).status).toBe(404);
    expect((await exportOf({})).status).toBe(400);
    expect((await exportOf({ email: ANN.email, customerId: ann.seeded.annId })).status).toBe(400);
  });
});
