/** Column lists shared by the returns subgraph's queries (camelCase aliases match the row types). */

export const ORDER_COLUMNS = `o.id, o.store_id as "storeId", o.compat_id::text as "compatId", o.provider, o.external_id as "externalId", o.name, o.currency,
  o.customer_email as "customerEmail", o.customer_phone as "customerPhone", o.customer_first_name as "customerFirstName",
  o.customer_last_name as "customerLastName", o.shipping_cost::text as "shippingCost", o.shipping_address as "shippingAddress",
  o.fulfillment_location_id as "fulfillmentLocationId", o.created_at as "createdAt", o.updated_at as "updatedAt"`;

export const LINE_COLUMNS = `l.id, l.order_id as "orderId", l.external_id as "externalId", l.position, l.product_id as "productId",
  l.variant_id as "variantId", l.sku, l.title, l.variant_title as "variantTitle", l.quantity, l.price::text as price,
  l.tax::text as tax, l.discount::text as discount, l.weight_kg::text as "weightKg"`;

export const RETURN_COLUMNS = `r.id, r.store_id as "storeId", r.compat_id::text as "compatId", r.order_id as "orderId", r.order_name as "orderName",
  o.external_id as "externalOrderId", r.status, r.type, r.provider, r.currency, r.source, r.destination, r.notes,
  r.compensation_methods as "compensationMethods", r.shipment, r.shipments, r.shipment_recorded as "shipmentRecorded",
  r.created_at as "createdAt", r.updated_at as "updatedAt", r.closed_at as "closedAt"`;

/** `updated_at` to the microsecond, as text: the keyset cursor must not lose precision. */
export const RETURN_SORT_AT = `to_char(r.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "sortAt"`;

export const ITEM_COLUMNS = `i.id, i.return_id as "returnId", i.order_line_item_id as "orderLineItemId", l.external_id as "lineExternalId",
  i.quantity, i.reason, i.reason_code as "reasonCode", i.customer_comment as "customerComment", i.compensation,
  i.refund_amount::text as "refundAmount", i.product_value::text as "productValue", i.status, l.product_id as "productId",
  l.variant_id as "variantId", l.sku, l.title, l.variant_title as "variantTitle"`;
