import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType('QuietHours', { description: 'No marketing send between these local times (the customer\'s time zone, else the store\'s); a send waits until they end.' })
export class QuietHoursType {
  @Field(() => String, { description: 'HH:MM (HH:MM:SS when it has seconds), inclusive.' })
  start!: string;

  @Field(() => String, { description: 'HH:MM, exclusive; before start means the next day.' })
  end!: string;
}

@ObjectType('MessagingSettings', { description: "A store's rules for marketing sends (docs/consent.md)." })
export class MessagingSettingsType {
  @Field(() => ID)
  storeId!: string;

  @Field(() => QuietHoursType, { nullable: true, description: 'null: none.' })
  quietHours!: QuietHoursType | null;

  @Field(() => Int, { nullable: true, description: 'Smart sending: no second marketing message on a channel to a customer within this many hours (null: off).' })
  smartSendingHours!: number | null;

  @Field(() => Boolean, { description: 'Whether an inbound SMS URL is set up (rotateInboundSmsSecret).' })
  inboundSms!: boolean;
}

@InputType('QuietHoursInput')
export class QuietHoursInput {
  @Field(() => String, { description: 'HH:MM (or HH:MM:SS), 24-hour local time.' })
  start!: string;

  @Field(() => String)
  end!: string;
}

@InputType('MessagingSettingsInput', { description: 'The given settings change; null clears one; an omitted one stays.' })
export class MessagingSettingsInput {
  @Field(() => QuietHoursInput, { nullable: true })
  quietHours?: QuietHoursInput | null;

  @Field(() => Int, { nullable: true, description: '1 to 720 hours, or null (off).' })
  smartSendingHours?: number | null;
}

@ObjectType('InboundSmsEndpoint', { description: 'Where the SMS provider posts replies (STOP, START); shown once, when made.' })
export class InboundSmsEndpointType {
  @Field(() => String, { description: 'The URL to give the provider as its inbound message webhook (POST, form-encoded or JSON).' })
  url!: string;
}
