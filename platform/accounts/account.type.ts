import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType()
export class CreateAccountPayload {
  @Field(() => ID)
  accountId!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String, { description: 'Shown once; only its hash is kept.' })
  apiSecret!: string;

  @Field(() => String, { description: 'Compatibility API key for the store; shown once.' })
  compatKey!: string;
}

@ObjectType({ description: 'An account (administration).' })
export class AccountSummary {
  @Field(() => ID)
  accountId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Int)
  storeCount!: number;
}

@ObjectType({ description: 'A store of an account, with its id for the REST and GraphQL calls that take one.' })
export class StoreSummary {
  @Field(() => ID)
  storeId!: string;

  @Field(() => ID)
  accountId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: 'IANA time zone where analytics buckets start when a query names none; null: UTC.' })
  timeZone!: string | null;

  @Field(() => Date)
  createdAt!: Date;
}

@ObjectType({ description: "An account's contact address." })
export class AccountContact {
  @Field(() => ID)
  accountId!: string;

  @Field(() => String, { nullable: true })
  contactEmail!: string | null;
}
