/**
 * What the rest of the system may use of the returns subgraph: its event
 * contracts (for consumers in other subgraphs) and the schemas of its REST
 * inputs and documents (for the facade and the API reference). Everything
 * else is internal.
 */
export { ReturnCreated, ReturnUpdated, type ReturnEventData } from './return.events.js';
export { CommentBodySchema, CreateReturnSchema, ProcessBodySchema, ReturnListQuerySchema, StatusBodySchema } from './return.schemas.js';
export { OrderBodySchema } from './order.schemas.js';
export { RETURN_STATUSES } from './return.rules.js';
export { RestCommentSchema, RestReturnListSchema, RestReturnSchema } from './return.json.js';
export { RestOrderSchema } from './order.json.js';
export type { ReturnRecord, ReturnRecordItem } from './compat.json.js';
export { isOrderSync, OrderSyncSchema } from './order-sync.schemas.js';
export { OrderCreated, OrderDeleted, OrderUpdated } from './order.events.js';
export { CreatedOrderSchema, DeletedOrderSchema, FulfillmentResultSchema, OrdersApiOrderSchema } from './order-api.json.js';
export { CreateOrderSchema } from './order-api.schemas.js';
export { CreateFulfillmentSchema, FulfillmentStatusSchema } from './fulfillment.schemas.js';
export { ReturnTagDeletedSchema, ReturnTagListSchema, ReturnTagResponseSchema } from './return-tag.json.js';
export { UpsertReturnTagSchema } from './return-tag.schemas.js';
export { BulkReturnsResultSchema, BulkReturnsSchema } from './return-import.schemas.js';
