import { Arg, Ctx, Field, ID, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { requireAdmin } from '../api/auth.js';
import { countDeadLetters, deadLetterQueues, listDeadLetters, retryDeadLetters } from './dead-letters.js';
import { invalid } from '../errors.js';
import type { GraphQLContext } from '../graphql/context.js';
import { JSONScalar } from '../graphql/scalars.js';
import type { PgBoss } from './queue.js';

@ObjectType('DeadLetter', { description: 'A job that exhausted its retries (or could never be processed), kept with its last error.' })
class DeadLetterType {
  @Field(() => ID, { description: 'The job id in the dead-letter queue (what retryDeadLetters takes).' })
  id!: string;

  @Field(() => String, { description: 'The work queue it failed in.' })
  queue!: string;

  @Field(() => JSONScalar, { description: 'The job data as queued.' })
  data!: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'What the last attempt failed with.' })
  error!: unknown;

  @Field(() => Date)
  deadLetteredAt!: Date;
}

@ObjectType('DeadLetterCount')
class DeadLetterCountType {
  @Field(() => String)
  queue!: string;

  @Field(() => Int)
  count!: number;
}

/** Dead letters of every work queue, for the admin token (in the platform subgraph, beside the account administration). */
@Resolver()
export class DeadLetterResolver {
  constructor(private readonly boss: PgBoss) {}

  @Query(() => [DeadLetterType], { description: 'Admin token only: dead-lettered jobs of a work queue (or of all), oldest first.' })
  async deadLetters(
    @Arg('queue', () => String, { nullable: true }) queue: string | undefined,
    @Arg('first', () => Int, { nullable: true, defaultValue: 100 }) first: number,
    @Ctx() ctx: GraphQLContext,
  ) {
    requireAdmin(ctx.auth);
    if (queue !== undefined) await this.knownQueue(queue);
    return listDeadLetters(this.boss, queue, Math.max(1, Math.min(first, 500)));
  }

  @Query(() => [DeadLetterCountType], { description: 'Admin token only: how many dead letters each work queue holds.' })
  async deadLetterCounts(@Ctx() ctx: GraphQLContext) {
    requireAdmin(ctx.auth);
    return countDeadLetters(this.boss);
  }

  @Mutation(() => Int, { description: 'Admin token only: moves dead letters of a queue (all, or the given ids) back to work. Returns how many moved.' })
  async retryDeadLetters(@Arg('queue', () => String) queue: string, @Arg('ids', () => [ID], { nullable: true }) ids: string[] | undefined, @Ctx() ctx: GraphQLContext) {
    requireAdmin(ctx.auth);
    await this.knownQueue(queue);
    return retryDeadLetters(this.boss, queue, ids);
  }

  private async knownQueue(queue: string): Promise<void> {
    const queues = await deadLetterQueues(this.boss);
    if (!queues.includes(queue)) throw invalid('validation-failed', 'Unknown work queue.', [{ pointer: '/queue', detail: `must be one of ${queues.join(', ')}` }]);
  }
}
