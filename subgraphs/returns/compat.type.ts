import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { RETURN_TIME_FIELDS } from './return.schemas.js';
import { ReturnType } from './return.type.js';

/** The types of the operations only the compatibility API calls (compat.resolver.ts). */

export const ReturnTimeFieldEnum = Object.fromEntries(RETURN_TIME_FIELDS.map((s) => [s, s])) as Record<string, string>;
registerEnumType(ReturnTimeFieldEnum, { name: 'ReturnTimeField', description: 'The time a window of returns is taken on' });

@ObjectType('ReturnChange', { description: 'A change made only if its condition held' })
export class ReturnChangeType {
  @Field(() => Boolean, { description: 'Whether the condition held and the change was made (or queued)' }) applied!: boolean;
  @Field(() => ReturnType, { description: 'The return as it is after the request' }) return!: ReturnType;
}

@ObjectType('ReturnWindowPageInfo')
export class ReturnWindowPageInfoType {
  @Field(() => Boolean) hasNextPage!: boolean;
  @Field(() => Boolean) hasPreviousPage!: boolean;
  @Field(() => String, { nullable: true, description: 'Pass as `before` for the page before this one' }) startCursor!: string | null;
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the page after this one' }) endCursor!: string | null;
}

@ObjectType('ReturnWindowPage', { description: 'A page of the returns of a time window, newest first' })
export class ReturnWindowPageType {
  @Field(() => [ReturnType]) nodes!: ReturnType[];
  @Field(() => ReturnWindowPageInfoType) pageInfo!: ReturnWindowPageInfoType;
}
