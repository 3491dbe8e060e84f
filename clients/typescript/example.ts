import { fileURLToPath } from 'node:url';
import { createReturnsClient, expectOk, pages } from './client.ts';

/**
 * The typed client at work: push an order, return one of its lines, then
 * list the store's returns page by page. Run it against a service:
 *
 *   BASE_URL=http://localhost:4000 API_SECRET=sk_... STORE_ID=sto_... npm run --silent client:example
 */
export async function runExample(options: { baseUrl: string; apiSecret: string; storeId: string; log?: (line: string) => void }): Promise<{ returnId: string; listed: number; pages: number }> {
  const log = options.log ?? console.log;
  const api = createReturnsClient(options);
  const storeId = options.storeId;
  const orderId = `example-${Date.now()}`;

  const pushed = expectOk(
    await api.POST('/stores/{storeId}/custom/orders', {
      params: { path: { storeId } },
      body: {
        id: orderId,
        name: `#${orderId.slice(-6)}`,
        currency: 'USD',
        customer: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
        lineItems: [
          { id: 'li-1', sku: 'TEE-M', title: 'Tee', variantTitle: 'M', quantity: 2, price: '25.00', tax: '4.00', discount: '2.00' },
          { id: 'li-2', sku: 'CAP', title: 'Cap', quantity: 1, price: '12.00' },
        ],
        shippingCost: '5.00',
      },
    }),
  );
  // The contract's body answers {order} (the order-sync body would answer {message, orderId, redoId}).
  if (!('order' in pushed)) throw new Error('expected the order read shape');
  const { order } = pushed;
  log(`order ${order.id} (${order.name}): total ${order.total.amount} ${order.total.currency}`);

  const created = expectOk(
    await api.POST('/stores/{storeId}/returns', {
      params: { path: { storeId }, header: { 'Idempotency-Key': `${orderId}-1` } },
      body: { data: { provider: 'custom', externalOrderId: orderId, items: [{ lineItemId: 'li-1', quantity: 1, reason: 'Too small' }] } },
    }),
  );
  log(`return ${created.return.id}: ${created.return.status}, refund ${created.return.totals.refund.amount.amount} ${created.return.totals.refund.amount.currency}`);

  let listed = 0;
  let count = 0;
  for await (const page of pages((cursor) =>
    api.GET('/stores/{storeId}/returns', { params: { path: { storeId }, query: { 'page-size': 2, ...(cursor ? { 'page-continue': cursor } : {}) } } }),
  )) {
    count++;
    listed += page.returns.length;
    log(`page ${count}: ${page.returns.map((r) => `${r.id} ${r.status}`).join(', ') || '(empty)'}`);
  }
  log(`${listed} returns in ${count} pages`);
  return { returnId: created.return.id, listed, pages: count };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { BASE_URL = 'http://localhost:4000', API_SECRET, STORE_ID } = process.env;
  if (!API_SECRET || !STORE_ID) {
    console.error('Set API_SECRET and STORE_ID (the demo account printed by npm start), and BASE_URL if not http://localhost:4000.');
    process.exit(2);
  }
  await runExample({ baseUrl: BASE_URL, apiSecret: API_SECRET, storeId: STORE_ID });
}
