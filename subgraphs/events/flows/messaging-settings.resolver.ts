import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { ConsentService } from '../customers/consent.service.js';
import { formatLocalTime } from './messaging-settings.rules.js';
import type { MessagingSettings, MessagingSettingsService } from './messaging-settings.service.js';
import { InboundSmsEndpointType, MessagingSettingsInput, MessagingSettingsType } from './messaging-settings.type.js';

export interface MessagingSettingsResolverDeps {
  settings: MessagingSettingsService;
  consent: ConsentService;
  accounts: AccountsService;
  /** Where providers reach the service (PUBLIC_URL). */
  publicUrl: string;
}

const shown = (s: MessagingSettings): MessagingSettingsType => ({
  storeId: s.storeId,
  quietHours: s.quietHours ? { start: formatLocalTime(s.quietHours.start), end: formatLocalTime(s.quietHours.end) } : null,
  smartSendingHours: s.smartSendingHours,
  inboundSms: s.inboundSms,
});

/** The inbound SMS URL of a store, with its secret in the query (request paths are logged; queries are not). */
const inboundSmsUrl = (publicUrl: string, storeId: string, secret: string) => `${publicUrl}/sms/inbound/${encodeURIComponent(storeId)}?secret=${encodeURIComponent(secret)}`;

@Resolver(() => MessagingSettingsType)
export class MessagingSettingsResolver {
  constructor(private readonly deps: MessagingSettingsResolverDeps) {}

  @Query(() => MessagingSettingsType, { description: "The store's quiet hours and smart sending (scope flows_read)." })
  async messagingSettings(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext): Promise<MessagingSettingsType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'flows_read');
    return shown(await this.deps.settings.get(storeId));
  }

  @Mutation(() => MessagingSettingsType, { description: 'Changes quiet hours and smart sending; sends from then on follow them (scope flows_write).' })
  async updateMessagingSettings(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => MessagingSettingsInput) input: MessagingSettingsInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<MessagingSettingsType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'flows_write');
    return shown(await this.deps.settings.update(storeId, input));
  }

  @Mutation(() => InboundSmsEndpointType, {
    description: "Makes the store's inbound SMS URL (a new secret; the previous URL stops working): give it to the SMS provider so STOP and START replies reach the service (scope flows_write).",
  })
  async rotateInboundSmsSecret(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext): Promise<InboundSmsEndpointType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'flows_write');
    return { url: inboundSmsUrl(this.deps.publicUrl, storeId, await this.deps.consent.rotateInboundSmsSecret(storeId)) };
  }
}
