import { Directive, Field, ID, ObjectType } from 'type-graphql';

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

  @Directive('@external')
  @Field(() => [String])
  mergedEmails!: string[] | null;

  @Directive('@external')
  @Field(() => [String])
  mergedPhoneNumbers!: string[] | null;
}
