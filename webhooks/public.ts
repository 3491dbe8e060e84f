/** What the facade may use of the webhooks module: the subscription service and the REST schemas. */
export type { WebhookSubscriptions } from './subscriptions.js';
export {
  CreatedWebhookResponseSchema,
  CreateWebhookSchema,
  DeliveryListSchema,
  ReplayWebhookSchema,
  UpdateWebhookSchema,
  WebhookListSchema,
  WebhookResponseSchema,
  WEBHOOK_TOPICS,
} from './webhook.schemas.js';
