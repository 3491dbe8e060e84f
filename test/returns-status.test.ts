import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp, type TestAccount } from './support/app.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

/** The contract's transition table (decisions section 15), written out independently of the code. */
const TABLE: Record<string, string[]> = {
  pre_shipment: ['open', 'flagged', 'complete', 'rejected', 'deleted'],
  open: ['in_transit', 'delivered', 'needs_review', 'flagged', 'complete', 'rejected', 'deleted'],
  in_transit: ['delivered', 'needs_review', 'flagged', 'complete', 'rejected', 'deleted'],
  delivered: ['needs_review', 'in_review', 'flagged', 'complete', 'rejected', 'deleted'],
  needs_review: ['in_review', 'flagged', 'open', 'complete', 'rejected', 'deleted'],
  in_review: ['needs_review', 'flagged', 'complete', 'rejected'],
  flagged: ['open', 'in_review', 'complete', 'rejected', 'deleted'],
  complete: ['open'],
  rejected: ['open'],
  deleted: [],
};
const STATUSES = Object.keys(TABLE);
/** How to reach each status from `open` through allowed moves. */
const PATH: Record<string, string[]> = {
  open: [],
  in_transit: ['in_transit'],
  delivered: ['delivered'],
  needs_review: ['needs_review'],
  in_review: ['needs_review', 'in_review'],
  flagged: ['flagged'],
  complete: ['complete'],
  rejected: ['rejected'],
  deleted: ['deleted'],
};

describe('return status machine', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  const approval = useTestAccount(app, 'Approval');
  beforeAll(async () => {
    await app.graphql(`mutation($s: ID!) { updateStoreSettings(storeId: $s, input: {requireReturnApproval: true}) { storeId } }`, { s: approval.storeId });
    for (const account of [acme, approval]) await pushOrder(app, account, orderBody({ id: 'T-1' }, [{ id: 'a', quantity: 1000, price: '1.00' }]));
  });

  const gqlStatus = (id: string, status: string, account = acme) =>
    app.graphql<{ updateReturnStatus: { status: string } }>(`mutation($id: ID!, $s: ReturnStatus!) { updateReturnStatus(returnId: $id, status: $s) { status } }`, { id, s: status }, account.apiSecret);

  async function returnIn(status: string): Promise<{ id: string; account: TestAccount }> {
    const account = status === 'pre_shipment' ? approval : acme;
    const created = await postReturn(app, account, returnBody('T-1', [{ lineItemId: 'a', quantity: 1, reason: 'r' }]));
    expect(created.status).toBe(201);
    const id = created.body.return.id as string;
    for (const step of PATH[status] ?? []) expect((await gqlStatus(id, step)).data?.updateReturnStatus.status).toBe(step);
    return { id, account };
  }

  for (const from of STATUSES) {
    it(`from ${from}: allows exactly ${TABLE[from]!.join(', ') || 'nothing'}`, async () => {
      for (const to of STATUSES) {
        if (to === from) continue;
        const { id, account } = await returnIn(from);
        const res = await gqlStatus(id, to, account);
        if (TABLE[from]!.includes(to)) {
          expect(res.errors, `${from} -> ${to}`).toBeUndefined();
          expect(res.data?.updateReturnStatus.status).toBe(to);
        } else {
          expect(res.errors?.[0]?.extensions, `${from} -> ${to}`).toMatchObject({ code: 'CONFLICT', problem: 'invalid-transition' });
        }
      }
    });
  }

  it('REST PUT /returns/{id}/status answers 204, 409 for a forbidden move, 400 for other targets', async () => {
    const put = (id: string, status: unknown) =>
      app.request(`/v2.2/returns/${id}/status`, { method: 'PUT', token: acme.apiSecret, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status }) });
    const { id } = await returnIn('open');
    expect((await put(id, 'complete')).status).toBe(204);
    const forbidden = await put(id, 'flagged');
    expect(forbidden.status).toBe(409);
    expect((await forbidden.json()).type).toBe('/problems/invalid-transition');
    for (const target of ['in_transit', 'needs_review', 'bogus', 7]) {
      const res = await put(id, target);
      expect(res.status).toBe(400);
      expect((await res.json()).errors[0].pointer).toBe('/status');
    }
    expect((await put(id, 'open')).status).toBe(204);
    const read = await (await app.request(`/v2.2/returns/${id}`, { token: acme.apiSecret })).json();
    expect(read.return.status).toBe('open');
  });

  it("answers 404 for another account's return", async () => {
    const { id } = await returnIn('open');
    const other = await app.createAccount('Other');
    const res = await app.request(`/v2.2/returns/${id}/status`, { method: 'PUT', token: other.apiSecret, headers: { 'content-type': 'application/json' }, body: '{"status":"complete"}' });
    expect(res.status).toBe(404);
    expect((await res.json()).type).toBe('/problems/return-not-found');
  });

  it('moves open -> in_transit -> delivered on shipment events and fills shipment/shipments', async () => {
    const { id } = await returnIn('open');
    const record = (status: string) =>
      app.graphql<{ recordReturnShipmentEvent: { status: string; shipment: Record<string, unknown>; shipments: unknown[] } }>(
        `mutation($id: ID!, $s: ShipmentStatus!) { recordReturnShipmentEvent(returnId: $id, input: {status: $s, carrier: "UPS", trackingNumber: "1Z999"}) {
           status shipment { carrier status tracker deliveredAt } shipments { status tracker } } }`,
        { id, s: status },
        acme.apiSecret,
      );
    const transit = await record('in_transit');
    expect(transit.data?.recordReturnShipmentEvent).toMatchObject({ status: 'in_transit', shipment: { carrier: 'UPS', status: 'in_transit', tracker: '1Z999', deliveredAt: null } });
    const delivered = await record('delivered');
    expect(delivered.data?.recordReturnShipmentEvent.status).toBe('delivered');
    expect(delivered.data?.recordReturnShipmentEvent.shipment).toMatchObject({ status: 'delivered', deliveredAt: expect.any(String) });
    expect(delivered.data?.recordReturnShipmentEvent.shipments).toEqual([{ status: 'delivered', tracker: '1Z999' }]);
    const rest = await (await app.request(`/v2.2/returns/${id}`, { token: acme.apiSecret })).json();
    // The return ships as one parcel: the shipment carries every item of the return.
    expect(rest.return.shipment).toMatchObject({ carrier: 'UPS', status: 'delivered', tracker: '1Z999', itemIds: rest.return.items.map((i: { id: string }) => i.id) });
  });

  it('makes the items returnable again when a return is deleted, and never leaves deleted', async () => {
    await pushOrder(app, acme, orderBody({ id: 'T-2' }, [{ id: 'one', quantity: 1, price: '3.00' }]));
    const first = await postReturn(app, acme, returnBody('T-2', [{ lineItemId: 'one', quantity: 1, reason: 'r' }]));
    expect((await postReturn(app, acme, returnBody('T-2', [{ lineItemId: 'one', quantity: 1, reason: 'r' }]))).status).toBe(409);
    expect((await gqlStatus(first.body.return.id, 'deleted')).data?.updateReturnStatus.status).toBe('deleted');
    expect((await postReturn(app, acme, returnBody('T-2', [{ lineItemId: 'one', quantity: 1, reason: 'r' }]))).status).toBe(201);
    expect((await gqlStatus(first.body.return.id, 'open')).errors?.[0]?.extensions?.problem).toBe('invalid-transition');
  });
});
