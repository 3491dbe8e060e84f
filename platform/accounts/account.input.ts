import { Field, InputType } from 'type-graphql';

@InputType()
export class CreateAccountInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: 'Name of the first store; defaults to the account name.' })
  storeName?: string;
}

@InputType()
export class UpdateStoreInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'An IANA time zone name (e.g. Europe/Berlin); null clears it (UTC).' })
  timeZone?: string | null;
}
