import { Directive, Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { ConnectionType } from '../../../platform/graphql/connection.js';
import { CustomEventType } from '../custom-event.type.js';
import { MessageType } from '../flows/flow.type.js';

export enum TimelineEntryKind {
  EVENT = 'EVENT',
  RETURN_STATUS_CHANGE = 'RETURN_STATUS_CHANGE',
  MESSAGE = 'MESSAGE',
}
registerEnumType(TimelineEntryKind, {
  name: 'TimelineEntryKind',
  description: 'EVENT: an event of the customer. RETURN_STATUS_CHANGE: a return of theirs was created or changed status (with the return). MESSAGE: a flow sent them a message.',
});

/** The returns subgraph's return, referenced by id: the gateway fetches its fields there (scoped like every lookup). */
@Directive('@key(fields: "id", resolvable: false)')
@ObjectType('Return')
export class ReturnReference {
  @Field(() => ID)
  id!: string;
}

@ObjectType('TimelineEntry', { description: "One line of a customer's timeline: the entity it is about, not a copy of it." })
class TimelineEntryType {
  @Field(() => ID, { description: 'The event or message id.' })
  id!: string;

  @Field(() => Date, { description: 'When it happened (an event: its eventTimestamp; a message: when it was sent or recorded).' })
  at!: Date;

  @Field(() => TimelineEntryKind)
  kind!: TimelineEntryKind;

  @Field(() => CustomEventType, { nullable: true, description: 'EVENT and RETURN_STATUS_CHANGE: the event (a status change is a return.statusChanged event).' })
  event!: unknown;

  @Field(() => ReturnReference, { nullable: true, description: 'RETURN_STATUS_CHANGE: the return, as the returns subgraph shows it now (null when the caller cannot see it).' })
  return!: ReturnReference | null;

  @Field(() => String, { nullable: true, description: 'RETURN_STATUS_CHANGE: the status it moved to.' })
  status!: string | null;

  @Field(() => String, { nullable: true, description: 'RETURN_STATUS_CHANGE: the status before (null on creation).' })
  previousStatus!: string | null;

  @Field(() => MessageType, { nullable: true, description: 'MESSAGE: the message (only with flows_read).' })
  message!: unknown;
}

export const TimelineConnection = ConnectionType(TimelineEntryType, 'TimelineEntry');
