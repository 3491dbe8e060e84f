import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { ConnectionType } from '../../../platform/graphql/connection.js';
import { CONSENT_CHANNELS, CONSENT_KINDS, CONSENT_METHODS, CONSENT_STATUSES, STORED_STATUSES } from './consent.rules.js';

/** GraphQL enums carry the REST spellings exactly (the `customer-subscriptions` body's). */
const enumOf = (values: readonly string[]) => Object.fromEntries(values.map((v) => [v, v])) as Record<string, string>;

export const ConsentChannelEnum = enumOf(CONSENT_CHANNELS);
registerEnumType(ConsentChannelEnum, { name: 'ConsentChannel' });
export const ConsentKindEnum = enumOf(CONSENT_KINDS);
registerEnumType(ConsentKindEnum, { name: 'ConsentKind', description: 'marketing (flows send it only to subscribed customers) or transactional (about an order or a return: sent unless unsubscribed).' });
export const ConsentStatusEnum = enumOf(CONSENT_STATUSES);
registerEnumType(ConsentStatusEnum, { name: 'ConsentStatus', description: 'never_subscribed: nothing was ever recorded.' });
const StoredConsentStatusEnum = enumOf(STORED_STATUSES);
registerEnumType(StoredConsentStatusEnum, { name: 'ConsentStatusChange', description: 'The statuses a change can set.' });
const ConsentMethodEnum = enumOf(CONSENT_METHODS);
registerEnumType(ConsentMethodEnum, { name: 'ConsentMethod', description: 'How a consent changed: API, IMPORT, DASHBOARD, UNSUBSCRIBE_LINK, ONE_CLICK (RFC 8058), SMS_KEYWORD (STOP, START), MERGE.' });

export enum ConsentSource {
  API = 'API',
  IMPORT = 'IMPORT',
  DASHBOARD = 'DASHBOARD',
}
registerEnumType(ConsentSource, { name: 'ConsentSource', description: 'How the history records a change made through GraphQL: API, IMPORT (from another system) or DASHBOARD (a person in the merchant team).' });

@ObjectType('CustomerConsent', { description: 'One (channel, kind) of a customer.' })
export class CustomerConsentType {
  @Field(() => ConsentChannelEnum)
  channel!: string;

  @Field(() => ConsentKindEnum)
  kind!: string;

  @Field(() => ConsentStatusEnum)
  status!: string;

  @Field(() => ConsentMethodEnum, { nullable: true, description: 'How the current status was set (null: never subscribed).' })
  method!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the current status took effect.' })
  changedAt!: Date | null;
}

@ObjectType('ConsentChange', { description: 'A change of a consent, kept (who, when, how).' })
class ConsentChangeType {
  @Field(() => ID)
  id!: string;

  @Field(() => ConsentChannelEnum)
  channel!: string;

  @Field(() => ConsentKindEnum)
  kind!: string;

  @Field(() => StoredConsentStatusEnum)
  status!: string;

  @Field(() => StoredConsentStatusEnum, { nullable: true, description: 'null: never subscribed before.' })
  previousStatus!: string | null;

  @Field(() => ConsentMethodEnum)
  method!: string;

  @Field(() => String, { description: '`secret:<secret id>`, `admin`, or `customer` (a link, a one-click POST, an SMS reply).' })
  actor!: string;

  @Field(() => String, { nullable: true, description: 'The email or phone number the consent was about.' })
  address!: string | null;

  @Field(() => String, { nullable: true })
  detail!: string | null;

  @Field(() => Date, { description: 'When it took effect (a client may date it).' })
  changedAt!: Date;

  @Field(() => Date, { description: 'When the service recorded it.' })
  recordedAt!: Date;
}
export const ConsentChangeConnection = ConnectionType(ConsentChangeType, 'ConsentChange');

@ObjectType('ChannelSuppression', { description: 'A channel nothing is sent on, marketing or transactional.' })
export class ChannelSuppressionType {
  @Field(() => ConsentChannelEnum)
  channel!: string;

  @Field(() => String)
  reason!: string;

  @Field(() => Date)
  createdAt!: Date;
}

@ObjectType('UpdatedEmailSubscriptions')
export class UpdatedEmailSubscriptionsType {
  @Field(() => Boolean, { nullable: true })
  marketing?: boolean;
}

@ObjectType('UpdatedSmsSubscriptions')
export class UpdatedSmsSubscriptionsType {
  @Field(() => Boolean, { nullable: true })
  marketing?: boolean;

  @Field(() => Boolean, { nullable: true })
  transactional?: boolean;
}

@ObjectType('UpdatedSubscriptions')
export class UpdatedSubscriptionsType {
  @Field(() => UpdatedEmailSubscriptionsType, { nullable: true })
  email?: UpdatedEmailSubscriptionsType;

  @Field(() => UpdatedSmsSubscriptionsType, { nullable: true })
  sms?: UpdatedSmsSubscriptionsType;
}

@ObjectType('CustomerSubscriptionsResult', { description: 'The answer of `POST /v2.2/stores/{storeId}/customer-subscriptions`.' })
export class CustomerSubscriptionsResultType {
  @Field(() => Boolean)
  success!: boolean;

  @Field(() => String)
  message!: string;

  @Field(() => UpdatedSubscriptionsType, { description: 'Per given subscription, whether it was recorded.' })
  updatedSubscriptions!: UpdatedSubscriptionsType;

  @Field(() => [ID], { description: 'The customers the changes were recorded for (created when missing).' })
  customerIds!: string[];

  @Field(() => String, { description: 'The REST answer, as JSON text.' })
  restJson!: string;
}

@InputType('CustomerConsentInput')
export class CustomerConsentInput {
  @Field(() => ConsentChannelEnum)
  channel!: 'email' | 'sms';

  @Field(() => ConsentKindEnum)
  kind!: 'marketing' | 'transactional';

  @Field(() => StoredConsentStatusEnum)
  status!: 'subscribed' | 'confirmed' | 'unsubscribed';

  @Field(() => Date, { nullable: true, description: 'When the customer gave or withdrew it; now when omitted. An older change never replaces a newer one.' })
  at?: Date | null;

  @Field(() => ConsentSource, { nullable: true, defaultValue: ConsentSource.DASHBOARD })
  source?: ConsentSource;
}
