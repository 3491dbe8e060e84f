import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/observability/logger.js';
import { publish } from '../platform/jobs/outbox.js';
import { ReturnUpdated, type ReturnEventData } from '../subgraphs/returns/public.js';
import { startService, type RunningService } from '../server/main.js';
import { testEnv } from './support/app.js';
import { consumedEvents, createTestDatabase, query } from './support/database.js';
import { freePort } from './support/processes.js';
import { eventually } from './support/eventually.js';

/**
 * A completion committed while no worker runs is restocked when a worker
 * starts later on the same database, and a later process that sees the
 * completion again adds nothing.
 */
describe('restock across process restarts', () => {
  const running: RunningService[] = [];
  afterAll(async () => {
    for (const service of running.reverse()) await service.stop();
  });

  it('restocks a completion published before any worker ran, once', async () => {
    const databaseUrl = await createTestDatabase();
    const config = loadConfig({
      ...testEnv(databaseUrl),
      DB_POOL_SIZE: '3',
      PORT: String(await freePort()),
      INVENTORY_SUBGRAPH_PORT: String(await freePort()),
    });
    const logger = createLogger('silent');
    const storeId = 'sto_restart';

    // A process without workers: it migrates, registers the outbox consumers and commits the completion.
    const publisher = await startService(config, logger, 'subgraph', 'inventory');
    await query(databaseUrl, `insert into inventory.location (id, store_id, name) values ('loc_dock', $1, 'Dock')`, [storeId]);
    await query(databaseUrl, `insert into inventory.product (id, store_id, sku, title) values ('prd_hat', $1, 'HAT', 'Hat')`, [storeId]);
    // The part of a completion restock reads (the rest of the return document does not matter here).
    const data = { return: { id: 'ret_restart', status: 'complete' }, previousStatus: 'open', destinationLocationId: 'loc_dock', items: [{ id: 'rti_restart', sku: 'HAT', title: 'Hat', quantity: 3 }] } as unknown as ReturnEventData;
    const completion = (runtime: RunningService['runtime']) => runtime.platformOrm.em.fork().transactional((em) => publish(em, ReturnUpdated, [{ storeId, subjectId: 'ret_restart', data }]));
    await completion(publisher.runtime);
    await publisher.stop();

    const stock = () => query<{ quantity: number }>(databaseUrl, `select quantity from inventory.inventory_item where store_id = $1 and sku = 'HAT' and kind = 'RETURN'`, [storeId]);
    expect(await stock()).toEqual([]);

    const worker = await startService(config, logger, 'worker');
    running.push(worker);
    await eventually(async () => (await stock()).length > 0, 'the restock');
    expect(await stock()).toEqual([{ quantity: 3 }]);

    // Delivered again after a restart of the worker: the ledger keeps it at once.
    await worker.stop();
    running.pop();
    const second = await startService(config, logger, 'worker');
    running.push(second);
    await completion(second.runtime);
    const read = await consumedEvents<{ id: string }>(databaseUrl, 'inventory-restock', `e.subject_id = 'ret_restart'`, [], 2);
    expect(new Set(read.map((e) => e.id)).size).toBe(2);
    expect(await stock()).toEqual([{ quantity: 3 }]);
    expect(await query(databaseUrl, 'select return_item_id from inventory.restock_ledger')).toEqual([{ return_item_id: 'rti_restart' }]);
  });
});
