/** Column lists shared by the returns subgraph's queries (camelCase aliases match the row types). */

export const ORDER_COLUMNS = `o.id, o.store_id as "storeId", o.compat_id::text as "compatId", o.provider, o.external_id as "externalId", o.name, o.currency,
  o.customer_email as "customerEmail", o.customer_phone as "customerPhone", o.customer_first_name as "customerFirstName",
  o.customer_last_name as "customerLastName", o.shipping_cost::text as "shippingCost", o.shipping_address as "shippingAddress",
  o.fulfillment_location_id as "fulfillmentLocationId", o.created_at as "createdAt", o.updated_at as "updatedAt"`;

export const LINE_COLUMNS = `l.id, l.order_id as "orderId", l.compat_id::text as "compatId", l.external_id as "externalId", l.position, l.product_id as "productId",
  l.variant_id as "variantId", l.sku, l.title, l.variant_title as "variantTitle", l.quantity, l.price::text as price,
  l.tax::text as tax, l.discount::text as discount, l.weight_kg::text as "weightKg"`;

export const RETURN_COLUMNS = `r.id, r.store_id as "storeId", r.compat_id::text as "compatId", r.order_id as "orderId", r.order_name as "orderName",
  o.external_id as "externalOrderId", o.compat_id::text as "orderCompatId", r.status, r.type, r.provider, r.currency, r.source, r.destination, r.notes,
  r.compensation_methods as "compensationMethods", r.shipment, r.shipments, r.shipment_recorded as "shipmentRecorded",
  r.created_at as "createdAt", r.updated_at as "updatedAt", r.closed_at as "closedAt"`;

export const ITEM_COLUMNS = `i.id, i.return_id as "returnId", i.order_line_item_id as "orderLineItemId", l.external_id as "lineExternalId",
  i.quantity, i.reason, i.reason_code as "reasonCode", i.customer_comment as "customerComment", i.compensation,
  i.outcome, i.same_item_replacement as "sameItemReplacement", i.refund_amount::text as "refundAmount", i.product_value::text as "productValue", i.status, l.product_id as "productId",
  l.variant_id as "variantId", l.sku, l.title, l.variant_title as "variantTitle", l.compat_id::text as "lineCompatId", l.quantity as "lineQuantity",
  l.price::text as "linePrice", l.tax::text as "lineTax", l.discount::text as "lineDiscount"`;

/**
 * A return's active items and its comments as JSON arrays, so one query loads
 * whole returns (numerics as text: JSON numbers would lose exactness).
 */
export const RETURN_PARTS = `
  coalesce((select json_agg(json_build_object(
      'id', i.id, 'returnId', i.return_id, 'orderLineItemId', i.order_line_item_id, 'lineExternalId', l.external_id,
      'quantity', i.quantity, 'reason', i.reason, 'reasonCode', i.reason_code, 'customerComment', i.customer_comment,
      'compensation', i.compensation, 'outcome', i.outcome, 'sameItemReplacement', i.same_item_replacement, 'restock', i.restock, 'refundAmount', i.refund_amount::text, 'productValue', i.product_value::text, 'status', i.status,
      'productId', l.product_id, 'variantId', l.variant_id, 'sku', l.sku, 'title', l.title, 'variantTitle', l.variant_title,
      'upc', (select f.upc from product_fact f where f.store_id = r.store_id and f.sku = l.sku),
      'lineCompatId', l.compat_id::text, 'lineQuantity', l.quantity, 'linePrice', l.price::text, 'lineTax', l.tax::text, 'lineDiscount', l.discount::text) order by i.position)
    from return_item i join order_line_item l on l.id = i.order_line_item_id where i.return_id = r.id and i.status = 'active'), '[]') as items,
  coalesce((select json_agg(json_build_object('id', c.id, 'compatId', c.compat_id::text, 'returnId', c.return_id, 'message', c.message, 'image', c.image, 'createdAt', c.created_at) order by c.created_at, c.id)
    from return_comment c where c.return_id = r.id), '[]') as comments`;

/** An order's visible lines as a JSON array (numerics as text). */
export const ORDER_LINES = `
  coalesce((select json_agg(json_build_object(
      'id', l.id, 'orderId', l.order_id, 'compatId', l.compat_id::text, 'externalId', l.external_id, 'position', l.position, 'productId', l.product_id,
      'variantId', l.variant_id, 'sku', l.sku, 'title', l.title, 'variantTitle', l.variant_title, 'quantity', l.quantity,
      'price', l.price::text, 'tax', l.tax::text, 'discount', l.discount::text, 'weightKg', l.weight_kg::text) order by l.position)
    from order_line_item l where l.order_id = o.id and l.removed_at is null), '[]') as lines`;

/** The return's order (joined as `o`) with its lines, as one JSON object: no second query for `Return.order`. */
export const RETURN_ORDER = `(select row_to_json(x) from (select ${ORDER_COLUMNS}, ${ORDER_LINES}) x) as "orderJson"`;

export const COMMENT_COLUMNS = `id, compat_id::text as "compatId", return_id as "returnId", message, image, created_at as "createdAt"`;
