/**
 * Every problem type the service answers with: its title, and the
 * explanation served at `/problems/<slug>` (RFC 9457 `type`). `AppError` only
 * takes slugs listed here, so a problem without its page cannot be written.
 */
export const PROBLEMS = {
  'invalid-json': ['The request body is not valid JSON', 'The body could not be parsed as JSON, or was empty. Send one JSON value (an object on every route of this API) encoded as UTF-8.'],
  'validation-failed': [
    'The request is invalid',
    'A body field, query parameter, path segment or header broke a rule. `errors` lists every violation at once, each with a pointer: a JSON pointer into the body (`/data/items/0/quantity`), or `query#name`, `header#name`, `path#name`. Fix them all and send the request again; nothing was changed.',
  ],
  'invalid-page-size': ['Invalid page size', '`page-size` (or the `X-Page-Size` header) must be an integer from 1 to 500.'],
  'invalid-cursor': [
    'Invalid pagination cursor',
    'The `page-continue` cursor is malformed, was altered, or was issued for other filters. Pass `X-Page-Next` back exactly as received, with the same filters; or start again without a cursor.',
  ],
  'invalid-url': ['Invalid URL', 'The request path is not valid percent-encoded UTF-8.'],
  unauthorized: [
    'Authentication required',
    'The request carries no credentials, or unknown or revoked ones. REST calls send `Authorization: Bearer <API secret>`; GraphQL accepts an API secret or the admin token.',
  ],
  'scope-forbidden': ['The credentials lack a required scope', 'The API secret is valid but lacks the scope this operation needs (named in `detail`). Create a secret with that scope.'],
  forbidden: ['Not allowed', 'The operation needs the admin token.'],
  'store-not-found': ['Store not found', 'No store with this id is visible to these credentials: it does not exist, or it belongs to another account.'],
  'not-found': ['Resource not found', 'Nothing with this id is visible to these credentials.'],
  'route-not-found': ['No such route', 'No route matches this method and path. Check the version prefix (`/v2.2`) and the spelling.'],
  'method-not-allowed': ['Method not allowed', 'The path exists but not with this method; the `Allow` header lists the methods it takes.'],
  'payload-too-large': ['Request body too large', 'The body is over the limit of the route (5 MB for custom events, 1 MB elsewhere).'],
  'unsupported-media-type': [
    'Unsupported media type',
    'This route takes a JSON body: send `Content-Type: application/json` (or a `+json` type), in UTF-8 (a `charset` other than UTF-8 is refused, not guessed at), uncompressed or with a `Content-Encoding` of gzip, deflate or br.',
  ],
  'rate-limited': [
    'Too many requests',
    'A rate limit was reached. Wait for the seconds in `Retry-After`; `RateLimit-Policy` and `RateLimit` describe the limit and what is left of it.',
  ],
  'service-unavailable': ['Service unavailable', 'The service cannot take this request now (its database is unreachable or it is over capacity). Retry after the seconds in `Retry-After`.'],
  'internal-error': [
    'Internal server error',
    'Something unexpected failed. The body says nothing more on purpose; the `instance` member and the `X-Request-Id` header carry the request id to quote when reporting it.',
  ],
  'account-not-found': ['Account not found', 'No account has this id.'],
  'order-not-found': ['Order not found', 'The store has no order with this provider and external id. Push the order first (`POST /v2.2/stores/{storeId}/custom/orders`).'],
  'order-line-has-returns': [
    'The order update would take away returned units',
    'A line of the order has units in returns, and the update drops the line or lowers its quantity below those units. Keep the line with at least that quantity, or reject or reset the returns first.',
  ],
  'webhook-not-found': ['Webhook subscription not found', 'No webhook subscription with this id is visible to these credentials: it does not exist, was deleted, or belongs to another account.'],
  'webhook-message-not-found': ['Webhook message not found', 'The subscription has no message with this id (the `messageId` of its deliveries log): it never had it, or it is past its retention.'],
  'webhook-secret-not-rotatable': ['This subscription cannot rotate its secret', 'A Loop subscription (made through `/api/v1/webhooks`) is signed with one secret (`X-Loop-Signature`): create a new subscription instead.'],
  'return-not-found': ['Return not found', 'No return with this id is visible to these credentials.'],
  'quantity-not-returnable': [
    'Quantity not returnable',
    'More units were asked for than are still returnable: the ordered quantity (the fulfilled quantity, once the order reports fulfillments) minus the units in other returns that are not rejected or deleted.',
  ],
  'order-exists': ['Order already exists', 'The store already has an order with this `orderId`. The orders API creates orders only; read it with `GET .../orders/{orderId}`, or delete it first.'],
  'order-has-returns': ['The order has returns', 'Returns were made against this order: it is kept, since a return names its order\'s lines. Delete an order before any return is made against it.'],
  'fulfillment-not-found': ['Fulfillment not found', 'The order has no fulfillment with this id (the `fulfillmentId` you gave it, else the id its creation answered).'],
  'fulfillment-exists': [
    'Fulfillment already exists',
    'The order already has a fulfillment with this `fulfillmentId`, of other units. Sending the same fulfillment again (same lines and quantities) answers it as it is; a new fulfillment needs a new id.',
  ],
  'return-tag-not-found': ['Return tag not found', 'The store has no return tag with this name (names are case-sensitive).'],
  'rename-precondition-failed': [
    'The tag cannot be renamed',
    'A rename needs the tag named in the path to exist and the new name to be free: the store has no tag with the old name, or already has one with the new name.',
  ],
  'too-many-return-tags': ['Too many return tags', 'A store has at most 1,000 return tags. Delete tags it no longer uses first.'],
  'customer-not-found': ['Customer not found', 'The store has no customer with this email address.'],
  'idempotency-key-reused': ['Idempotency key reused with a different request', 'This `Idempotency-Key` was already used, within 24 hours, with another body. Use a new key for a new request.'],
  'idempotency-key-in-progress': [
    'A request with this idempotency key is in progress',
    'The first request with this `Idempotency-Key` is still running. Retry with the same key shortly: the answer will be its result.',
  ],
  'items-not-in-return': [
    'Not items of this return',
    'Some of the order lines named have no item on the return (never had one, or it was already removed). Nothing was changed; `errors` points at each such line.',
  ],
  'invalid-transition': ['Status transition not allowed', 'The return (or shipment) cannot move from its current status to the one asked for; see the transition table in the returns documentation.'],
  'location-not-found': ['Location not found', 'The store has no location with this id.'],
  'product-not-found': ['Product not found', 'The store has no product with this id or sku.'],
  'inbound-shipment-not-found': ['Inbound shipment not found', 'The store has no inbound shipment with this id.'],
  'inventory-item-not-found': ['Inventory item not found', 'The store has no inventory item with this id.'],
  'inventory-level-not-found': ['Inventory level not found', 'The store has no inventory level (a product at a location) with this id.'],
  'insufficient-stock': ['Not enough stock', 'The change would take the stock of the item at the location below zero; `detail` says what is on hand.'],
  'quantity-out-of-range': ['Quantity out of range', 'The change would take a running total beyond what it can hold (2,147,483,647 units); `detail` names the total.'],
  'customer-erased': [
    'The customer was erased',
    'The store erased this customer (a data subject request) and chose to refuse later events about them. The pointer names the identifier; nothing was queued. Events without an erased identifier are accepted as usual.',
  ],
  'erasure-not-found': ['Erasure request not found', 'The store has no erasure request with this id visible to these credentials.'],
  'quantity-exceeds-expected': ['More units reported than the shipment expects', 'Received, damaged and missing units of a shipment line together may not exceed the quantity it expects.'],
} as const satisfies Record<string, readonly [string, string]>;

export type ProblemSlug = keyof typeof PROBLEMS;

export function isProblemSlug(slug: string): slug is ProblemSlug {
  return Object.hasOwn(PROBLEMS, slug);
}

export function problemTitle(slug: ProblemSlug): string {
  return PROBLEMS[slug][0];
}

export function problemExplanation(slug: ProblemSlug): string {
  return PROBLEMS[slug][1];
}
