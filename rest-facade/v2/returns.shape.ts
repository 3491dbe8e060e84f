/**
 * The GraphQL selections that produce the REST shapes of service-spec.md
 * ("Return", "Order"), and the few renames between the two.
 */
const MONEY = 'amount currency';
const ADDRESS = 'line1 line2 city state postalCode country';
const VARIANT = 'name externalId sku weight { kg }';
const SHIPMENT = 'carrier status tracker trackingUrl postageLabel formLabel shipmentGroupId itemIds externalLocationId estimatedDeliveryDate deliveredAt';

export const RETURN_FIELDS = `
  fragment RestReturn on Return {
    id createdAt updatedAt status type
    destination { mailingAddress { ${ADDRESS} } phoneNumber }
    source { emailAddress mailingAddress { ${ADDRESS} } name { given surname } phoneNumber }
    order { id name }
    items {
      id orderItem { id lineItemId } quantity reason customerComment
      exchangeItem { product { name externalId } quantity variant { ${VARIANT} } }
      grade greenReturn outcome shipmentGroupIds externalReturnLineItemId productId reasonCode reasons reasonCodes productAdjustment
      multipleChoiceQuestions { question answer }
      assessments { assignedUser { id name firstName lastName email } responses { type value } }
      refund { amount { ${MONEY} } type }
      productValueNoTaxNoAdjustment { amount { ${MONEY} } }
      sku upc status variantId
    }
    giftCards { amount { ${MONEY} } code externalId }
    compensationMethods completeWithNoAction
    exchange {
      items { id quantity variant { ${VARIANT} } originalPrice { ${MONEY} } price { amount currency tax } product { name externalId } }
      provision itemCount order { externalId } totalTax { ${MONEY} }
    }
    externalOrderIds externalReturnIds { provider value } internalCreatedByName
    notes { message image }
    shipment { ${SHIPMENT} } shipments { ${SHIPMENT} }
    dropoffs { shipmentGroupId provider qrCode qrCodeUrl }
    platformOrderIds tags { name source }
    totals { charge { amount { ${MONEY} } } exchange { amount { ${MONEY} } } refund { amount { ${MONEY} } } storeCredit { amount { ${MONEY} } } }
  }`;

export const ORDER_FIELDS = `
  fragment RestOrder on Order {
    id name externalId
    customer { name { given surname } emailAddress phoneNumber }
    discounts { ${MONEY} } lineItemsTotal { ${MONEY} } shippingCost { ${MONEY} } taxes { ${MONEY} } total { ${MONEY} }
    items { fulfillmentLocationId id price { ${MONEY} } product { name externalId } quantity variant { ${VARIANT} } externalId }
  }`;

interface GraphQLReturnItem {
  orderItem: { id: string; lineItemId: string };
  [key: string]: unknown;
}

export interface GraphQLReturn {
  id: string;
  items: GraphQLReturnItem[];
  order: { id: string; name: string };
  [key: string]: unknown;
}

/** GraphQL's camelCase `orderItem.lineItemId` is `orderItem.line_item_id` in the REST shape. */
export function restReturn(ret: GraphQLReturn): Record<string, unknown> {
  return {
    ...ret,
    items: ret.items.map((item) => ({ ...item, orderItem: { id: item.orderItem.id, line_item_id: item.orderItem.lineItemId } })),
  };
}
