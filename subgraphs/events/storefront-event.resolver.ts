import { Arg, Ctx, Field, ID, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { JSONScalar as GraphQLJSON } from '../../platform/graphql/scalars.js';
import type { StorefrontEvents } from './storefront-event.service.js';

@ObjectType('StorefrontEventResult')
export class StorefrontEventResultType {
  @Field(() => Boolean, { description: 'True: accepted as a custom event; false: held until the visitor is identified (by an email or phone in a later event)' })
  queued!: boolean;
}

@Resolver()
export class StorefrontEventResolver {
  constructor(private readonly deps: { storefront: StorefrontEvents; accounts: AccountsService }) {}

  @Mutation(() => StorefrontEventResultType, {
    description:
      "Receives a storefront (Shopify web-pixel) event: `event` is the REST body of POST /stores/{storeId}/storefront/events. It becomes the custom event of its name, through the custom events' acceptance (limits, dedup by eventId, processing).",
  })
  async recordStorefrontEvent(@Arg('storeId', () => ID) storeId: string, @Arg('event', () => GraphQLJSON) event: unknown, @Ctx() ctx: GraphQLContext): Promise<StorefrontEventResultType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'storefront_events_write');
    const { queued } = await this.deps.storefront.accept(storeId, event);
    return { queued };
  }
}
