import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { addServiceFormats } from '../platform/validation/index.js';
import { createLocation, createShipment, gql, receive, upsertProduct } from './inventory-fixtures.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { eventually } from './support/eventually.js';

/**
 * Drop-in for the real platform's API 2.2 clients (issue 15): every `/v2.2`
 * operation that its published OpenAPI 3.1 schema (the npm package
 * `@redotech/redo-api-schema`, pinned in devDependencies) and this service
 * share is called with requests valid against that schema, and every answer
 * (status, headers, body) is validated with Ajv against that schema, not
 * against the service's own document. What the service does differently on
 * purpose is listed in DIFFERENCES below, each with the section of the
 * product decisions that requires it; nothing else may differ.
 */

type Json = Record<string, any>;

const require = createRequire(import.meta.url);
const SCHEMA_FILE = require.resolve('@redotech/redo-api-schema/openapi.yaml');
const schema = parse(readFileSync(SCHEMA_FILE, 'utf8')) as Json;

/** The deliberate differences, each with the decision that requires it (decisions.md sections). */
const DIFFERENCES = {
  problemErrors: {
    decisions: '3 (Errors), 14 (Errors and HTTP)',
    what:
      'Every error is an RFC 9457 problem (type, title, status, detail, instance) sent as application/problem+json, also where the schema declares application/json (create return 400/404/409, import returns 400, custom events 400/404/429, storefront events 400), the custom-order error body {error, errors} (custom orders 400/401/500), the orders API\'s {error} (orders and fulfillments 400/401/404/409), or no error at all (GET /webhooks/{webhookId}). The body still matches the schema\'s error.schema.',
  },
  commentReadShape: {
    decisions: '8 (Comments), 17 (an answer the schema does not allow is a documented difference)',
    what: 'Comments read as {id, message, createdAt} (and image when the comment carries one), in GET and in the 201 answer of POST, where the schema declares {message} or {image} with no other property.',
  },
  bulkEventsBody: {
    decisions: '6 (Custom events: bulk)',
    what: 'POST /stores/{storeId}/events/bulk answers 202 with {accepted, rejected, results}, where the schema declares a 202 without a body.',
  },
  webhookReadTypo: {
    decisions: '14 (Webhooks: reads)',
    what: 'The schema\'s webhook-read.schema requires one property literally named "externalId id" (a slip for externalId and id, both also listed as properties). The service sends the fields of the decision: id and externalId, never a property of that name.',
  },
  contractOrderBody: {
    decisions: '7 (Orders), 14 (Orders)',
    what: 'The contract\'s order body (id, name, currency, lineItems[].price) keeps answering 200 {order}; the schema\'s order-sync body (type: "order") answers its {message, orderId, redoId}. This test sends the schema\'s body.',
  },
} as const;
type Difference = keyof typeof DIFFERENCES;

// OpenAPI 3.1 schemas are JSON Schema 2020-12; `nullable` (left over from 3.0 in places) is honoured by Ajv.
const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
addServiceFormats(ajv as unknown as Parameters<typeof addServiceFormats>[0]);
ajv.addFormat('uri-reference', { validate: (v: string) => URL.canParse(v, 'http://base.invalid/') });
ajv.addFormat('binary', true);
ajv.addSchema({ $id: 'redo.json', components: schema.components });
const validators = new Map<string, ValidateFunction>();

/** A schema of the document, compiled with its `#/components/...` references pointing into the document. */
function validatorOf(raw: Json): ValidateFunction {
  const key = JSON.stringify(raw);
  let validate = validators.get(key);
  if (!validate) {
    const rewritten = JSON.parse(JSON.stringify(raw).replaceAll('"#/components/', '"redo.json#/components/'));
    validators.set(key, (validate = ajv.compile(rewritten)));
  }
  return validate;
}

function errorsOf(validate: ValidateFunction, value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'} (${e.schemaPath})`);
}

const resolve = (node: Json | undefined): Json | undefined => {
  if (!node?.$ref) return node;
  const [, , kind, name] = (node.$ref as string).split('/');
  return schema.components[kind!][name!];
};

function operationOf(method: string, template: string): Json {
  const op = schema.paths[template]?.[method.toLowerCase()];
  if (!op) throw new Error(`The schema has no ${method} ${template}`);
  return op;
}

/** Shared operations the test called (method and schema template). */
const called = new Set<string>();

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The schema's path template, e.g. `/returns/{returnId}`. */
  template: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  /** The differences this call may show. */
  allow?: Difference[];
  /** An error case: the request breaks the schema on purpose (the answer is still checked). */
  invalidRequest?: boolean;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

function requestErrors(op: Json, call: Call): string[] {
  const problems: string[] = [];
  const parameters = [...(schema.paths[call.template].parameters ?? []), ...(op.parameters ?? [])].map(resolve) as Json[];
  for (const p of parameters) {
    const value = p.in === 'path' ? call.params?.[p.name] : p.in === 'query' ? call.query?.[p.name] : p.in === 'header' ? call.headers?.[p.name] : undefined;
    if (value === undefined) {
      if (p.required) problems.push(`request: ${p.in} parameter ${p.name} is required`);
      continue;
    }
    const typed = p.schema?.type === 'integer' || p.schema?.type === 'number' ? Number(value) : value;
    problems.push(...errorsOf(validatorOf(p.schema ?? {}), typed).map((e) => `request ${p.in} ${p.name}: ${e}`));
  }
  for (const name of Object.keys(call.query ?? {})) {
    if (!parameters.some((p) => p.in === 'query' && p.name === name)) problems.push(`request: query parameter ${name} is not in the schema`);
  }
  const content = op.requestBody?.content?.['application/json'];
  if (call.body !== undefined) {
    if (!content) problems.push('request: the schema takes no JSON body');
    else problems.push(...errorsOf(validatorOf(content.schema), call.body).map((e) => `request body: ${e}`));
  } else if (op.requestBody?.required) problems.push('request: the schema requires a body');
  return problems;
}

/** The ways an answer breaks the schema, given the differences the call may show. */
function answerErrors(op: Json, call: Call, answer: Answer, text: string): string[] {
  const allow = new Set(call.allow ?? []);
  const where = `${call.method} ${call.template} answered ${answer.status}`;
  const status = String(answer.status);
  // An error the operation declares nothing for (some declare only their success) is a problem like every other (problemErrors).
  const undeclaredError = answer.status >= 400 && allow.has('problemErrors') ? { content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/error.schema' } } } } : undefined;
  const declared = op.responses[status] ?? (answer.status >= 400 ? (op.responses.default ?? undeclaredError) : undefined);
  if (!declared) return [`${where}, a status the schema does not declare (${Object.keys(op.responses).join(', ')})`];
  const problems: string[] = [];
  for (const [name, header] of Object.entries((declared.headers ?? {}) as Json)) {
    const value = answer.headers.get(name);
    const h = resolve(header as Json)!;
    if (value === null) {
      if (h.required) problems.push(`${where} without its ${name} header`);
    } else problems.push(...errorsOf(validatorOf(h.schema ?? {}), value).map((e) => `${where}: header ${name} ${e}`));
  }
  const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (answer.status >= 400) {
    // Every error is problem+json with the schema's error.schema (DIFFERENCES.problemErrors where it declares another media type or body).
    const declaredTypes = Object.keys(declared.content ?? {});
    if (!declaredTypes.includes(mediaType) && !allow.has('problemErrors')) problems.push(`${where} as ${mediaType}; the schema declares ${declaredTypes.join(', ')}`);
    if (mediaType !== 'application/problem+json') problems.push(`${where} as ${mediaType}, not application/problem+json`);
    problems.push(...errorsOf(validatorOf({ $ref: '#/components/schemas/error.schema' }), answer.body).map((e) => `${where}: ${e}`));
    const schemaOfStatus = declared.content?.[mediaType]?.schema;
    if (schemaOfStatus && !allow.has('problemErrors')) problems.push(...errorsOf(validatorOf(schemaOfStatus), answer.body).map((e) => `${where}: ${e}`));
    return problems;
  }
  if (!declared.content) {
    if (text.length && !allow.has('bulkEventsBody')) problems.push(`${where} with a body; the schema declares none`);
    return problems;
  }
  const content = declared.content[mediaType];
  if (!content) return [...problems, `${where} as ${mediaType || 'no content type'}; the schema declares ${Object.keys(declared.content).join(', ')}`];
  const body = allow.has('commentReadShape') ? asSchemaComments(answer.body) : allow.has('webhookReadTypo') ? withTypoProperty(answer.body) : answer.body;
  problems.push(...errorsOf(validatorOf(content.schema), body).map((e) => `${where}: ${e}`));
  return problems;
}

/**
 * DIFFERENCES.commentReadShape: the service's comment read shape, projected
 * onto the schema's ({message} or {image}), so that every other part of the
 * answer is still checked and the comment may differ only as documented.
 */
function asSchemaComments(body: Json): Json {
  const project = (c: Json) => {
    expect(Object.keys(c).filter((k) => !['id', 'message', 'image', 'createdAt'].includes(k))).toEqual([]);
    expect(c).toMatchObject({ id: expect.any(String), createdAt: expect.any(String), message: expect.any(String) });
    return c.image !== undefined ? { image: c.image } : { message: c.message };
  };
  return body.comments ? { ...body, comments: body.comments.map(project) } : { ...body, comment: project(body.comment) };
}

/**
 * DIFFERENCES.webhookReadTypo: each webhook must carry `id` and `externalId`;
 * then the property the schema's slip requires is supplied, so the rest of the
 * document is still checked against the schema.
 */
function withTypoProperty(body: Json): Json {
  const fill = (w: Json) => {
    expect(w).toHaveProperty('id');
    expect(w).toHaveProperty('externalId');
    return { ...w, 'externalId id': w.externalId };
  };
  return body.webhooks ? { ...body, webhooks: body.webhooks.map(fill) } : { ...body, webhook: fill(body.webhook) };
}

describe('conformance with the real platform\'s API 2.2 schema', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Conformance');
  const violations: string[] = [];

  /** Calls the service as a client of the real platform would; fails the test on any violation. */
  async function call(c: Call): Promise<Answer> {
    const op = operationOf(c.method, c.template);
    called.add(`${c.method} ${c.template}`);
    const requestProblems = requestErrors(op, c);
    if (c.invalidRequest) expect(requestProblems, 'the error case must break the schema').not.toEqual([]);
    else expect(requestProblems, 'the test must send requests the schema allows').toEqual([]);
    const path = c.template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(c.params![name]!));
    const query = c.query ? `?${new URLSearchParams(c.query)}` : '';
    const res = await app.request(`/v2.2${path}${query}`, {
      method: c.method,
      token: acme.apiSecret,
      headers: { ...(c.body !== undefined ? { 'content-type': 'application/json' } : {}), ...c.headers },
      body: c.body === undefined ? undefined : JSON.stringify(c.body),
    });
    const text = await res.text();
    const answer = { status: res.status, headers: res.headers, body: text.length ? JSON.parse(text) : undefined };
    const problems = answerErrors(op, c, answer, text);
    violations.push(...problems);
    expect(problems).toEqual([]);
    return answer;
  }

  let orderId: string;
  let returnId: string;
  let itemId: string;
  let locationId: string;
  let productId: string;
  let shipmentId: string;

  beforeAll(async () => {
    locationId = await createLocation(app, acme.storeId, 'Main warehouse');
    productId = await upsertProduct(app, acme.storeId, { sku: 'TEE-BLK-M', title: 'Tee', variantTitle: 'Black / M' });
    await gql(app, 'mutation($storeId: ID!, $input: UpsertProductInput!) { upsertProduct(storeId: $storeId, input: $input) { id } }', {
      storeId: acme.storeId,
      input: { sku: 'TEE-BLK-M', title: 'Tee', variantTitle: 'Black / M', upc: '012345678905' },
    });
    const shipment = await createShipment(app, acme.storeId, { locationId, shipmentId: 'PO-77', items: [{ productId, quantity: 10 }] });
    shipmentId = shipment.id;
    const lines = await gql<{ inboundShipment: { restJson: string } }>(app, 'query($s: ID!, $id: ID!) { inboundShipment(storeId: $s, id: $id) { restJson } }', { s: acme.storeId, id: shipmentId });
    const lineId = (JSON.parse(lines.inboundShipment.restJson) as Json).items[0].id as string;
    await receive(app, shipmentId, [{ itemId: lineId, receivedQuantity: 6, damagedQuantity: 1, missingQuantity: 1 }]);
    await gql(app, 'mutation($storeId: ID!, $input: AdjustInventoryInput!) { adjustInventory(storeId: $storeId, input: $input) { id } }', {
      storeId: acme.storeId,
      input: { productId, locationId, delta: 4, lotNumber: 'LOT-7', expirationDate: '2027-06-30' },
    });
  });

  it('lists the documented differences, each with the decision that requires it', () => {
    for (const [name, d] of Object.entries(DIFFERENCES)) {
      expect(d.decisions, name).toMatch(/^\d+ \(/);
      expect(d.what.length, name).toBeGreaterThan(20);
    }
  });

  it('POST /stores/{storeId}/custom/orders takes the order-sync body and answers {message, orderId, redoId}', async () => {
    const res = await call({ method: 'POST', template: '/stores/{storeId}/custom/orders', params: { storeId: acme.storeId }, body: orderSyncBody('SYNC-1001') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), orderId: 'SYNC-1001', redoId: expect.stringMatching(/^ord_/) });
    orderId = res.body.redoId;
  });

  it('answers a custom order the schema refuses with a problem (400)', async () => {
    const body = { ...orderSyncBody('SYNC-BAD'), presentmentCurrency: 'USD', customer: { email: 'not-an-email', firstName: 'A', lastName: 'B' } };
    const res = await app.request(`/v2.2/stores/${acme.storeId}/custom/orders`, { method: 'POST', token: acme.apiSecret, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    const op = operationOf('POST', '/stores/{storeId}/custom/orders');
    const problems = answerErrors(op, { method: 'POST', template: '/stores/{storeId}/custom/orders', allow: ['problemErrors'] }, { status: res.status, headers: res.headers, body: JSON.parse(text) }, text);
    expect(res.status).toBe(400);
    expect(problems).toEqual([]);
    expect(JSON.parse(text).errors).toContainEqual({ pointer: '/customer/email', detail: expect.any(String) });
  });

  it('POST /stores/{storeId}/returns with a label and the schema\'s body (201)', async () => {
    const res = await call({
      method: 'POST',
      template: '/stores/{storeId}/returns',
      params: { storeId: acme.storeId },
      headers: { 'Idempotency-Key': 'conformance-1' },
      body: {
        data: {
          provider: 'custom',
          externalOrderId: 'SYNC-1001',
          items: [
            { lineItemId: 'L-1', quantity: 1, reason: 'Too small', reasonCode: 'SIZE', compensation: 'refund', notes: 'Tight at the shoulders' },
            { lineItemId: 'L-2', quantity: 1, reason: 'Damaged', compensation: 'store_credit' },
          ],
          shippingAddress: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
          label: { trackingNumber: '1Z999AA10123456784', carrier: 'UPS', trackingUrl: 'https://track.example/1Z999AA10123456784' },
          notes: 'Customer called',
        },
        options: { createExternalRMAs: false },
      },
    });
    expect(res.status).toBe(201);
    returnId = res.body.return.id;
    itemId = res.body.return.items[0].id;
    expect(res.body.return.shipments).toEqual([
      { carrier: 'UPS', status: 'pre_transit', tracker: '1Z999AA10123456784', trackingUrl: 'https://track.example/1Z999AA10123456784', itemIds: res.body.return.items.map((i: Json) => i.id) },
    ]);
    expect(res.body.return.items.map((i: Json) => i.outcome)).toEqual([null, null]);
    const secondBody = {
      data: {
        provider: 'custom',
        externalOrderId: 'SYNC-1001',
        items: [{ lineItemId: 'L-1', quantity: 1, reason: 'Wrong colour', compensation: 'refund' }],
        shippingAddress: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
      },
    };
    const second = await call({ method: 'POST', template: '/stores/{storeId}/returns', params: { storeId: acme.storeId }, headers: { 'Idempotency-Key': 'conformance-2' }, body: secondBody });
    expect(second.status).toBe(201);
    // The same key and body again replays the first answer with 200 (the schema declares 200 and 201).
    const replay = await call({ method: 'POST', template: '/stores/{storeId}/returns', params: { storeId: acme.storeId }, headers: { 'Idempotency-Key': 'conformance-2' }, body: secondBody });
    expect(replay.status).toBe(200);
  });

  it('answers create-return errors as problems (404 and 409, problem+json)', async () => {
    const base = { provider: 'custom', shippingAddress: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' } };
    const missing = await call({
      method: 'POST',
      template: '/stores/{storeId}/returns',
      params: { storeId: acme.storeId },
      allow: ['problemErrors'],
      body: { data: { ...base, externalOrderId: 'NOPE', items: [{ lineItemId: 'L-1', quantity: 1, reason: 'r', compensation: 'refund' }] } },
    });
    expect(missing.status).toBe(404);
    const tooMany = await call({
      method: 'POST',
      template: '/stores/{storeId}/returns',
      params: { storeId: acme.storeId },
      allow: ['problemErrors'],
      body: { data: { ...base, externalOrderId: 'SYNC-1001', items: [{ lineItemId: 'L-2', quantity: 5, reason: 'r', compensation: 'refund' }] } },
    });
    expect(tooMany.status).toBe(409);
  });

  it('GET /returns/{returnId} reads the return and its order in the schema\'s shapes', async () => {
    const res = await call({ method: 'GET', template: '/returns/{returnId}', params: { returnId } });
    expect(res.status).toBe(200);
    expect(res.body.order.id).toBe(orderId);
    const absent = await call({ method: 'GET', template: '/returns/{returnId}', params: { returnId: 'ret_missing' } });
    expect(absent.status).toBe(404);
  });

  it('GET /stores/{storeId}/returns lists with every filter the schema has, paged by X-Page-Size / X-Page-Continue', async () => {
    const first = await call({ method: 'GET', template: '/stores/{storeId}/returns', params: { storeId: acme.storeId }, headers: { 'X-Page-Size': '1' } });
    expect(first.status).toBe(200);
    expect(first.body.returns).toHaveLength(1);
    const next = first.headers.get('x-page-next');
    expect(next).toBeTruthy();
    const second = await call({ method: 'GET', template: '/stores/{storeId}/returns', params: { storeId: acme.storeId }, headers: { 'X-Page-Size': '1', 'X-Page-Continue': next! } });
    expect(second.body.returns).toHaveLength(1);
    const filtered = await call({
      method: 'GET',
      template: '/stores/{storeId}/returns',
      params: { storeId: acme.storeId },
      query: { status: 'open', updated_at_min: '2020-01-01T00:00:00Z', updated_at_max: '2999-01-01T00:00:00Z', provider_order_name: 'SYNC-1001', shopify_order_name: 'SYNC-1001' },
    });
    expect(filtered.body.returns).toHaveLength(2);
  });

  it('comments: POST {message} and {image}, then GET them', async () => {
    const message = await call({ method: 'POST', template: '/returns/{returnId}/comments', params: { returnId }, allow: ['commentReadShape'], body: { comment: { message: 'Label sent' } } });
    expect(message.status).toBe(201);
    const image = await call({
      method: 'POST',
      template: '/returns/{returnId}/comments',
      params: { returnId },
      allow: ['commentReadShape'],
      body: { comment: { image: Buffer.from('a picture of the parcel').toString('base64') } },
    });
    expect(image.status).toBe(201);
    const list = await call({ method: 'GET', template: '/returns/{returnId}/comments', params: { returnId }, allow: ['commentReadShape'] });
    expect(list.body.comments.map((c: Json) => Object.keys(c).sort())).toEqual([
      ['createdAt', 'id', 'message'],
      ['createdAt', 'id', 'image', 'message'],
    ]);
    const read = await call({ method: 'GET', template: '/returns/{returnId}', params: { returnId } });
    expect(read.body.return.notes.at(-1)).toEqual({ message: '', image: Buffer.from('a picture of the parcel').toString('base64') });
  });

  it('GET /returns/{returnId}/status, PUT it, then POST /returns/{returnId}/process completes the return', async () => {
    expect((await call({ method: 'GET', template: '/returns/{returnId}/status', params: { returnId } })).body).toEqual({ status: 'open' });
    expect((await call({ method: 'PUT', template: '/returns/{returnId}/status', params: { returnId }, body: { status: 'flagged' } })).status).toBe(204);
    expect((await call({ method: 'PUT', template: '/returns/{returnId}/status', params: { returnId }, body: { status: 'open' } })).status).toBe(204);
    const processed = await call({ method: 'POST', template: '/returns/{returnId}/process', params: { returnId }, body: { products: [{ _id: itemId, processInput: { restock: true } }], customerNotes: 'Thanks' } });
    expect(processed.status).toBe(200);
    await eventually(async () => (await call({ method: 'GET', template: '/returns/{returnId}/status', params: { returnId } })).body.status === 'complete', 'the queued completion');
    const read = await call({ method: 'GET', template: '/returns/{returnId}', params: { returnId } });
    expect(read.body.return.items.map((i: Json) => i.outcome)).toEqual(['refund', 'store_credit']);
    // A completed return cannot be processed again: a problem (the schema's 400/default are problem+json).
    const again = await call({ method: 'POST', template: '/returns/{returnId}/process', params: { returnId }, body: { products: [] } });
    expect(again.status).toBe(409);
  });

  it('inbound shipments: list and detail with the detail fields', async () => {
    const list = await call({ method: 'GET', template: '/stores/{storeId}/inbound-shipments', params: { storeId: acme.storeId }, query: { status: 'PARTIALLY_RECEIVED', location_id: locationId, created_at_min: '2020-01-01T00:00:00Z' }, headers: { 'X-Page-Size': '5' } });
    expect(list.body.inbound_shipments).toHaveLength(1);
    expect(list.body.inbound_shipments[0].freight_cost).toEqual({ amount: '0.00', currency: 'USD' });
    const one = await call({ method: 'GET', template: '/stores/{storeId}/inbound-shipments/{inboundShipmentId}', params: { storeId: acme.storeId, inboundShipmentId: shipmentId } });
    expect(one.body.inbound_shipment).toMatchObject({ damaged_count: 1, missing_count: 1, purchase_orders: [], transfer_orders: [], files: [], custom_volume_cubic_meters: null });
    expect(one.body.inbound_shipment.items[0]).toMatchObject({ discrepancy: 4, product: { upc: '012345678905' } });
    const absent = await call({ method: 'GET', template: '/stores/{storeId}/inbound-shipments/{inboundShipmentId}', params: { storeId: acme.storeId, inboundShipmentId: 'inb_missing' } });
    expect(absent.status).toBe(404);
  });

  it('inventory items: list and detail, with lot_number and expiration_date', async () => {
    const list = await call({ method: 'GET', template: '/stores/{storeId}/inventory-items', params: { storeId: acme.storeId }, query: { location_id: locationId, kind: 'PRODUCT' } });
    const lot = list.body.inventory_items.find((i: Json) => i.lot_number === 'LOT-7');
    expect(lot).toMatchObject({ expiration_date: '2027-06-30', quantity: 4 });
    const one = await call({ method: 'GET', template: '/stores/{storeId}/inventory-items/{inventoryItemId}', params: { storeId: acme.storeId, inventoryItemId: lot.id } });
    expect(one.body.inventory_item.id).toBe(lot.id);
  });

  it('inventory levels: list with every filter and detail', async () => {
    const list = await call({
      method: 'GET',
      template: '/stores/{storeId}/inventory-levels',
      params: { storeId: acme.storeId },
      query: { location_id: locationId, product_id: productId, sku: 'TEE-BLK-M', updated_at_min: '2020-01-01T00:00:00Z', updated_at_max: '2999-01-01T00:00:00Z' },
    });
    // 6 units received in good shape and 4 of a lot, every kind and lot together (restocked returns go to the Returns location).
    expect(list.body.inventory_levels).toHaveLength(1);
    const level = list.body.inventory_levels[0];
    expect(level).toMatchObject({ product: { id: productId, sku: 'TEE-BLK-M', title: 'Tee' }, location: { id: locationId, name: 'Main warehouse' }, committed: 0, reserved: 0 });
    expect(level).toMatchObject({ quantity: 10, available: 10, total_available: 10 });
    const one = await call({ method: 'GET', template: '/stores/{storeId}/inventory-levels/{inventoryLevelId}', params: { storeId: acme.storeId, inventoryLevelId: level.id } });
    expect(one.body.inventory_level).toMatchObject({ id: level.id, external_ids: null, product: { upc: '012345678905' } });
    const absent = await call({ method: 'GET', template: '/stores/{storeId}/inventory-levels/{inventoryLevelId}', params: { storeId: acme.storeId, inventoryLevelId: 'ivl_missing' } });
    expect(absent.status).toBe(404);
  });

  it('custom events: one and bulk', async () => {
    const customer = { email: 'ada@example.com', firstName: 'Ada' };
    const one = await call({ method: 'POST', template: '/stores/{storeId}/events', params: { storeId: acme.storeId }, body: { eventName: 'viewed_product', customer, data: { sku: 'TEE-BLK-M' } } });
    expect(one.status).toBe(202);
    const bulk = await call({
      method: 'POST',
      template: '/stores/{storeId}/events/bulk',
      params: { storeId: acme.storeId },
      allow: ['bulkEventsBody'],
      body: { events: [{ eventName: 'viewed_product', customer }, { eventName: 'added_to_cart', customer }] },
    });
    expect(bulk.status).toBe(202);
    const invalid = await call({ method: 'POST', template: '/stores/{storeId}/events', params: { storeId: acme.storeId }, allow: ['problemErrors'], invalidRequest: true, body: { eventName: 'x', customer: { firstName: 'No identifier' } } });
    expect(invalid.status).toBe(400);
  });

  it('webhooks: create (201), the same externalId again (200), list, read, update, replay, delete', async () => {
    // https to a host the test configuration allows (decisions 10); nothing listens there, which does not matter here.
    const callback = { url: 'https://127.0.0.1:9/conformance', auth: { bearer: { token: 'subscriber-secret-1' } } };
    const created = await call({ method: 'POST', template: '/stores/{storeId}/webhooks', params: { storeId: acme.storeId }, allow: ['webhookReadTypo'], body: { webhook: { callback, topic: 'return', externalId: 'conformance-1' } } });
    expect(created.status).toBe(201);
    const webhookId = created.body.webhook.id as string;
    const again = await call({ method: 'POST', template: '/stores/{storeId}/webhooks', params: { storeId: acme.storeId }, allow: ['webhookReadTypo'], body: { webhook: { callback, topic: 'return', externalId: 'conformance-1' } } });
    expect(again.status).toBe(200);
    expect(again.body.webhook.id).toBe(webhookId);
    const list = await call({ method: 'GET', template: '/stores/{storeId}/webhooks', params: { storeId: acme.storeId }, allow: ['webhookReadTypo'] });
    expect(list.body.webhooks.map((w: Json) => w.id)).toEqual([webhookId]);
    const one = await call({ method: 'GET', template: '/webhooks/{webhookId}', params: { webhookId }, allow: ['webhookReadTypo'] });
    expect(one.body.webhook.callback.auth.bearer.token).not.toBe('subscriber-secret-1');
    const updated = await call({ method: 'PUT', template: '/webhooks/{webhookId}', params: { webhookId }, body: { webhook: { callback: { url: 'https://127.0.0.1:9/conformance-2', auth: null } } } });
    expect(updated.status).toBe(204);
    const replayed = await call({ method: 'POST', template: '/webhooks/{webhookId}/replay', params: { webhookId }, body: { start: new Date(Date.now() - 3_600_000).toISOString() } });
    expect(replayed.status).toBe(202);
    const deleted = await call({ method: 'DELETE', template: '/webhooks/{webhookId}', params: { webhookId } });
    expect(deleted.status).toBe(204);
    const gone = await call({ method: 'GET', template: '/webhooks/{webhookId}', params: { webhookId }, allow: ['problemErrors'] });
    expect(gone.status).toBe(404);
  });

  describe('orders and fulfillments (the orders API)', () => {
    let apiOrderId: string;

    it('POST /stores/{storeId}/orders creates an order (200 {orderId, externalOrderId}); the same orderId again is 409', async () => {
      const created = await call({ method: 'POST', template: '/stores/{storeId}/orders', params: { storeId: acme.storeId }, body: ordersApiBody('API-1001') });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ orderId: expect.stringMatching(/^ord_/), externalOrderId: 'API-1001' });
      apiOrderId = created.body.orderId;
      const again = await call({ method: 'POST', template: '/stores/{storeId}/orders', params: { storeId: acme.storeId }, allow: ['problemErrors'], body: ordersApiBody('API-1001') });
      expect(again.status).toBe(409);
      const invalid = await call({
        method: 'POST',
        template: '/stores/{storeId}/orders',
        params: { storeId: acme.storeId },
        allow: ['problemErrors'],
        invalidRequest: true,
        body: { ...ordersApiBody('API-BAD'), lineItems: [] },
      });
      expect(invalid.status).toBe(400);
    });

    it('GET /stores/{storeId}/orders/{orderId} reads the order as created, by external id, service id or name', async () => {
      const byExternal = await call({ method: 'GET', template: '/stores/{storeId}/orders/{orderId}', params: { storeId: acme.storeId, orderId: 'API-1001' } });
      expect(byExternal.status).toBe(200);
      const sent = ordersApiBody('API-1001');
      // Read back as sent; a line's discount not stated reads 0 (the service keeps amounts, not their absence).
      sent.lineItems[1].discount = 0;
      expect(byExternal.body).toEqual({ ...sent, fulfillments: [] });
      const byId = await call({ method: 'GET', template: '/stores/{storeId}/orders/{orderId}', params: { storeId: acme.storeId, orderId: apiOrderId } });
      expect(byId.body).toEqual(byExternal.body);
      // Orders of the custom orders endpoint read the same way (the order-sync body's order, by its name).
      const synced = await call({ method: 'GET', template: '/stores/{storeId}/orders/{orderId}', params: { storeId: acme.storeId, orderId: 'SYNC-1001' } });
      expect(synced.body.lineItems.map((l: Json) => l.id)).toEqual(['L-1', 'L-2']);
      const absent = await call({ method: 'GET', template: '/stores/{storeId}/orders/{orderId}', params: { storeId: acme.storeId, orderId: 'NOPE' }, allow: ['problemErrors'] });
      expect(absent.status).toBe(404);
    });

    it('fulfillments: created with tracking and with a dummy tracker, then moved by shipment-status updates and events', async () => {
      const template = '/stores/{storeId}/orders/{orderId}/fulfillments';
      const first = await call({
        method: 'POST',
        template,
        params: { storeId: acme.storeId, orderId: 'API-1001' },
        body: { fulfillmentId: 'FUL-1', lineItems: [{ id: 'A-1', quantity: 1 }], tracking: { carrier: 'UPS', code: '1Z-API-1' } },
      });
      expect(first.body).toMatchObject({ success: true, fulfillment: { id: 'FUL-1', status: 'pre_transit', trackingCompany: 'UPS', trackingNumber: '1Z-API-1', trackingHistory: [] } });
      const dummy = await call({
        method: 'POST',
        template,
        params: { storeId: acme.storeId, orderId: apiOrderId },
        body: {
          lineItems: [{ id: 'A-2', quantity: 1 }],
          useDummyTracking: true,
          initialTracking: { status: 'in_transit', estimatedDeliveryDate: '2026-11-09T12:00:00-05:00', message: 'Picked up', datetime: '2026-11-05T10:00:00Z', location: { city: 'Memphis', state: 'TN', country: 'US', postalCode: '38118' } },
        },
      });
      expect(dummy.body.fulfillment).toMatchObject({ status: 'in_transit', estimatedDeliveryDate: '2026-11-09', trackingHistory: [{ message: 'Picked up', status: 'in_transit' }] });
      const tooMany = await call({ method: 'POST', template, params: { storeId: acme.storeId, orderId: 'API-1001' }, allow: ['problemErrors'], body: { lineItems: [{ id: 'A-2', quantity: 5 }] } });
      expect(tooMany.status).toBe(400);

      const status = '/stores/{storeId}/orders/{orderId}/fulfillments/{fulfillmentId}/shipment-status';
      const params = { storeId: acme.storeId, orderId: 'API-1001', fulfillmentId: 'FUL-1' };
      const moving = await call({ method: 'POST', template: status, params, body: { status: 'in_transit', message: 'Departed facility', datetime: '2026-11-06T08:00:00Z' } });
      expect(moving.body.fulfillment.status).toBe('in_transit');
      const delayed = await call({ method: 'POST', template: status, params, body: { status: 'delayed', estimatedDeliveryDate: '2026-11-12T00:00:00Z', datetime: '2026-11-08T08:00:00Z' } });
      expect(delayed.body.fulfillment).toMatchObject({ status: 'in_transit', estimatedDeliveryDate: '2026-11-12' });
      const delivered = await call({ method: 'POST', template: status, params, body: { status: 'delivered', datetime: '2026-11-12T15:00:00Z', location: { city: 'Springfield', state: 'IL', country: 'US', postalCode: null } } });
      expect(delivered.body.fulfillment).toMatchObject({ status: 'delivered', deliveredAt: '2026-11-12T15:00:00.000Z' });
      expect(delivered.body.fulfillment.trackingHistory.map((e: Json) => e.status)).toEqual(['in_transit', 'delayed', 'delivered']);
      const unknown = await call({ method: 'POST', template: status, params: { ...params, fulfillmentId: 'FUL-NOPE' }, allow: ['problemErrors'], body: { status: 'in_transit' } });
      expect(unknown.status).toBe(404);

      const read = await call({ method: 'GET', template: '/stores/{storeId}/orders/{orderId}', params: { storeId: acme.storeId, orderId: 'API-1001' } });
      expect(read.body.fulfillments.map((f: Json) => f.status)).toEqual(['delivered', 'in_transit']);
    });

    it('DELETE /stores/{storeId}/orders/{orderId}: an order without returns goes (200), one with returns stays (409)', async () => {
      await call({ method: 'POST', template: '/stores/{storeId}/orders', params: { storeId: acme.storeId }, body: ordersApiBody('API-GONE') });
      const deleted = await call({ method: 'DELETE', template: '/stores/{storeId}/orders/{orderId}', params: { storeId: acme.storeId, orderId: 'API-GONE' } });
      expect(deleted.body).toEqual({ success: true, orderId: expect.stringMatching(/^ord_/), externalOrderId: 'API-GONE' });
      const gone = await call({ method: 'DELETE', template: '/stores/{storeId}/orders/{orderId}', params: { storeId: acme.storeId, orderId: 'API-GONE' }, allow: ['problemErrors'] });
      expect(gone.status).toBe(404);
      const kept = await call({ method: 'DELETE', template: '/stores/{storeId}/orders/{orderId}', params: { storeId: acme.storeId, orderId: 'SYNC-1001' }, allow: ['problemErrors'] });
      expect(kept.status).toBe(409);
    });
  });

  describe('return tags', () => {
    it('PUT creates and recolours, renames (the returns carrying it show the new name), GET lists, DELETE strips it', async () => {
      const path = (name: string) => ({ storeId: acme.storeId, name });
      const created = await call({ method: 'PUT', template: '/stores/{storeId}/return-tags/{name}', params: path('Damaged'), body: { pillTheme: 'DANGER' } });
      expect(created.body).toEqual({ tag: { name: 'Damaged', kind: 'return', pillTheme: 'DANGER', source: 'merchant', numericId: expect.any(Number) } });
      await gql(app, 'mutation($id: ID!, $tags: [String!]!) { setReturnTags(returnId: $id, tags: $tags) { id } }', { id: returnId, tags: ['Damaged'] }, acme.apiSecret);
      const recoloured = await call({ method: 'PUT', template: '/stores/{storeId}/return-tags/{name}', params: path('Damaged'), body: { pillTheme: 'SOLID_RED' } });
      expect(recoloured.body.tag.numericId).toBe(created.body.tag.numericId);
      const renamed = await call({ method: 'PUT', template: '/stores/{storeId}/return-tags/{name}', params: path('Damaged'), body: { pillTheme: 'SOLID_RED', newName: 'Damaged in transit' } });
      expect(renamed.body.tag).toMatchObject({ name: 'Damaged in transit', pillTheme: 'SOLID_RED' });
      const read = await call({ method: 'GET', template: '/returns/{returnId}', params: { returnId } });
      expect(read.body.return.tags).toEqual([{ name: 'Damaged in transit', source: 'merchant' }]);
      const refused = await call({ method: 'PUT', template: '/stores/{storeId}/return-tags/{name}', params: path('Nope'), body: { pillTheme: 'NORMAL', newName: 'Other' } });
      expect(refused.status).toBe(400);
      const list = await call({ method: 'GET', template: '/stores/{storeId}/return-tags', params: { storeId: acme.storeId } });
      expect(list.body.tags.map((t: Json) => t.name)).toEqual(['Damaged in transit']);
      const deleted = await call({ method: 'DELETE', template: '/stores/{storeId}/return-tags/{name}', params: path('Damaged in transit') });
      expect(deleted.body).toEqual({ success: true });
      expect((await call({ method: 'GET', template: '/returns/{returnId}', params: { returnId } })).body.return.tags).toEqual([]);
    });
  });

  it('POST /stores/{storeId}/returns/bulk imports returns (200, one result per return; the same reference again is the same return)', async () => {
    const body = {
      returns: [
        {
          products: [{ productId, quantity: 1, reason: 'Too small', condition: 'like_new' }],
          customer: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' },
          externalReferenceId: 'RMA-9001',
          trackingNumber: '9400100000000000000000',
          carrier: 'USPS',
          notes: 'From the old platform',
          currency: 'USD',
          shippingAddress: { line1: '1 Navy Way', city: 'Arlington', state: 'VA', postalCode: '22202', country: 'US', name: 'Grace Hopper', phone: '+15550000000' },
        },
        { products: [{ productId: 'prd_unknown', quantity: 1 }] },
      ],
    };
    // The product is known to returns once its `product.upserted` event reached them: until then the import names an unknown product (an error result, nothing made).
    const first = await eventually(async () => {
      const res = await call({ method: 'POST', template: '/stores/{storeId}/returns/bulk', params: { storeId: acme.storeId }, body });
      return res.body.results[0].status === 'created' ? res : undefined;
    }, "the returns subgraph's copy of the product");
    expect(first.body).toMatchObject({ totalCount: 2, processedCount: 1, errorCount: 1, results: [{ status: 'created', index: 0 }, { status: 'error', index: 1 }] });
    const again = await call({ method: 'POST', template: '/stores/{storeId}/returns/bulk', params: { storeId: acme.storeId }, body: { returns: [body.returns[0]] } });
    expect(again.body.results).toEqual([{ status: 'created', index: 0, returnId: first.body.results[0].returnId }]);
    const read = await call({ method: 'GET', template: '/returns/{returnId}', params: { returnId: first.body.results[0].returnId } });
    expect(read.body.return).toMatchObject({ status: 'open', externalOrderIds: [], items: [{ grade: 'like_new', sku: 'TEE-BLK-M', upc: '012345678905' }] });
    const imported = await gql<{ return: { imported: boolean; externalReferenceId: string } }>(app, 'query($id: ID!) { return(id: $id) { imported externalReferenceId } }', { id: read.body.return.id });
    expect(imported.return).toEqual({ imported: true, externalReferenceId: 'RMA-9001' });
    const invalid = await call({ method: 'POST', template: '/stores/{storeId}/returns/bulk', params: { storeId: acme.storeId }, allow: ['problemErrors'], invalidRequest: true, body: { returns: [] } });
    expect(invalid.status).toBe(400);
  });

  it('POST /stores/{storeId}/storefront/events takes a web-pixel event (204)', async () => {
    const res = await call({
      method: 'POST',
      template: '/stores/{storeId}/storefront/events',
      params: { storeId: acme.storeId },
      body: {
        eventName: 'product_viewed',
        eventId: 'sh-evt-1',
        timestamp: '2026-11-20T10:00:00Z',
        source: 'AIMERCE',
        anonymousId: 'anon-1',
        customerEmail: 'ada@example.com',
        urlWithParams: 'https://shop.example.com/products/tee?variant=1',
        productVariant: { id: 'gid://shopify/ProductVariant/1', title: 'Black / M', sku: 'TEE-BLK-M', price: { amount: 25, currencyCode: 'USD' }, product: { id: 'gid://shopify/Product/1', title: 'Tee' } },
      },
    });
    expect(res.status).toBe(204);
    const invalid = await call({ method: 'POST', template: '/stores/{storeId}/storefront/events', params: { storeId: acme.storeId }, allow: ['problemErrors'], invalidRequest: true, body: { eventName: 'page_viewed', eventId: 'x', source: 'AIMERCE' } });
    expect(invalid.status).toBe(400);
  });

  it('GET and PUT /stores/{storeId}/customers: created (201), updated (200), read by email', async () => {
    const created = await call({
      method: 'PUT',
      template: '/stores/{storeId}/customers',
      params: { storeId: acme.storeId },
      body: {
        email: 'jane@example.com',
        firstName: 'Jane',
        lastName: 'Smith',
        phoneNumber: '+11234567890',
        location: { street1: '123 Main St', city: 'Seattle', state: 'Washington', stateCode: 'WA', postalCode: '98101', country: 'United States', countryCode: 'US', latitude: 47.6062, longitude: -122.3321 },
        customFields: { pricing_plan: 'com.example.yearly', loyalty_points: 1250, vip_member: true, signup_date: '2026-02-24T12:15:00.000Z' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^cus_/), email: 'jane@example.com', created: true });
    const updated = await call({ method: 'PUT', template: '/stores/{storeId}/customers', params: { storeId: acme.storeId }, body: { email: 'JANE@example.com', customFields: { status: 'Cancelled' } } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ id: created.body.id, email: 'jane@example.com', created: false });
    const read = await call({ method: 'GET', template: '/stores/{storeId}/customers', params: { storeId: acme.storeId }, query: { email: 'jane@example.com' } });
    expect(read.body).toMatchObject({ id: created.body.id, firstName: 'Jane', phoneNumber: '+11234567890', customFields: { loyalty_points: 1250, status: 'Cancelled' }, location: { city: 'Seattle' } });
    const absent = await call({ method: 'GET', template: '/stores/{storeId}/customers', params: { storeId: acme.storeId }, query: { email: 'nobody@example.com' } });
    expect(absent.status).toBe(404);
    const invalid = await call({ method: 'PUT', template: '/stores/{storeId}/customers', params: { storeId: acme.storeId }, invalidRequest: true, body: { email: 'jane@example.com', nickname: 'J' } });
    expect(invalid.status).toBe(400);
  });

  it('POST /stores/{storeId}/customer-subscriptions: the schema\'s full example, an older change (false), invalid bodies', async () => {
    const full = await call({
      method: 'POST',
      template: '/stores/{storeId}/customer-subscriptions',
      params: { storeId: acme.storeId },
      body: {
        sms: {
          phoneNumber: '+15550000000',
          subscriptions: {
            marketing: { subscriptionStatus: 'subscribed', triggerAutomations: true, updatedAt: '2026-01-15T10:30:00Z' },
            transactional: { subscriptionStatus: 'subscribed', updatedAt: '2026-01-15T10:30:00Z' },
          },
        },
        email: { email: 'jane.doe@example.com', subscriptions: { marketing: { subscriptionStatus: 'subscribed', triggerAutomations: true, updatedAt: '2026-01-15T10:30:00Z' } } },
      },
    });
    expect(full.status).toBe(200);
    expect(full.body).toEqual({ success: true, message: 'Customer subscriptions updated successfully', updatedSubscriptions: { sms: { marketing: true, transactional: true }, email: { marketing: true } } });
    const older = await call({
      method: 'POST',
      template: '/stores/{storeId}/customer-subscriptions',
      params: { storeId: acme.storeId },
      body: { email: { email: 'jane.doe@example.com', subscriptions: { marketing: { subscriptionStatus: 'unsubscribed', updatedAt: '2026-01-01T00:00:00Z' } } } },
    });
    expect(older.body.updatedSubscriptions).toEqual({ email: { marketing: false } });
    const emailOnly = await call({ method: 'POST', template: '/stores/{storeId}/customer-subscriptions', params: { storeId: acme.storeId }, body: { email: { email: 'jane.doe@example.com', subscriptions: { marketing: { subscriptionStatus: 'unsubscribed' } } } } });
    expect(emailOnly.body.updatedSubscriptions).toEqual({ email: { marketing: true } });
    const invalid = await call({
      method: 'POST',
      template: '/stores/{storeId}/customer-subscriptions',
      params: { storeId: acme.storeId },
      allow: ['problemErrors'],
      invalidRequest: true,
      body: { sms: { phoneNumber: '+15550000000', subscriptions: { transactional: { subscriptionStatus: 'confirmed' } } } },
    });
    expect(invalid.status).toBe(400);
  });

  it('called every operation the schema and the service share, with no violation left', () => {
    const service = JSON.parse(readFileSync(new URL('../docs/openapi/v2.2.json', import.meta.url), 'utf8')) as Json;
    const shape = (template: string) => template.replace(/\{\w+\}/g, '{}');
    const served = new Set(Object.entries(service.paths as Json).flatMap(([t, item]) => Object.keys(item as Json).filter((m) => m !== 'parameters').map((m) => `${m.toUpperCase()} ${shape(t)}`)));
    const shared = Object.entries(schema.paths as Json).flatMap(([t, item]) =>
      Object.keys(item as Json)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m) && served.has(`${m.toUpperCase()} ${shape(t)}`))
        .map((m) => `${m.toUpperCase()} ${t}`),
    );
    expect(shared.length).toBeGreaterThanOrEqual(35);
    expect(shared.filter((op) => !called.has(op))).toEqual([]);
    expect(violations).toEqual([]);
  });
});

/** An order as the real platform's orders API takes it. */
function ordersApiBody(orderId: string): Json {
  return {
    orderId,
    createdAt: '2026-11-03T09:30:00.000Z',
    lineItems: [
      { id: 'A-1', productId: 'P-1', variantId: 'V-1', title: 'Tee', sku: 'TEE-BLK-M', quantity: 1, price: 25, imageUrl: 'https://cdn.example.com/tee.png', discount: 2.5 },
      { id: 'A-2', productId: 'P-2', variantId: null, title: 'Cap', sku: null, quantity: 2, price: 10, imageUrl: null, discount: null },
    ],
    customer: { id: 'C-77', email: 'ada@example.com', phoneNumber: '+14155550100', name: 'Ada Lovelace', firstName: 'Ada', lastName: 'Lovelace' },
    shipping: { method: 'Ground', cost: 5, address: { address1: '1 Main St', address2: null, city: 'Springfield', province: 'IL', country: 'US', postalCode: '62701' } },
    totalPrice: 50.5,
    subtotalPrice: 42.5,
    totalTax: 3,
    totalDiscount: 2.5,
    billingAddress: { address1: '1 Main St', address2: 'Apt 2', city: 'Springfield', province: 'IL', country: 'US', postalCode: '62701' },
    tags: ['vip'],
    currencyCode: 'USD',
    locationId: null,
  };
}

/** An order in the real platform's order-sync shape (its custom integration's body). */
function orderSyncBody(id: string): Json {
  const money = (amount: string) => ({ presentmentMoney: { amount, currencyCode: 'USD' }, shopMoney: { amount, currencyCode: 'USD' } });
  return {
    id,
    type: 'order',
    createdAt: '2026-11-01T10:00:00Z',
    updatedAt: '2026-11-01T10:05:00Z',
    presentmentCurrency: 'USD',
    shopCurrency: 'USD',
    customer: { email: 'ada@example.com', phone: '+14155550100', firstName: 'Ada', lastName: 'Lovelace' },
    lineItems: [
      {
        id: 'L-1',
        quantity: 2,
        priceSet: money('25.00'),
        title: 'Tee',
        variantTitle: 'Black / M',
        productId: 'P-1',
        variantId: 'V-1',
        sku: 'TEE-BLK-M',
        weight: { value: 300, unit: 'g' },
        taxLines: [{ priceSet: money('4.00'), rate: '0.08', title: 'State tax' }],
        discounts: [{ amountSet: money('2.00'), discountId: 'D-1' }],
      },
      { id: 'L-2', quantity: 1, priceSet: money('10.00'), title: 'Cap', productId: 'P-2', sku: 'CAP' },
    ],
    orderDiscounts: [],
    shippingLines: [{ id: 'S-1', title: 'Ground', priceSet: money('5.00') }],
    fulfillments: [],
    shippingAddress: { address1: '1 Main St', city: 'Springfield', provinceCode: 'IL', zip: '62701', countryCode: 'US' },
  };
}
