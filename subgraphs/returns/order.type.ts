import { Directive, Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { ConnectionType } from '../../platform/graphql/connection.js';
import { MoneyType } from '../../platform/graphql/money.type.js';

@ObjectType('Address')
export class AddressType {
  @Field(() => String, { nullable: true }) line1!: string | null;
  @Field(() => String, { nullable: true }) line2!: string | null;
  @Field(() => String, { nullable: true }) city!: string | null;
  @Field(() => String, { nullable: true }) state!: string | null;
  @Field(() => String, { nullable: true }) postalCode!: string | null;
  @Field(() => String, { nullable: true }) country!: string | null;
}

@ObjectType('PersonName')
export class PersonNameType {
  @Field(() => String, { nullable: true }) given!: string | null;
  @Field(() => String, { nullable: true }) surname!: string | null;
}

@ObjectType('OrderCustomer')
export class OrderCustomerType {
  @Field(() => PersonNameType) name!: PersonNameType;
  @Field(() => String, { nullable: true }) emailAddress!: string | null;
  @Field(() => String, { nullable: true }) phoneNumber!: string | null;
}

@ObjectType('ProductSummary')
export class ProductSummaryType {
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) externalId!: string | null;
}

@ObjectType('Weight')
export class WeightType {
  @Field(() => Float, { nullable: true }) kg!: number | null;
}

@ObjectType('VariantSummary')
export class VariantSummaryType {
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) externalId!: string | null;
  @Field(() => String, { nullable: true }) sku!: string | null;
  @Field(() => WeightType) weight!: WeightType;
}

@ObjectType('OrderItem')
export class OrderItemType {
  @Field(() => ID, { description: 'Service id of the order line (orderItem.id in returns)' }) id!: string;
  @Field(() => ID, { description: 'The order line\'s numeric id: allocated once, never reused' }) numericId!: string;
  @Field(() => String, { description: "The commerce platform's line item id" }) externalId!: string;
  @Field(() => String, { nullable: true }) fulfillmentLocationId!: string | null;
  @Field(() => MoneyType, { description: 'Unit price' }) price!: MoneyType;
  @Field(() => MoneyType, { description: 'Tax of the whole line' }) tax!: MoneyType;
  @Field(() => MoneyType, { description: 'Discount of the whole line' }) discount!: MoneyType;
  @Field(() => ProductSummaryType) product!: ProductSummaryType;
  @Field(() => Int) quantity!: number;
  @Field(() => VariantSummaryType) variant!: VariantSummaryType;
}

@Directive('@key(fields: "id")')
@ObjectType('Order')
export class OrderType {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'numericId', description: "The order's numeric id: allocated once, never reused" }) compatId!: string;
  @Field(() => ID) storeId!: string;
  @Field(() => String) provider!: string;
  @Field(() => String) name!: string;
  @Field(() => String) externalId!: string;
  @Field(() => String) currency!: string;
  @Field(() => OrderCustomerType) customer!: OrderCustomerType;
  @Field(() => AddressType, { nullable: true }) shippingAddress!: AddressType | null;
  @Field(() => String, { nullable: true }) fulfillmentLocationId!: string | null;
  @Field(() => MoneyType) discounts!: MoneyType;
  @Field(() => MoneyType) lineItemsTotal!: MoneyType;
  @Field(() => MoneyType) shippingCost!: MoneyType;
  @Field(() => MoneyType) taxes!: MoneyType;
  @Field(() => MoneyType) total!: MoneyType;
  @Field(() => [OrderItemType]) items!: OrderItemType[];
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
  @Field(() => Date, { nullable: true, description: "When its customer was erased: the customer's email, name, phone and shipping address are gone" }) erasedAt!: Date | null;
}

export const OrderConnection = ConnectionType(OrderType, 'Order');
