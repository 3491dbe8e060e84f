import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { ErasureAction, SuppressionMode } from './participants.js';
import type { ErasureStatus } from './privacy.schemas.js';

// The enums carry the REST spellings (decisions section 14).
const enumOf = <const T extends string>(values: readonly T[]) => Object.fromEntries(values.map((v) => [v, v])) as { [K in T]: K };
export const SuppressionModeEnum = enumOf<SuppressionMode>(['DROP', 'REFUSE']);
const ErasureStatusEnum = enumOf<ErasureStatus>(['PENDING', 'RUNNING', 'COMPLETED', 'FAILED']);
const ErasureActionEnum = enumOf<ErasureAction>(['REMOVED', 'ANONYMISED', 'SUPPRESSED']);
registerEnumType(SuppressionModeEnum, { name: 'SuppressionMode', description: 'Later events with an erased identifier: DROP accepts and stores nothing; REFUSE answers 409 customer-erased.' });
registerEnumType(ErasureStatusEnum, { name: 'ErasureStatus' });
registerEnumType(ErasureActionEnum, { name: 'ErasureAction' });

@ObjectType('ErasureCount')
class ErasureCountType {
  @Field(() => String, { description: 'The kind of record (customer, custom_event, order, webhook_message, job, ...).' })
  kind!: string;

  @Field(() => ErasureActionEnum)
  action!: ErasureAction;

  @Field(() => Int)
  count!: number;
}

@ObjectType('ErasureRequest', { description: 'A customer erasure: queued, running or done, with what it removed per kind of record. The identifier it named is not kept.' })
export class ErasureRequestType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => ErasureStatusEnum)
  status!: ErasureStatus;

  @Field(() => String, { description: 'Which identifier the request named: customerId, email or phoneNumber.' })
  requestedBy!: string;

  @Field(() => SuppressionModeEnum)
  suppression!: SuppressionMode;

  @Field(() => [ID], { description: 'The service ids of the erased profiles.' })
  customerIds!: string[];

  @Field(() => [ErasureCountType])
  counts!: ErasureCountType[];

  // DateTime serialises the documents' RFC 3339 strings as it does dates.
  @Field(() => Date)
  requestedAt!: string;

  @Field(() => Date, { nullable: true })
  completedAt!: string | null;
}

@ObjectType('DataRetention', { description: "How long the store keeps each kind of record, in days (null: until erased). Enforced by a scheduled job." })
export class DataRetentionType {
  @Field(() => Int, { nullable: true, description: 'Custom events, by their eventTimestamp (default: until erased).' })
  customEventDays!: number | null;

  @Field(() => Int, { nullable: true, description: 'Messages flows sent (default 365).' })
  messageDays!: number | null;

  @Field(() => Int, { nullable: true, description: 'Finished flow runs and their steps (default 90).' })
  flowRunDays!: number | null;

  @Field(() => Int, { nullable: true, description: 'Webhook delivery logs and sent webhook messages (default 30).' })
  webhookLogDays!: number | null;
}
