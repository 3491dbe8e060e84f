import { Directive, Field, ID, ObjectType } from 'type-graphql';
import { ConnectionType } from '../../platform/graphql/connection.js';

@Directive('@key(fields: "id")')
@ObjectType('Order')
export class OrderType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  provider!: string;

  @Field(() => String)
  externalId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  currency!: string;

  @Field(() => String, { nullable: true })
  customerEmail!: string | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@Directive('@key(fields: "id")')
@ObjectType('Return')
export class ReturnType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => ID)
  orderId!: string;

  @Field(() => String)
  status!: string;

  @Field(() => String)
  type!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

export const ReturnConnection = ConnectionType(ReturnType, 'Return');

/**
 * The customer entity is owned by the events subgraph; this subgraph adds
 * `Customer.returns`, computed from the customer's store, email and phone.
 */
@Directive('@key(fields: "id")')
@ObjectType('Customer')
export class CustomerReference {
  @Field(() => ID)
  id!: string;

  @Directive('@external')
  @Field(() => ID)
  storeId!: string;

  @Directive('@external')
  @Field(() => String, { nullable: true })
  email!: string | null;

  @Directive('@external')
  @Field(() => String, { nullable: true })
  phoneNumber!: string | null;
}
