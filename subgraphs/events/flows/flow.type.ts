import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ConnectionType } from '../../../platform/graphql/connection.js';
import { JSONScalar as GraphQLJSON } from '../../../platform/graphql/scalars.js';
import { MessageChannel } from '../templates/template.type.js';
import { ConsentKindEnum } from '../customers/consent.type.js';
import { FlowReentryMode, FlowStatus } from './flow.input.js';

export enum FlowRunStatus {
  RUNNING = 'RUNNING',
  WAITING = 'WAITING',
  COMPLETED = 'COMPLETED',
  EXITED = 'EXITED',
  FAILED = 'FAILED',
}
registerEnumType(FlowRunStatus, { name: 'FlowRunStatus' });

export enum FlowRunStepStatus {
  DONE = 'DONE',
  SKIPPED = 'SKIPPED',
  FAILED = 'FAILED',
  WAITING = 'WAITING',
}
registerEnumType(FlowRunStepStatus, { name: 'FlowRunStepStatus' });

export enum MessageStatus {
  SENT = 'SENT',
  RECORDED = 'RECORDED',
  FAILED = 'FAILED',
}
registerEnumType(MessageStatus, { name: 'MessageStatus' });

@ObjectType('FlowTrigger')
export class FlowTriggerType {
  @Field(() => String)
  eventName!: string;

  @Field(() => GraphQLJSON, { description: 'The property conditions, as given.' })
  where!: unknown;
}

@ObjectType('FlowReentry')
export class FlowReentryType {
  @Field(() => FlowReentryMode)
  mode!: FlowReentryMode;

  @Field(() => Int, { nullable: true, description: 'ONCE_PER_DAYS: the period.' })
  days!: number | null;
}

@ObjectType('Flow')
export class FlowType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => FlowStatus)
  status!: FlowStatus;

  @Field(() => Int, { description: 'Each update makes a new version; a run keeps the version it started with.' })
  version!: number;

  @Field(() => String, { nullable: true, description: 'The secret webhook steps sign with (Standard Webhooks); returned once, by createFlow.' })
  signingSecret?: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@ObjectType('FlowRunStep')
export class FlowRunStepType {
  @Field(() => String, { description: 'The position in the step tree: `0`, `1.then.0`.' })
  path!: string;

  @Field(() => String, { description: 'wait, condition, send_email, send_sms or webhook.' })
  type!: string;

  @Field(() => FlowRunStepStatus)
  status!: FlowRunStepStatus;

  @Field(() => Date)
  at!: Date;

  @Field(() => String, { nullable: true, description: 'Why: the branch taken, "no email address", the provider error.' })
  detail!: string | null;
}

@ObjectType('FlowRun')
export class FlowRunType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  eventId!: string;

  @Field(() => Int, { description: 'The flow version this run executes.' })
  version!: number;

  @Field(() => FlowRunStatus)
  status!: FlowRunStatus;

  @Field(() => Date)
  startedAt!: Date;

  @Field(() => Date, { nullable: true })
  finishedAt!: Date | null;
}

@ObjectType('Message')
export class MessageType {
  @Field(() => ID)
  id!: string;

  @Field(() => MessageChannel)
  channel!: MessageChannel;

  @Field(() => ConsentKindEnum, { description: 'marketing or transactional, as the step that sent it.' })
  kind!: string;

  @Field(() => String)
  to!: string;

  @Field(() => String, { nullable: true })
  subject!: string | null;

  @Field(() => String)
  body!: string;

  @Field(() => MessageStatus)
  status!: MessageStatus;

  @Field(() => String, { description: 'SMTP, SMS_WEBHOOK or RECORDED.' })
  provider!: string;

  @Field(() => String, { nullable: true, description: "The provider's error when the message FAILED." })
  error!: string | null;

  @Field(() => ID)
  flowId!: string;

  @Field(() => ID)
  flowRunId!: string;

  @Field(() => Date)
  createdAt!: Date;
}

export const FlowConnection = ConnectionType(FlowType, 'Flow');
export const FlowRunConnection = ConnectionType(FlowRunType, 'FlowRun');
export const MessageConnection = ConnectionType(MessageType, 'Message');
