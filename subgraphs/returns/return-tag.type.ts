import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('ReturnTag', { description: 'A return tag of a store (the name returns show in their tags).' })
export class ReturnTagType {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'Case-sensitive' }) name!: string;
  @Field(() => String, { description: "The pill's colour theme (the real platform's pill-theme names)" }) pillTheme!: string;
  @Field(() => String, { description: 'merchant, redo or flow' }) source!: string;
  @Field(() => ID, { description: 'Stable, never reused' }) numericId!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}
