import { execute, parse, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestContext } from '../platform/graphql/context.js';
import { RequestLocals } from '../rest-facade/pipeline/request-locals.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { accept, drained } from './support/events.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';
import { adjust, createLocation, createShipment, gql, upsertProduct } from './inventory-fixtures.js';
import { StateProbe } from './fuzz/harness.js';

/**
 * Every id of account A, requested, changed and referenced with account B's
 * secret (REST paths, GraphQL arguments, `_entities` representations), is
 * unknown: 404 or null, never 200, never a change.
 */
describe('cross-account sweep', () => {
  const app = useTestApp();
  const a = useTestAccount(app, 'Account A');
  const b = useTestAccount(app, 'Account B');
  let probe: StateProbe;
  const ids = {} as Record<'order' | 'returnId' | 'returnItem' | 'location' | 'product' | 'item' | 'shipment' | 'shipmentLine' | 'customer' | 'event', string>;

  beforeAll(async () => {
    const order = orderBody({ id: 'A-1' }, [{ id: 'l1', quantity: 5, price: '10.00', sku: 'CAP' }]);
    ids.order = (await pushOrder(app, a, order)).body.order.id;
    const created = await postReturn(app, a, returnBody('A-1', [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]));
    ids.returnId = created.body.return.id;
    ids.returnItem = created.body.return.items[0].id;
    ids.location = await createLocation(app, a.storeId, 'A main');
    ids.product = await upsertProduct(app, a.storeId, { sku: 'CAP', title: 'Cap' });
    ids.item = (await adjust(app, a.storeId, { sku: 'CAP', locationId: ids.location, delta: 5 })).id;
    const shipment = await createShipment(app, a.storeId, { locationId: ids.location, items: [{ productId: ids.product, quantity: 3 }] });
    ids.shipment = shipment.id;
    ids.shipmentLine = shipment.items[0]!.id;
    await accept(app, a, { eventName: 'Seen', customer: { email: 'a@example.com' } });
    await drained(app.databaseUrl);
    const customer = await gql<{ customer: { id: string; events: { edges: { node: { id: string } }[] } } }>(
      app,
      `query($s: ID!) { customer(storeId: $s, email: "a@example.com") { id events { edges { node { id } } } } }`,
      { s: a.storeId },
      a.apiSecret,
    );
    ids.customer = customer.customer.id;
    ids.event = customer.customer.events.edges[0]!.node.id;
    probe = new StateProbe(app.databaseUrl);
    probe.changed();
  });
  afterAll(async () => {
    await probe?.close();
  });

  const asB = (path: string, init: RequestInit = {}) =>
    app.request(path, { ...init, token: b.apiSecret, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) } });

  it('REST: every path naming A’s store or A’s resources is 404 for B, and changes nothing', async () => {
    const before = await probe.fingerprint();
    const json = (body: unknown) => ({ body: JSON.stringify(body) });
    const calls: [string, string, RequestInit?][] = [
      ['GET', `/v2.2/returns/${ids.returnId}`],
      ['GET', `/v2.2/returns/${ids.returnId}/comments`],
      ['POST', `/v2.2/returns/${ids.returnId}/comments`, json({ comment: { message: 'hi' } })],
      ['PUT', `/v2.2/returns/${ids.returnId}/status`, json({ status: 'complete' })],
      ['GET', `/v2.2/stores/${a.storeId}/returns`],
      ['POST', `/v2.2/stores/${a.storeId}/returns`, json(returnBody('A-1', [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]))],
      ['POST', `/v2.2/stores/${a.storeId}/custom/orders`, json(orderBody({ id: 'A-1' }))],
      ['POST', `/v2.2/stores/${a.storeId}/events`, json({ eventName: 'E', customer: { email: 'a@example.com' } })],
      ['POST', `/v2.2/stores/${a.storeId}/events/bulk`, json({ events: [{ eventName: 'E', customer: { email: 'a@example.com' } }] })],
      ['GET', `/v2.2/stores/${a.storeId}/inbound-shipments`],
      ['GET', `/v2.2/stores/${a.storeId}/inbound-shipments/${ids.shipment}`],
      ['GET', `/v2.2/stores/${a.storeId}/inventory-items`],
      ['GET', `/v2.2/stores/${a.storeId}/inventory-items/${ids.item}`],
      ['GET', `/v2.2/stores/${b.storeId}/inbound-shipments/${ids.shipment}`],
      ['GET', `/v2.2/stores/${b.storeId}/inventory-items/${ids.item}`],
    ];
    for (const [method, path, init] of calls) {
      const res = await asB(path, { method, ...init });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect(await probe.fingerprint()).toBe(before);
  });

  it('GraphQL: A’s ids as arguments are unknown to B (null or NOT_FOUND), and mutations change nothing', async () => {
    const before = await probe.fingerprint();
    const reads = await app.graphql<Record<string, unknown>>(
      `query($r: ID!, $o: ID!, $e: ID!, $s: ID!, $i: ID!, $sh: ID!, $p: ID!) {
        return(id: $r) { id } order(id: $o) { id } customEvent(id: $e) { id }
        inventoryItem(storeId: $s, id: $i) { id } inboundShipment(storeId: $s, id: $sh) { id } product(storeId: $s, id: $p) { id }
      }`,
      { r: ids.returnId, o: ids.order, e: ids.event, s: b.storeId, i: ids.item, sh: ids.shipment, p: ids.product },
      b.apiSecret,
    );
    expect(reads.errors).toBeUndefined();
    expect(reads.data).toEqual({ return: null, order: null, customEvent: null, inventoryItem: null, inboundShipment: null, product: null });

    const refused: [string, Record<string, unknown>][] = [
      ['query($s: ID!) { customer(storeId: $s, email: "a@example.com") { id } }', { s: a.storeId }],
      ['query($s: ID!) { returns(storeId: $s) { totalCount } }', { s: a.storeId }],
      ['query($s: ID!) { customEvents(storeId: $s) { totalCount } }', { s: a.storeId }],
      ['query($s: ID!) { storeSettings(storeId: $s) { storeId } }', { s: a.storeId }],
      ['mutation($id: ID!) { updateReturnStatus(returnId: $id, status: complete) { id } }', { id: ids.returnId }],
      ['mutation($id: ID!) { approveReturn(returnId: $id) { id } }', { id: ids.returnId }],
      ['mutation($id: ID!) { addReturnComment(returnId: $id, message: "x") { id } }', { id: ids.returnId }],
      ['mutation($id: ID!) { recordReturnShipmentEvent(returnId: $id, input: {status: in_transit}) { id } }', { id: ids.returnId }],
      ['mutation($id: ID!) { markInboundShipmentInTransit(id: $id) { id } }', { id: ids.shipment }],
      ['mutation($id: ID!, $line: ID!) { receiveInboundShipment(id: $id, items: [{itemId: $line, receivedQuantity: 1}]) { id } }', { id: ids.shipment, line: ids.shipmentLine }],
      ['mutation($s: ID!, $p: ID!, $l: ID!) { adjustInventory(storeId: $s, input: {productId: $p, locationId: $l, delta: 1}) { id } }', { s: b.storeId, p: ids.product, l: ids.location }],
      ['mutation($s: ID!, $l: ID!, $p: ID!) { createInboundShipment(storeId: $s, input: {locationId: $l, items: [{productId: $p, quantity: 1}]}) { id } }', { s: b.storeId, l: ids.location, p: ids.product }],
      ['mutation($s: ID!) { updateStoreSettings(storeId: $s, input: {requireReturnApproval: true}) { storeId } }', { s: a.storeId }],
      ['mutation($s: ID!) { upsertProduct(storeId: $s, input: {sku: "X", title: "X"}) { id } }', { s: a.storeId }],
      ['mutation($s: ID!) { createSegment(storeId: $s, input: {name: "x", definition: {all: [{profile: {field: "email", operator: IS_SET}}]}}) { id } }', { s: a.storeId }],
      ['mutation($s: ID!) { upsertOrder(storeId: $s, input: {id: "A-1"}) { id } }', { s: a.storeId }],
      ['mutation($s: ID!) { createCustomEvent(storeId: $s, event: {eventName: "E", customer: {email: "x@example.com"}}) { queued } }', { s: a.storeId }],
    ];
    for (const [queryText, variables] of refused) {
      const res = await app.graphql(queryText, variables, b.apiSecret);
      expect(res.errors?.[0]?.extensions?.code, queryText).toBe('NOT_FOUND');
    }
    expect(await probe.fingerprint()).toBe(before);
  });

  it('_entities: A’s entities referenced in a subgraph with B’s credentials resolve to null', async () => {
    const { schemas, accounts, adminToken } = app.service.runtime;
    const principal = await accounts.authenticate({ bearer: b.apiSecret }, adminToken);
    const context = () => new RequestContext(principal!, { bearer: b.apiSecret }, new RequestLocals('req-sweep', app.service.runtime.logger));
    const entities = async (schema: GraphQLSchema, representations: Record<string, unknown>[]) => {
      const result = await execute({
        schema,
        document: parse('query($r: [_Any!]!) { _entities(representations: $r) { __typename } }'),
        variableValues: { r: representations },
        contextValue: context(),
      });
      expect(result.errors).toBeUndefined();
      return (result.data as { _entities: unknown[] })._entities;
    };
    expect(await entities(schemas.returns!, [{ __typename: 'Return', id: ids.returnId }, { __typename: 'Order', id: ids.order }])).toEqual([null, null]);
    expect(await entities(schemas.events!, [{ __typename: 'Customer', id: ids.customer }, { __typename: 'CustomEvent', id: ids.event }])).toEqual([null, null]);
    expect(
      await entities(schemas.inventory!, [
        { __typename: 'Product', id: ids.product },
        { __typename: 'Product', storeId: a.storeId, sku: 'CAP' },
        { __typename: 'InventoryItem', id: ids.item },
        { __typename: 'InventoryItem', storeId: a.storeId, sku: 'CAP', kind: 'PRODUCT' },
        { __typename: 'InboundShipment', id: ids.shipment },
        { __typename: 'Location', id: ids.location },
      ]),
    ).toEqual([null, null, null, null, null, null]);
    // The same references with A's credentials resolve: the nulls above are the account check, not bad references.
    const principalA = await accounts.authenticate({ bearer: a.apiSecret }, adminToken);
    const asA = await execute({
      schema: schemas.returns!,
      document: parse('query($r: [_Any!]!) { _entities(representations: $r) { __typename } }'),
      variableValues: { r: [{ __typename: 'Return', id: ids.returnId }] },
      contextValue: new RequestContext(principalA!, { bearer: a.apiSecret }, new RequestLocals('req-sweep-a', app.service.runtime.logger)),
    });
    expect(asA.data).toEqual({ _entities: [{ __typename: 'Return' }] });
  });
});
