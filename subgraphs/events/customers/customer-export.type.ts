import { Directive, Field, ID, ObjectType } from 'type-graphql';
import { CustomerType } from './customer.type.js';
import type { CustomerRow } from './customer.rows.js';

/**
 * Everything the store holds about one customer (an access request): the profile, and through its
 * fields the events, flow runs and messages (here) and the orders and returns (the returns
 * subgraph, matched by the email and phone number shown). The REST export streams the same.
 */
@Directive('@key(fields: "id")')
@ObjectType('CustomerExport', { description: 'Everything the store holds about one customer (scope privacy_read); each list pages like every connection.' })
export class CustomerExportType {
  @Field(() => ID, { description: 'Names this export (a store and identifiers), not a stored record.' })
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => ID, { nullable: true, description: "The profile's id, when the store has a profile with the identifier." })
  customerId!: string | null;

  @Field(() => String, { nullable: true, description: "The email the export covers: the profile's, else the one asked for." })
  email!: string | null;

  @Field(() => String, { nullable: true, description: "The phone number the export covers: the profile's, else the one asked for." })
  phoneNumber!: string | null;

  @Field(() => CustomerType, { nullable: true })
  customer!: CustomerRow | null;
}
