import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('ImportedReturnResult')
export class ImportedReturnResultType {
  @Field(() => Int, { description: "The return's index in the request" }) index!: number;
  @Field(() => String, { description: 'created (also for a return imported before under the same reference) or error' }) status!: string;
  @Field(() => ID, { nullable: true }) returnId?: string;
  @Field(() => String, { nullable: true, description: 'Every violation, each with its pointer into the return' }) error?: string;
}

@ObjectType('ImportReturnsPayload')
export class ImportReturnsPayloadType {
  @Field(() => Int) totalCount!: number;
  @Field(() => Int) processedCount!: number;
  @Field(() => Int) errorCount!: number;
  @Field(() => [ImportedReturnResultType]) results!: ImportedReturnResultType[];
}
