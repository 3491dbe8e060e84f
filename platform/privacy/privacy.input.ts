import { Field, ID, InputType } from 'type-graphql';
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
