/** What the facade may use of the webhooks module: the subscription service, the REST schemas and the deliveries' bodies. */
export { eventTypeCatalog, webhookDeliveries } from './webhook.json.js';
export type { WebhookSubscriptions, SubscriptionRow } from './webhook.service.js';
export { LOOP_TOPICS, LOOP_TRIGGERS, type LoopTopic, type LoopTrigger } from './webhook.service.js';
export {
  CreatedWebhookResponseSchema,
  CreateWebhookSchema,
  DeliveryListSchema,
  EventTypeListSchema,
  RecoveredSchema,
  RecoverWebhookSchema,
  ReplayWebhookSchema,
  RotatedSecretSchema,
  RotateSecretSchema,
  UpdateWebhookSchema,
  WebhookListSchema,
  WebhookResponseSchema,
} from './webhook.schemas.js';
