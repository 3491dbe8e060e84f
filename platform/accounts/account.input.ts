import { Field, InputType } from 'type-graphql';

@InputType()
export class CreateAccountInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: 'Name of the first store; defaults to the account name.' })
  storeName?: string;

  @Field(() => String, { nullable: true, description: "The account's contact: told by email (when SMTP is set) when a webhook subscription of the account is disabled." })
  contactEmail?: string | null;
}

@InputType()
export class UpdateStoreInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'An IANA time zone name (e.g. Europe/Berlin); null clears it (UTC).' })
  timeZone?: string | null;
}
