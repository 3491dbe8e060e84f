/** What the facade may use of the webhooks module: the subscription service, the REST schemas and the deliveries' bodies. */
export { webhookDeliveries } from './webhook.json.js';
export type { WebhookSubscriptions } from './webhook.service.js';
export {
  CreatedWebhookResponseSchema,
  CreateWebhookSchema,
  DeliveryListSchema,
  ReplayWebhookSchema,
  UpdateWebhookSchema,
  WebhookListSchema,
  WebhookResponseSchema,
} from './webhook.schemas.js';
