import { Field, InputType } from 'type-graphql';

@InputType()
export class CreateLocationInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  externalId?: string | null;
}
