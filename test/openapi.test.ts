import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../platform/project-root.js';
import { API_DOCUMENTS, DOCUMENTS_DIR } from '../rest-facade/documents.js';
import { documentText } from '../rest-facade/openapi.js';
import { useTestApp } from './support/app.js';
import { contractViolations } from './support/contract.js';

const committed = (file: string) => readFileSync(join(projectRoot(), DOCUMENTS_DIR, file), 'utf8');

describe('OpenAPI documents', () => {
  it('match the committed copies under docs/openapi (run `npm run openapi` after changing a route or a schema)', () => {
    for (const doc of API_DOCUMENTS) expect(committed(doc.file), `${DOCUMENTS_DIR}/${doc.file} is stale`).toBe(documentText(doc.build()));
  });

  it('document every operation with its scope, its successes and its problem types', () => {
    const doc = JSON.parse(committed('v2.2.json'));
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2.2.1');
    const create = doc.paths['/stores/{storeId}/returns'].post;
    expect(create.security).toEqual([{ apiSecret: ['returns_write'] }]);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '401', '403', '404', '409', '413', '415', '422', '429', '500']));
    expect(create.responses['409'].content['application/problem+json'].schema.allOf[1].properties.type.enum).toEqual(
      expect.arrayContaining(['/problems/quantity-not-returnable', '/problems/idempotency-key-in-progress']),
    );
    expect(create.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
    const list = doc.paths['/stores/{storeId}/inventory-items'].get;
    expect(list.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['query:page-size', 'query:page-continue', 'header:X-Page-Size', 'header:X-Page-Continue', 'query:kind']),
    );
    expect(list.responses['200'].headers['X-Page-Next']).toBeDefined();
    expect(doc.components.securitySchemes.apiSecret).toMatchObject({ type: 'http', scheme: 'bearer' });
    // Internal validation messages stay internal; the service's own keywords are published as extensions.
    expect(JSON.stringify(doc)).not.toContain('"detail":"must');
    expect(JSON.stringify(doc)).toContain('"x-unique-items-by"');
  });

  it('describe each webhook delivery: its signed headers and a body that carries the REST documents (components, not copies)', () => {
    const doc = JSON.parse(committed('v2.2.json'));
    const body = (name: string) => doc.webhooks[name].post.requestBody.content['application/json'].schema;
    expect(Object.keys(doc.webhooks)).toEqual(expect.arrayContaining(['return.created', 'return.updated', 'return.backfill', 'inventory_item.updated', 'inbound_shipment.created', 'custom_event.created']));
    expect(doc.webhooks['custom_event.backfill']).toBeUndefined();
    expect(body('return.updated').properties).toMatchObject({ type: { const: 'updated' }, return: { $ref: '#/components/schemas/Return' }, order: { $ref: '#/components/schemas/Order' } });
    expect(body('inventory_item.backfill').properties.inventory_item).toEqual({ $ref: '#/components/schemas/InventoryItem' });
    expect(body('inbound_shipment.created').properties.inbound_shipment).toEqual({ $ref: '#/components/schemas/InboundShipment' });
    expect(body('custom_event.created').properties).toMatchObject({ event: { $ref: '#/components/schemas/CustomEvent' }, customer: { $ref: '#/components/schemas/Customer' } });
    const post = doc.webhooks['return.created'].post;
    expect(post.parameters.map((p: { name: string; in: string; required: boolean }) => `${p.in}:${p.name}:${p.required}`)).toEqual(['header:webhook-id:true', 'header:webhook-timestamp:true', 'header:webhook-signature:true']);
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['2XX', '410', '429', 'default']));
  });

  it('document the privacy requests: their scopes, the erasure to poll, the streamed export, the refused event and customer.erased', () => {
    const doc = JSON.parse(committed('v2.2.json'));
    const problemTypes = (op: any, status: string) => op.responses[status].content['application/problem+json'].schema.allOf[1].properties.type.enum;
    const erase = doc.paths['/stores/{storeId}/customers/erasure'].post;
    expect(erase.security).toEqual([{ apiSecret: ['privacy_write'] }]);
    expect(erase.responses['202'].headers.Location).toBeDefined();
    expect(erase.responses['202'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErasureResponse' });
    const status = doc.paths['/stores/{storeId}/customers/erasure/{erasureId}'].get;
    expect(status.security).toEqual([{ apiSecret: ['privacy_read'] }]);
    expect(problemTypes(status, '404')).toContain('/problems/erasure-not-found');
    const exported = doc.paths['/stores/{storeId}/customers/export'].post;
    expect(exported.security).toEqual([{ apiSecret: ['privacy_read'] }]);
    expect(exported.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CustomerExport' });
    expect(Object.keys(doc.components.schemas.CustomerExport.properties)).toEqual(['storeId', 'exportedAt', 'identifiers', 'customer', 'events', 'mentions', 'flowRuns', 'messages', 'orders', 'returns']);
    expect(doc.paths['/stores/{storeId}/data-retention'].get.security).toEqual([{ apiSecret: ['privacy_read'] }]);
    expect(doc.paths['/stores/{storeId}/data-retention'].put.security).toEqual([{ apiSecret: ['privacy_write'] }]);
    expect(problemTypes(doc.paths['/stores/{storeId}/events'].post, '409')).toContain('/problems/customer-erased');
    const erased = doc.webhooks['customer.erased'].post.requestBody.content['application/json'].schema;
    expect(erased.properties).toMatchObject({ type: { const: 'erased' }, erasure: { $ref: '#/components/schemas/Erasure' } });
  });

  it('document the compatibility API in its own terms: the raw key header, Loop\'s bodies, Laravel\'s 422, link pagination', () => {
    const doc = JSON.parse(committed('api-v1.json'));
    expect(doc.servers).toEqual([{ url: '/api/v1' }]);
    expect(doc.components.securitySchemes.compatKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Authorization' });
    // The ten warehouse endpoints of the contract, and Loop's webhook API (decisions 20): /webhooks, /webhooks/{id}.
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/warehouse/'))).toHaveLength(10);
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/warehouse/')).sort()).toEqual(['/webhooks', '/webhooks/{id}']);
    const list = doc.paths['/warehouse/return/list'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['from', 'to', 'filter', 'state', 'paginate', 'pageSize', 'cursor']));
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['200', '401', '422', '429']));
    // Loop ignores unknown parameters, so the document never promises a 400 for them.
    expect(JSON.stringify(list.responses['400'] ?? {})).not.toContain('Unknown query parameter');
    expect(doc.paths['/warehouse/return/{return_id}/process'].post.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/LoopUnauthorized' });
  });
});

describe('the contract check', () => {
  const json = (status: number, body: unknown, type = 'application/json', headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': type, ...headers } });

  it('accepts a documented problem and refuses an undocumented status, a drifted body and an undeclared header', async () => {
    const problem = { type: '/problems/return-not-found', title: 'Return not found', status: 404, detail: 'x', instance: '/v2.2/returns/ret_1#req_1' };
    expect(await contractViolations('GET', 'http://h/v2.2/returns/ret_1', json(404, problem, 'application/problem+json'))).toEqual([]);
    expect(await contractViolations('GET', 'http://h/v2.2/returns/ret_1', json(418, problem, 'application/problem+json'))).toEqual([
      expect.stringContaining('a status the document does not declare'),
    ]);
    const undeclaredType = { ...problem, type: '/problems/order-not-found' };
    expect(await contractViolations('GET', 'http://h/v2.2/returns/ret_1', json(404, undeclaredType, 'application/problem+json'))).not.toEqual([]);
    expect(await contractViolations('GET', 'http://h/v2.2/returns/ret_1', json(200, { return: { id: 'ret_1' }, order: {} }))).not.toEqual([]);
    expect(await contractViolations('GET', 'http://h/v2.2/stores/sto_1/returns', json(200, { returns: [], orders: [], extra: 1 }))).not.toEqual([]);
    expect(await contractViolations('GET', 'http://h/v2.2/returns/ret_1/comments', json(200, { comments: [] }, 'application/json', { 'X-Page-Next': 'c' }))).toEqual([
      expect.stringContaining('x-page-next header the document does not declare'),
    ]);
    expect(await contractViolations('GET', 'http://h/v2.2/stores/sto_1/returns', json(200, { returns: [], orders: [] }, 'application/json', { 'X-Page-Next': 'c' }))).toEqual([]);
  });

  it('holds compatibility answers to their document too', async () => {
    expect(await contractViolations('GET', 'http://h/api/v1/warehouse/return/details?return_id=1', json(200, { error: { message: 'No return found with this ID.' } }))).toEqual([]);
    expect(await contractViolations('GET', 'http://h/api/v1/warehouse/return/details?return_id=1', json(200, { id: 'one' }))).not.toEqual([]);
    expect(await contractViolations('POST', 'http://h/api/v1/warehouse/return/1/flag', json(200, true))).toEqual([]);
    expect(await contractViolations('GET', 'http://h/api/v1/warehouse/return/1/notes', json(422, false))).toEqual([]);
    expect(await contractViolations('GET', 'http://h/api/v1/warehouse/return/list', json(422, { message: 'x', errors: { from: ['x'] } }))).toEqual([]);
  });

  it('leaves alone what no operation answers (unknown paths, other methods)', async () => {
    expect(await contractViolations('GET', 'http://h/v2.2/nowhere', json(404, {}))).toEqual([]);
    expect(await contractViolations('DELETE', 'http://h/v2.2/returns/ret_1', json(405, {}))).toEqual([]);
  });
});

describe('served documents', () => {
  const app = useTestApp();

  it('serves each committed document at its address, without credentials', async () => {
    for (const doc of API_DOCUMENTS) {
      const res = await app.request(doc.servedAt);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(JSON.parse(committed(doc.file)));
    }
  });
});
