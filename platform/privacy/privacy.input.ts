import { Field, ID, InputType, Int } from 'type-graphql';
import { oneIdentifier } from './privacy.schemas.js';

@InputType('CustomerIdentifierInput', { description: 'Exactly one of the three.' })
export class CustomerIdentifierInput {
  @Field(() => ID, { nullable: true, description: 'The service customer id.' })
  id?: string;

  @Field(() => String, { nullable: true, description: 'Compared case-insensitively.' })
  email?: string;

  @Field(() => String, { nullable: true, description: 'E.164.' })
  phoneNumber?: string;
}

/** The identifier of a GraphQL `by`, checked like a REST body's (pointers under `/by`). */
export const identifierOf = (by: CustomerIdentifierInput) => oneIdentifier({ customerId: by.id, email: by.email, phoneNumber: by.phoneNumber }, '/by', { customerId: 'id' });

@InputType('DataRetentionInput', { description: 'Each given value replaces the stored one (null: until erased); omitted ones stay. Days from 1 to 36500.' })
export class DataRetentionInput {
  @Field(() => Int, { nullable: true })
  customEventDays?: number | null;

  @Field(() => Int, { nullable: true })
  messageDays?: number | null;

  @Field(() => Int, { nullable: true })
  flowRunDays?: number | null;

  @Field(() => Int, { nullable: true })
  webhookLogDays?: number | null;
}
