import { GraphQLJSON } from 'graphql-scalars';
import { Directive, Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ConnectionType } from '../../platform/graphql/connection.js';
import { MoneyType } from '../../platform/graphql/money.type.js';
import { AddressType, OrderType, PersonNameType, ProductSummaryType, VariantSummaryType } from './order.type.js';
import { RETURN_STATUSES, SHIPMENT_STATUSES } from './return.rules.js';

/** GraphQL enums carry the REST spellings exactly. */
export const ReturnStatusEnum = Object.fromEntries(RETURN_STATUSES.map((s) => [s, s])) as Record<string, string>;
registerEnumType(ReturnStatusEnum, { name: 'ReturnStatus', description: 'Return status (see docs/returns.md for the transitions)' });
export const ShipmentStatusEnum = Object.fromEntries(SHIPMENT_STATUSES.map((s) => [s, s])) as Record<string, string>;
registerEnumType(ShipmentStatusEnum, { name: 'ShipmentStatus' });

@ObjectType('ReturnDestination')
export class ReturnDestinationType {
  @Field(() => AddressType, { nullable: true }) mailingAddress!: AddressType | null;
  @Field(() => String, { nullable: true }) phoneNumber!: string | null;
}

@ObjectType('ReturnSource')
export class ReturnSourceType {
  @Field(() => String, { nullable: true }) emailAddress!: string | null;
  @Field(() => AddressType, { nullable: true }) mailingAddress!: AddressType | null;
  @Field(() => PersonNameType) name!: PersonNameType;
  @Field(() => String, { nullable: true }) phoneNumber!: string | null;
}

@ObjectType('ReturnOrderItemRef')
export class ReturnOrderItemRefType {
  @Field(() => ID, { description: 'Service id of the order line' }) id!: string;
  @Field(() => String, { description: "The commerce platform's line item id (REST: line_item_id)" }) lineItemId!: string;
  @Field(() => ID, { description: "The order line's numeric id" }) numericId!: string;
}

@ObjectType('MoneyAmount')
export class MoneyAmountType {
  @Field(() => MoneyType) amount!: MoneyType;
}

@ObjectType('ItemRefund')
export class ItemRefundType {
  @Field(() => MoneyType) amount!: MoneyType;
  @Field(() => String, { description: 'refund, store_credit or exchange' }) type!: string;
}

@ObjectType('ExchangePrice')
export class ExchangePriceType {
  @Field(() => String) amount!: string;
  @Field(() => String) currency!: string;
  @Field(() => String, { nullable: true }) tax!: string | null;
}

@ObjectType('ExchangeItem')
export class ExchangeItemType {
  @Field(() => ID) id!: string;
  @Field(() => Int) quantity!: number;
  @Field(() => VariantSummaryType) variant!: VariantSummaryType;
  @Field(() => MoneyType) originalPrice!: MoneyType;
  @Field(() => ExchangePriceType) price!: ExchangePriceType;
  @Field(() => ProductSummaryType) product!: ProductSummaryType;
}

@ObjectType('ItemExchange')
export class ItemExchangeType {
  @Field(() => ProductSummaryType) product!: ProductSummaryType;
  @Field(() => Int) quantity!: number;
  @Field(() => VariantSummaryType) variant!: VariantSummaryType;
}

@ObjectType('QuestionAnswer')
export class QuestionAnswerType {
  @Field(() => String) question!: string;
  @Field(() => String) answer!: string;
}

@ObjectType('AssignedUser')
export class AssignedUserType {
  @Field(() => ID) id!: string;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) firstName!: string | null;
  @Field(() => String, { nullable: true }) lastName!: string | null;
  @Field(() => String, { nullable: true }) email!: string | null;
}

@ObjectType('AssessmentResponse')
export class AssessmentResponseType {
  @Field(() => String) type!: string;
  @Field(() => String) value!: string;
}

@ObjectType('Assessment')
export class AssessmentType {
  @Field(() => AssignedUserType, { nullable: true }) assignedUser!: AssignedUserType | null;
  @Field(() => [AssessmentResponseType]) responses!: AssessmentResponseType[];
}

@ObjectType('ReturnItem')
export class ReturnItemType {
  @Field(() => ID) id!: string;
  @Field(() => ReturnOrderItemRefType) orderItem!: ReturnOrderItemRefType;
  @Field(() => Int) quantity!: number;
  @Field(() => String) reason!: string;
  @Field(() => String, { nullable: true }) customerComment!: string | null;
  @Field(() => ItemExchangeType, { nullable: true }) exchangeItem!: ItemExchangeType | null;
  @Field(() => String, { nullable: true }) grade!: string | null;
  @Field(() => Boolean) greenReturn!: boolean;
  @Field(() => String, { description: 'refund, store_credit or exchange.' }) compensation!: string;
  @Field(() => String, { nullable: true, description: "The merchant's processing outcome; null until the return is processed." }) outcome!: string | null;
  @Field(() => [String]) shipmentGroupIds!: string[];
  @Field(() => String, { nullable: true }) externalReturnLineItemId!: string | null;
  @Field(() => String, { nullable: true }) productId!: string | null;
  @Field(() => String, { nullable: true }) reasonCode!: string | null;
  @Field(() => [String]) reasons!: string[];
  @Field(() => [String]) reasonCodes!: string[];
  @Field(() => String, { nullable: true }) productAdjustment!: string | null;
  @Field(() => [QuestionAnswerType]) multipleChoiceQuestions!: QuestionAnswerType[];
  @Field(() => [AssessmentType]) assessments!: AssessmentType[];
  @Field(() => ItemRefundType) refund!: ItemRefundType;
  @Field(() => MoneyAmountType) productValueNoTaxNoAdjustment!: MoneyAmountType;
  @Field(() => String, { nullable: true }) sku!: string | null;
  @Field(() => String, { nullable: true }) upc!: string | null;
  @Field(() => String) status!: string;
  @Field(() => String, { nullable: true }) variantId!: string | null;
  @Field(() => String, { nullable: true }) title!: string | null;
}

@ObjectType('GiftCard')
export class GiftCardType {
  @Field(() => MoneyType) amount!: MoneyType;
  @Field(() => String) code!: string;
  @Field(() => String, { nullable: true }) externalId!: string | null;
}

@ObjectType('ExternalReturnId')
export class ExternalReturnIdType {
  @Field(() => String) provider!: string;
  @Field(() => String) value!: string;
}

@ObjectType('ExchangeOrderRef')
export class ExchangeOrderRefType {
  @Field(() => String, { nullable: true }) externalId!: string | null;
}

@ObjectType('ReturnExchange')
export class ReturnExchangeType {
  @Field(() => [ExchangeItemType]) items!: ExchangeItemType[];
  @Field(() => String, { nullable: true }) provision!: string | null;
  @Field(() => Int) itemCount!: number;
  @Field(() => ExchangeOrderRefType, { nullable: true }) order!: ExchangeOrderRefType | null;
  @Field(() => MoneyType, { nullable: true }) totalTax!: MoneyType | null;
}

@ObjectType('ReturnNote')
export class ReturnNoteType {
  @Field(() => String) message!: string;
  @Field(() => String, { nullable: true }) image!: string | null;
}

@ObjectType('Shipment')
export class ShipmentType {
  @Field(() => String, { nullable: true }) carrier!: string | null;
  @Field(() => String) status!: string;
  @Field(() => String, { nullable: true }) tracker!: string | null;
  @Field(() => String, { nullable: true }) trackingUrl!: string | null;
  @Field(() => String, { nullable: true }) postageLabel!: string | null;
  @Field(() => String, { nullable: true }) formLabel!: string | null;
  @Field(() => String, { nullable: true }) shipmentGroupId!: string | null;
  @Field(() => [String]) itemIds!: string[];
  @Field(() => String, { nullable: true }) externalLocationId!: string | null;
  @Field(() => String, { nullable: true }) estimatedDeliveryDate!: string | null;
  @Field(() => String, { nullable: true }) deliveredAt!: string | null;
}

@ObjectType('Dropoff')
export class DropoffType {
  @Field(() => String, { nullable: true }) shipmentGroupId!: string | null;
  @Field(() => String, { nullable: true }) provider!: string | null;
  @Field(() => String, { nullable: true }) qrCode!: string | null;
  @Field(() => String, { nullable: true }) qrCodeUrl!: string | null;
}

@ObjectType('Tag')
export class TagType {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) source!: string | null;
}

@ObjectType('ReturnTotals')
export class ReturnTotalsType {
  @Field(() => MoneyAmountType) charge!: MoneyAmountType;
  @Field(() => MoneyAmountType) exchange!: MoneyAmountType;
  @Field(() => MoneyAmountType) refund!: MoneyAmountType;
  @Field(() => MoneyAmountType) storeCredit!: MoneyAmountType;
}

@Directive('@key(fields: "id")')
@ObjectType('Return')
export class ReturnType {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'numericId', description: "The return's numeric id: allocated once, never reused" }) compatId!: string;
  @Field(() => Boolean, { description: 'Whether any carrier event was ever recorded for the return' }) shipmentRecorded!: boolean;
  @Field(() => Date, { nullable: true, description: 'When it was last completed, rejected or reset' }) closedAt!: Date | null;
  @Field(() => Date, { nullable: true, description: "When its customer was erased: the source's email, name, phone and address are gone" }) erasedAt!: Date | null;
  @Field(() => ID) storeId!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
  @Field(() => ReturnStatusEnum) status!: string;
  @Field(() => String, { description: 'return or warranty' }) type!: string;
  @Field(() => String) provider!: string;
  @Field(() => String) currency!: string;
  @Field(() => ReturnDestinationType) destination!: ReturnDestinationType;
  @Field(() => ReturnSourceType) source!: ReturnSourceType;
  @Field(() => OrderType, { description: 'The order the return was made against (REST shows its id and name)' }) order!: OrderType;
  @Field(() => [ReturnItemType]) items!: ReturnItemType[];
  @Field(() => [GiftCardType]) giftCards!: GiftCardType[];
  @Field(() => [String]) compensationMethods!: string[];
  @Field(() => Boolean) completeWithNoAction!: boolean;
  @Field(() => ReturnExchangeType, { nullable: true }) exchange!: ReturnExchangeType | null;
  @Field(() => [String]) externalOrderIds!: string[];
  @Field(() => [ExternalReturnIdType]) externalReturnIds!: ExternalReturnIdType[];
  @Field(() => String, { nullable: true }) internalCreatedByName!: string | null;
  @Field(() => [ReturnNoteType]) notes!: ReturnNoteType[];
  @Field(() => ShipmentType, { nullable: true }) shipment!: ShipmentType | null;
  @Field(() => [ShipmentType]) shipments!: ShipmentType[];
  @Field(() => [DropoffType]) dropoffs!: DropoffType[];
  @Field(() => [String]) platformOrderIds!: string[];
  @Field(() => [TagType]) tags!: TagType[];
  @Field(() => ReturnTotalsType) totals!: ReturnTotalsType;
  @Field(() => Date, { nullable: true, description: 'When it was imported from another system (POST /stores/{storeId}/returns/bulk); null for returns made here' }) importedAt!: Date | null;
  @Field(() => String, { nullable: true, description: "An imported return's reference in the system it came from (externalReferenceId)" }) externalReferenceId!: string | null;
  @Field(() => String, { nullable: true, description: 'The system an imported return came from, as the import named it' }) externalProvider!: string | null;
}

export const ReturnConnection = ConnectionType(ReturnType, 'Return');

@ObjectType('ReturnComment')
export class ReturnCommentType {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'numericId', description: "The comment's numeric id" }) compatId!: string;
  @Field(() => String) message!: string;
  @Field(() => String, { nullable: true, description: 'A picture (base64) the comment carries.' }) image!: string | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('CreateReturnPayload')
export class CreateReturnPayloadType {
  @Field(() => ReturnType) return!: ReturnType;
  @Field(() => [ExternalRmaResponseType]) externalRMAResponses!: ExternalRmaResponseType[];
  @Field(() => Boolean, { description: 'True when an Idempotency-Key replayed an earlier create' }) replayed!: boolean;
}

@ObjectType('ExternalRMAResponse')
export class ExternalRmaResponseType {
  @Field(() => String) integrationProvider!: string;
  @Field(() => Boolean) success!: boolean;
  @Field(() => String, { nullable: true }) errorCode!: string | null;
  @Field(() => String, { nullable: true }) errorMessage!: string | null;
}

/** The inventory subgraph's product, referenced by store and sku (resolved there). */
@Directive('@key(fields: "storeId sku", resolvable: false)')
@ObjectType('Product')
export class ProductReference {
  @Field(() => ID) storeId!: string;
  @Field(() => String) sku!: string;
}

/** The inventory subgraph's item of a sku and kind with no lot (resolved there). */
@Directive('@key(fields: "storeId sku kind", resolvable: false)')
@ObjectType('InventoryItem')
export class InventoryItemReference {
  @Field(() => ID) storeId!: string;
  @Field(() => String) sku!: string;
  @Field(() => String) kind!: string;
}

@ObjectType('ReturnTimelineEntry', { description: 'Something done to a return (a queued completion and the request that queued it, removed items, ...)' })
export class ReturnTimelineEntryType {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'completion_queued, completed, items_removed' }) kind!: string;
  @Field(() => GraphQLJSON, { nullable: true }) detail!: unknown;
  @Field(() => Date) createdAt!: Date;
}
