import { expect } from 'vitest';
import type { TestAccount, TestApp } from './support/app.js';

/** GraphQL call that must succeed: returns `data`, fails the test with the errors otherwise. */
export async function gql<T = Record<string, unknown>>(app: TestApp, query: string, variables: Record<string, unknown> = {}, token?: string): Promise<T> {
  const result = await app.graphql<T>(query, variables, token);
  if (result.errors?.length || !result.data) throw new Error(`GraphQL failed: ${JSON.stringify(result.errors)}`);
  return result.data;
}

/** GraphQL call that must fail: returns the first error. */
export async function gqlError(app: TestApp, query: string, variables: Record<string, unknown> = {}, token?: string) {
  const result = await app.graphql(query, variables, token);
  expect(result.errors?.length, `expected an error, got ${JSON.stringify(result.data)}`).toBeGreaterThan(0);
  return result.errors![0]!;
}

export async function createLocation(app: TestApp, storeId: string, name: string, token?: string): Promise<string> {
  const data = await gql<{ createLocation: { id: string } }>(
    app,
    'mutation($storeId: ID!, $input: CreateLocationInput!) { createLocation(storeId: $storeId, input: $input) { id } }',
    { storeId, input: { name } },
    token,
  );
  return data.createLocation.id;
}

export async function upsertProduct(app: TestApp, storeId: string, input: { sku: string; title: string; variantTitle?: string; imageUrl?: string }): Promise<string> {
  const data = await gql<{ upsertProduct: { id: string } }>(
    app,
    'mutation($storeId: ID!, $input: UpsertProductInput!) { upsertProduct(storeId: $storeId, input: $input) { id } }',
    { storeId, input },
  );
  return data.upsertProduct.id;
}

export const ITEM_FIELDS = 'id storeId productId sku name kind lotNumber expirationDate quantity locations { locationId locationName quantity } createdAt updatedAt';

export interface ItemResult {
  id: string;
  sku: string;
  name: string;
  kind: string;
  lotNumber: string | null;
  quantity: number;
  locations: { locationId: string; locationName: string; quantity: number }[];
}

export const ADJUST = `mutation($storeId: ID!, $input: AdjustInventoryInput!) { adjustInventory(storeId: $storeId, input: $input) { ${ITEM_FIELDS} } }`;

export async function adjust(
  app: TestApp,
  storeId: string,
  input: { productId?: string; sku?: string; locationId: string; kind?: string; delta: number; lotNumber?: string; expirationDate?: string },
): Promise<ItemResult> {
  return (await gql<{ adjustInventory: ItemResult }>(app, ADJUST, { storeId, input })).adjustInventory;
}

const SHIPMENT_FIELDS = `id storeId shipmentId status location { id name } estimatedArrivalDate actualArrivalDate
  freightCost { amount currency } dutyCost { amount currency }
  items { id product { id sku } quantity receivedQuantity damagedQuantity missingQuantity } skuCount itemCount receivedCount updatedAt`;

export interface ShipmentResult {
  id: string;
  status: string;
  actualArrivalDate: string | null;
  items: { id: string; product: { id: string; sku: string }; quantity: number; receivedQuantity: number; damagedQuantity: number; missingQuantity: number }[];
  skuCount: number;
  itemCount: number;
  receivedCount: number;
}

export const CREATE_SHIPMENT = `mutation($storeId: ID!, $input: CreateInboundShipmentInput!) { createInboundShipment(storeId: $storeId, input: $input) { ${SHIPMENT_FIELDS} } }`;
export const RECEIVE = `mutation($id: ID!, $items: [ReceiveInboundShipmentItemInput!]!) { receiveInboundShipment(id: $id, items: $items) { ${SHIPMENT_FIELDS} } }`;
export const IN_TRANSIT = `mutation($id: ID!) { markInboundShipmentInTransit(id: $id) { ${SHIPMENT_FIELDS} } }`;

export async function createShipment(app: TestApp, storeId: string, input: Record<string, unknown>): Promise<ShipmentResult> {
  return (await gql<{ createInboundShipment: ShipmentResult }>(app, CREATE_SHIPMENT, { storeId, input })).createInboundShipment;
}

export async function receive(app: TestApp, id: string, items: Record<string, unknown>[]): Promise<ShipmentResult> {
  return (await gql<{ receiveInboundShipment: ShipmentResult }>(app, RECEIVE, { id, items })).receiveInboundShipment;
}

/** GET a REST path as the account; returns status, body and the next-page cursor. */
export async function rest<T = Record<string, unknown>>(app: TestApp, account: TestAccount, path: string, token = account.apiSecret) {
  const res = await app.request(`/v2.2/stores/${account.storeId}${path}`, { token });
  return { status: res.status, body: (await res.json()) as T, next: res.headers.get('x-page-next'), contentType: res.headers.get('content-type'), ignored: res.headers.get('ignored-parameters') };
}

/** Follows X-Page-Next to the end and returns every row of `key`. */
export async function walk<T>(app: TestApp, account: TestAccount, path: string, key: string, pageSize: number): Promise<{ rows: T[]; pages: number }> {
  const rows: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page: { status: number; body: Record<string, T[]>; next: string | null } = await rest<Record<string, T[]>>(
      app,
      account,
      `${path}${sep}page-size=${pageSize}${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(page.status).toBe(200);
    rows.push(...page.body[key]!);
    cursor = page.next;
    pages++;
  } while (cursor);
  return { rows, pages };
}

