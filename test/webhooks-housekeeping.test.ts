import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../webhooks/delivery.service.js';
import { WEBHOOK_RETENTION_DAYS, webhooksModule } from '../webhooks/index.js';
import { webhookPrivacy } from '../webhooks/webhook.privacy.js';
import { RETENTION_DEFAULTS } from '../platform/privacy/retention.js';
import { createOrm, type Orm } from '../platform/db/orm.js';
import { createLogger } from '../platform/observability/logger.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';
import { call, createWebhook } from './support/webhooks.js';

/**
 * The sweep: events of a subscription a 410 disabled are kept 3 days, then discarded (and logged
 * so); the retention job removes the log and finished events after the retention period. Time is
 * moved in the rows, the sweep and the retention are the service's own.
 */
describe('webhook housekeeping', () => {
  const app = useTestApp({ WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_TIMEOUT_MS: '1000' });
  const acme = useTestAccount(app, 'Sweep');
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    // The webhooks schema's own module, as a sweeping process opens it.
    orm = await createOrm(app.databaseUrl, webhooksModule.db!, 2, createLogger('silent'));
  });
  afterAll(async () => {
    await orm?.close();
    await receiver?.close();
  });

  let orm: Orm;
  const webhooksOrm = () => orm;

  it('discards what waited 3 days behind a 410, logs it, and deletes the log past the retention', async () => {
    receiver.answer(() => ({ status: 410 }));
    const created = await createWebhook(app, acme, { callback: { url: receiver.url, auth: null }, topic: 'return' });
    const id = created.body.webhook.id as string;
    const order = orderBody({}, [{ id: 'l1', quantity: 5, price: '1.00' }]);
    await pushOrder(app, acme, order);
    await postReturn(app, acme, returnBody(order.id as string, [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]));
    await eventually(async () => (await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${id}`)).body.webhook.disabled, 'the 410 to disable it');

    // Two days later nothing changes; past three days the waiting event is discarded.
    await query(app.databaseUrl, `update webhooks.subscription set disabled_at = now() - interval '2 days' where id = $1`, [id]);
    await query(app.databaseUrl, `update webhooks.message set created_at = now() - interval '2 days' where subscription_id = $1`, [id]);
    await sweep(webhooksOrm());
    expect(await query(app.databaseUrl, `select state from webhooks.message where subscription_id = $1`, [id])).toEqual([{ state: 'queued' }]);
    await query(app.databaseUrl, `update webhooks.subscription set disabled_at = now() - interval '3 days 1 minute' where id = $1`, [id]);
    await query(app.databaseUrl, `update webhooks.message set created_at = now() - interval '3 days 1 minute' where subscription_id = $1`, [id]);
    await sweep(webhooksOrm());
    expect(await query(app.databaseUrl, `select state from webhooks.message where subscription_id = $1`, [id])).toEqual([{ state: 'discarded' }]);
    const log = (await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${id}/deliveries`)).body.deliveries;
    expect(log.map((d: any) => [d.attempt, d.status, d.responseStatus])).toEqual([
      [2, 'discarded', null],
      [1, 'failed', 410],
    ]);
    expect(log[0].error).toMatch(/disabled \(410\) for 3 days/);

    // Past the retention, the log and the finished event are gone.
    await query(app.databaseUrl, `update webhooks.attempt set created_at = now() - make_interval(days => $2 + 1) where subscription_id = $1`, [id, WEBHOOK_RETENTION_DAYS]);
    await query(app.databaseUrl, `update webhooks.message set finished_at = now() - make_interval(days => $2 + 1) where subscription_id = $1`, [id, WEBHOOK_RETENTION_DAYS]);
    await webhookPrivacy(webhooksOrm()).retention!.enforce({ defaults: RETENTION_DEFAULTS, stores: [] });
    expect((await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${id}/deliveries`)).body.deliveries).toEqual([]);
    expect(await query(app.databaseUrl, `select 1 from webhooks.message where subscription_id = $1`, [id])).toEqual([]);
  });
});
