import type { EntityManager } from '@mikro-orm/postgresql';
import { outboxContract, publish } from '../../platform/jobs/outbox.js';
import { Int, OneOf, OrNull, Strict, Type, type Static } from '../../platform/validation/index.js';
import { returnRecord, type ReturnRecord } from './compat.json.js';
import { restOrder, RestOrderSchema } from './order.json.js';
import { restReturn, RestReturnSchema } from './return.json.js';
import { RETURN_STATUSES, type ReturnStatus } from './return.rules.js';
import type { ReturnReads } from './return.rows.js';
import { ReturnViews } from './return.view.js';
import type { StoreSettingsService } from './store-settings.service.js';

/**
 * The payload of the events the returns subgraph publishes (version 1), for
 * restock, webhooks and flows. `return` and `order` are the REST documents
 * (their schemas, not a copy); `items` carries what consumers need of each
 * active item that the REST document does not show (the line's title).
 */
const ReturnEventDataSchema = Strict({
  return: RestReturnSchema,
  order: RestOrderSchema,
  previousStatus: OrNull(OneOf(RETURN_STATUSES, { description: 'The status before the change (`null` on creation).' })),
  destinationLocationId: OrNull(Type.String({ description: "The store's return location when the change committed (restock goes there), or null." })),
  record: Type.Unsafe<ReturnRecord>(
    Type.Object({}, { additionalProperties: true, description: "The return's flat record (compat.json.ts), from which other platforms' formats are made (Loop's webhooks)." }),
  ),
  items: Type.Array(
    Strict({
      id: Type.String(),
      sku: OrNull(Type.String()),
      title: OrNull(Type.String({ description: "The order line's title." })),
      quantity: Int({ min: 1 }),
      restock: Type.Boolean({ description: 'False: completion leaves the item out of stock (processed so, or rejected).' }),
    }),
  ),
});
export type ReturnEventData = Static<typeof ReturnEventDataSchema>;

export const ReturnCreated = outboxContract('return.created', 'return', 1, ReturnEventDataSchema);
/** Every committed change of a return: status, items, shipment, comments. */
export const ReturnUpdated = outboxContract('return.updated', 'return', 1, ReturnEventDataSchema);

export const RETURN_EVENTS = [ReturnCreated, ReturnUpdated] as const;

/** Publishes a return's new state in the caller's transaction. */
export class ReturnEvents {
  private readonly views: ReturnViews;

  constructor(
    reads: ReturnReads,
    private readonly settings: StoreSettingsService,
  ) {
    this.views = new ReturnViews(reads);
  }

  async emit(em: EntityManager, contract: typeof ReturnCreated | typeof ReturnUpdated, returnId: string, previousStatus: string | null) {
    const [view] = await this.emitMany(em, contract, [{ returnId, previousStatus }]);
    return view!;
  }

  /** The same for several returns of one store at once (bulk changes: a tag renamed, an import): one read, one insert. */
  async emitMany(em: EntityManager, contract: typeof ReturnCreated | typeof ReturnUpdated, changes: readonly { returnId: string; previousStatus: string | null }[]) {
    if (!changes.length) return [];
    const views = new Map((await this.views.byIds(changes.map((c) => c.returnId), em)).map((v) => [v.id, v]));
    const storeIds = [...new Set([...views.values()].map((v) => v.storeId))];
    const locations = new Map(await Promise.all(storeIds.map(async (id) => [id, (await this.settings.get(id, em)).returnLocationId] as const)));
    const ordered = changes.map((c) => ({ view: views.get(c.returnId)!, previousStatus: c.previousStatus }));
    await publish(
      em,
      contract,
      ordered.map(({ view, previousStatus }) => ({
        storeId: view.storeId,
        subjectId: view.id,
        data: {
          return: restReturn(view),
          order: restOrder(view.prefetchedOrder!),
          // A value of the status column, which holds only statuses.
          previousStatus: previousStatus as ReturnStatus | null,
          record: returnRecord(view),
          destinationLocationId: locations.get(view.storeId) ?? null,
          items: view.items.map((item) => ({ id: item.id, sku: item.sku, title: item.title, quantity: item.quantity, restock: item.restock })),
        },
      })),
    );
    return ordered.map((o) => o.view);
  }
}
