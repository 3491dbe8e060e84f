/**
 * What the rest of the system may use of the returns subgraph: its event
 * contracts (for consumers in other subgraphs) and the schemas of its REST
 * inputs and documents (for the facade and the API reference). Everything
 * else is internal.
 */
export { ReturnCreated, ReturnUpdated, RETURN_EVENTS, type ReturnEventData } from './return.events.js';
export { CommentBodySchema, CreateReturnSchema, OrderBodySchema, ProcessBodySchema, ReturnListQuerySchema, StatusBodySchema } from './returns.schemas.js';
export { RETURN_STATUSES } from './return.status.js';
export { RestCommentSchema, RestOrderSchema, RestReturnListSchema, RestReturnSchema, type RestOrder, type RestReturn } from './return.view.js';
export type { ReturnRecord, ReturnRecordItem } from './return.record.js';
export { isOrderSync, OrderSyncSchema } from './order.sync.js';
export { returnDocumentsPage } from './return.backfill.js';
