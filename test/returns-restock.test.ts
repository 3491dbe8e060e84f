import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { consumedEvents } from './support/database.js';
import { eventually } from './support/eventually.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

/**
 * Returns and inventory together, through the real graph and the real queue:
 * return items resolve their product and stock item from the inventory
 * subgraph, and completing a return restocks it there exactly once.
 */
describe('returns across the inventory subgraph', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  let locationId: string;
  beforeAll(async () => {
    const loc = await app.graphql<any>(`mutation($s: ID!) { createLocation(storeId: $s, input: {name: "Returns dock", externalId: "dock"}) { id } }`, { s: acme.storeId }, acme.apiSecret);
    locationId = loc.data.createLocation.id;
    await app.graphql(`mutation($s: ID!, $l: String) { updateStoreSettings(storeId: $s, input: {returnLocationId: $l}) { storeId } }`, { s: acme.storeId, l: locationId }, acme.apiSecret);
    const product = await app.graphql<any>(`mutation($s: ID!) { upsertProduct(storeId: $s, input: {sku: "SKU-1", title: "Shirt", variantTitle: "M"}) { id } }`, { s: acme.storeId }, acme.apiSecret);
    expect(product.errors).toBeUndefined();
    await pushOrder(app, acme, orderBody({ id: 'X-1' }));
  });

  const itemsOf = (id: string) =>
    app.graphql<any>(
      `query($id: ID!) { return(id: $id) { status items { sku quantity product { title variantTitle } inventoryItem { kind name quantity locations { locationId quantity } } } } }`,
      { id },
      acme.apiSecret,
    );
  const put = (id: string, status: string) =>
    app.request(`/v2.2/returns/${id}/status`, { method: 'PUT', token: acme.apiSecret, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status }) });

  it('resolves a return item’s product from the inventory subgraph, and its stock item once restocked', async () => {
    const created = await postReturn(app, acme, returnBody('X-1', [{ lineItemId: 'li-1', quantity: 2, reason: 'r' }, { lineItemId: 'li-2', quantity: 1, reason: 'r' }]));
    const id = created.body.return.id;
    const before = await itemsOf(id);
    expect(before.errors).toBeUndefined();
    expect(before.data.return.items[0]).toMatchObject({ sku: 'SKU-1', product: { title: 'Shirt', variantTitle: 'M' }, inventoryItem: null });
    expect(before.data.return.items[1]).toMatchObject({ sku: 'SKU-2', product: null });

    expect((await put(id, 'complete')).status).toBe(204);
    await eventually(async () => (await itemsOf(id)).data.return.items[0].inventoryItem !== null, 'restock', { timeoutMs: 20_000 });
    const after = await itemsOf(id);
    expect(after.data.return.items[0].inventoryItem).toEqual({ kind: 'RETURN', name: 'Shirt - M', quantity: 2, locations: [{ locationId, quantity: 2 }] });

    // The unknown sku went in as UNKNOWN stock at the same location.
    const unknown = await app.request(`/v2.2/stores/${acme.storeId}/inventory-items?kind=UNKNOWN`, { token: acme.apiSecret });
    expect((await unknown.json()).inventory_items).toEqual([expect.objectContaining({ sku: 'SKU-2', kind: 'UNKNOWN', quantity: 1 })]);

    // Reopened and completed again: nothing is restocked twice.
    expect((await put(id, 'open')).status).toBe(204);
    expect((await put(id, 'complete')).status).toBe(204);
    // Wait until the restock consumer has read every change, including the second completion.
    const read = await consumedEvents(app.databaseUrl, 'inventory-restock', `e.subject_id = $2 and e.type = 'return.updated'`, [id], 3);
    expect(read).toHaveLength(3); // complete, open, complete
    const again = await itemsOf(id);
    expect(again.data.return.items[0].inventoryItem.quantity).toBe(2);
  });
});
