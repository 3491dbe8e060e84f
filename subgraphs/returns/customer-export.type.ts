import { Directive, Field, ID, ObjectType } from 'type-graphql';

/**
 * The customer export is the events subgraph's; this subgraph adds the orders and returns of the
 * export's email and phone number, as `Customer.returns` matches them.
 */
@Directive('@key(fields: "id")')
@ObjectType('CustomerExport')
export class CustomerExportReference {
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
