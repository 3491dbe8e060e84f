import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { ConnectionType } from '../../../platform/graphql/connection.js';

export enum MessageChannel {
  EMAIL = 'EMAIL',
  SMS = 'SMS',
}
registerEnumType(MessageChannel, { name: 'MessageChannel' });

@ObjectType('MessageTemplate')
export class MessageTemplateType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => MessageChannel)
  channel!: MessageChannel;

  @Field(() => String, { nullable: true, description: 'Liquid; EMAIL only.' })
  subject!: string | null;

  @Field(() => String, { description: 'Liquid.' })
  body!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

export const MessageTemplateConnection = ConnectionType(MessageTemplateType, 'MessageTemplate');

@InputType('CreateTemplateInput')
export class TemplateInput {
  @Field(() => String)
  name!: string;

  @Field(() => MessageChannel)
  channel!: MessageChannel;

  @Field(() => String, { nullable: true, description: 'Required for EMAIL, refused for SMS.' })
  subject?: string | null;

  @Field(() => String)
  body!: string;
}

@InputType('UpdateTemplateInput', { description: 'The fields to change; the others stay.' })
export class UpdateTemplateInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => MessageChannel, { nullable: true, description: 'Refused while a flow sends the template on its current channel.' })
  channel?: MessageChannel | null;

  @Field(() => String, { nullable: true })
  subject?: string | null;

  @Field(() => String, { nullable: true })
  body?: string | null;
}

@InputType('TemplatePreviewInput')
export class TemplatePreviewInput {
  @Field(() => MessageChannel)
  channel!: MessageChannel;

  @Field(() => String, { nullable: true })
  subject?: string | null;

  @Field(() => String)
  body!: string;
}

@ObjectType('TemplatePreview')
export class TemplatePreviewType {
  @Field(() => String, { nullable: true })
  subject!: string | null;

  @Field(() => String)
  body!: string;
}
