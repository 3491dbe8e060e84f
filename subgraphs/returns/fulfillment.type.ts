import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('TrackingLocation')
export class TrackingLocationType {
  @Field(() => String, { nullable: true }) city!: string | null;
  @Field(() => String, { nullable: true }) state!: string | null;
  @Field(() => String, { nullable: true }) country!: string | null;
  @Field(() => String, { nullable: true }) postalCode!: string | null;
}

@ObjectType('TrackingEntry', { description: "One carrier update of a fulfillment: a status, or an event (stalled_in_transit, delayed, arriving_early) that changes no status." })
export class TrackingEntryType {
  @Field(() => String) status!: string;
  @Field(() => String) message!: string;
  @Field(() => Date, { description: "The carrier's time" }) at!: Date;
  @Field(() => TrackingLocationType, { nullable: true }) location!: TrackingLocationType | null;
}

@ObjectType('FulfillmentLine')
export class FulfillmentLineType {
  @Field(() => ID, { description: 'Service id of the order line' }) orderItemId!: string;
  @Field(() => String, { description: "The order line's own id (lineItems[].id)" }) lineItemId!: string;
  @Field(() => Int) quantity!: number;
  @Field(() => String, { nullable: true }) title!: string | null;
  @Field(() => String, { nullable: true }) sku!: string | null;
}

@ObjectType('Fulfillment', { description: 'Units of an order shipped together, with their tracking (the orders API).' })
export class FulfillmentType {
  @Field(() => ID, { description: "The service's id" }) id!: string;
  @Field(() => String, { description: 'The id the orders API names it by: the one given at creation, else the service id' }) fulfillmentId!: string;
  @Field(() => String, { description: 'pre_transit, unknown, in_transit, out_for_delivery, available_for_pickup, delivered, return_to_sender, failure, cancelled, error' })
  status!: string;
  @Field(() => String, { nullable: true }) trackingCompany!: string | null;
  @Field(() => String, { nullable: true }) trackingNumber!: string | null;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD' }) estimatedDeliveryDate!: string | null;
  @Field(() => Date, { nullable: true }) deliveredAt!: Date | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
  @Field(() => [FulfillmentLineType]) lines!: FulfillmentLineType[];
  @Field(() => [TrackingEntryType], { description: "Oldest first, by the carrier's time" }) trackingHistory!: TrackingEntryType[];
}

@ObjectType('FulfillmentPayload')
export class FulfillmentPayloadType {
  @Field(() => Boolean, { description: 'False when the same fulfillmentId and units answered an existing fulfillment (a retry)' }) created!: boolean;
  @Field(() => FulfillmentType) fulfillment!: FulfillmentType;
}

@ObjectType('DeletedOrder')
export class DeletedOrderType {
  @Field(() => ID, { description: "The service's order id" }) orderId!: string;
  @Field(() => String, { description: 'Its external id' }) externalOrderId!: string;
  @Field(() => String, { description: 'The order as it was, as the orders API reads it (JSON text)' }) apiJson!: string;
}
