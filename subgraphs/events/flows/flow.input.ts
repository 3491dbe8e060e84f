import { Field, ID, InputType, Int, registerEnumType } from 'type-graphql';
import { PropertyConditionInput, SegmentConditionInput, SegmentDefinitionInput } from '../segments/segment.input.js';
import { ConsentKindEnum } from '../customers/consent.type.js';

export enum FlowStatus {
  ACTIVE = 'ACTIVE',
  PAUSED = 'PAUSED',
}
registerEnumType(FlowStatus, { name: 'FlowStatus' });

@InputType('FlowTriggerInput')
export class FlowTriggerInput {
  @Field(() => String)
  eventName!: string;

  @Field(() => [PropertyConditionInput], { nullable: true, description: "Conditions on the event's properties (segment operators and typing)." })
  where?: PropertyConditionInput[] | null;
}

@InputType('WaitStepInput')
export class WaitStepInput {
  @Field(() => Int, { description: '1 second to 90 days.' })
  seconds!: number;
}

@InputType('ConditionStepInput')
export class ConditionStepInput {
  @Field(() => SegmentConditionInput, {
    description: 'An event condition reads the customer history at that moment; profile fields `event.<key>` read the triggering event.',
  })
  if!: SegmentConditionInput;

  @Field(() => [FlowStepInput], { nullable: true })
  then?: FlowStepInput[] | null;

  @Field(() => [FlowStepInput], { nullable: true })
  else?: FlowStepInput[] | null;
}

@InputType('SendStepInput')
export class SendStepInput {
  @Field(() => ID)
  templateId!: string;

  @Field(() => ConsentKindEnum, {
    nullable: true,
    description:
      'marketing (the default): sent only to customers subscribed to marketing on the channel, outside quiet hours, under smart sending; transactional (about an order or a return): sent unless the customer unsubscribed from transactional messages. A suppressed channel takes neither.',
  })
  kind?: 'marketing' | 'transactional' | null;
}

@InputType('WebhookStepInput')
export class WebhookStepInput {
  @Field(() => String)
  url!: string;

  @Field(() => String, { nullable: true, description: 'Sent as `Authorization: Bearer <token>`; stored encrypted, shown masked.' })
  bearerToken?: string | null;
}

@InputType('FlowStepInput', { description: 'Exactly one field set.' })
export class FlowStepInput {
  @Field(() => WaitStepInput, { nullable: true })
  wait?: WaitStepInput | null;

  @Field(() => ConditionStepInput, { nullable: true })
  condition?: ConditionStepInput | null;

  @Field(() => SendStepInput, { nullable: true })
  sendEmail?: SendStepInput | null;

  @Field(() => SendStepInput, { nullable: true })
  sendSms?: SendStepInput | null;

  @Field(() => WebhookStepInput, { nullable: true })
  webhook?: WebhookStepInput | null;
}

export enum FlowReentryMode {
  EVERY_EVENT = 'EVERY_EVENT',
  ONCE = 'ONCE',
  ONCE_PER_DAYS = 'ONCE_PER_DAYS',
}
registerEnumType(FlowReentryMode, { name: 'FlowReentryMode', description: 'EVERY_EVENT (the default): a run per matching event; ONCE: a customer enters the flow once ever; ONCE_PER_DAYS: at most once per `days`.' });

@InputType('FlowReentryInput')
export class FlowReentryInput {
  @Field(() => FlowReentryMode)
  mode!: FlowReentryMode;

  @Field(() => Int, { nullable: true, description: 'ONCE_PER_DAYS: 1 to 3650 days since the customer last entered the flow.' })
  days?: number | null;
}

@InputType('FlowInput')
export class FlowInput {
  @Field(() => String)
  name!: string;

  @Field(() => FlowTriggerInput)
  trigger!: FlowTriggerInput;

  @Field(() => SegmentDefinitionInput, { nullable: true, description: 'Evaluated for the customer when the event triggers the flow.' })
  audience?: SegmentDefinitionInput | null;

  @Field(() => [FlowStepInput])
  steps!: FlowStepInput[];

  @Field(() => FlowReentryInput, { nullable: true, description: 'How often a customer may enter the flow; every matching event when omitted.' })
  reentry?: FlowReentryInput | null;

  @Field(() => FlowStatus, { nullable: true, description: 'ACTIVE when a flow is created without one; an update without one keeps the status.' })
  status?: FlowStatus | null;
}
