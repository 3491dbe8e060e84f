import { Field, Int, ObjectType } from 'type-graphql';

/**
 * What other subgraphs match a segment's customers by: their emails (lower case) and phone
 * numbers, as the returns subgraph finds a customer's orders (`returnStats(filter: {segment})`).
 */
@ObjectType('SegmentContacts')
export class SegmentContactsType {
  @Field(() => [String], { description: "The members' emails, lower case, distinct." })
  emails!: string[];

  @Field(() => [String], { description: "The members' phone numbers (E.164), distinct." })
  phoneNumbers!: string[];

  @Field(() => Int, { description: 'How many customers match.' })
  members!: number;
}
