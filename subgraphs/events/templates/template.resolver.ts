import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, ID, Info, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { invalid, notFound } from '../../../platform/errors.js';
import { authorizeStoreAccess, visible } from '../../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { selects } from '../../../platform/graphql/selection.js';
import { pageRequest } from '../../../platform/api/pagination.js';
import type { CustomEventService } from '../custom-event.service.js';
import type { CustomerService } from '../customers/customer.service.js';
import { TemplateRenderError, sampleScope, type TemplateScope } from './template-engine.service.js';
import { templateScope } from './template.view.js';
import type { TemplateRow, TemplateService } from './template.service.js';
import { MessageTemplateConnection, MessageTemplateType, TemplateInput, TemplatePreviewInput, TemplatePreviewType, UpdateTemplateInput } from './template.type.js';

export interface TemplateResolverDeps {
  templates: TemplateService;
  events: CustomEventService;
  customers: CustomerService;
  accounts: AccountsService;
}

@Resolver(() => MessageTemplateType)
export class TemplateResolver {
  constructor(private readonly deps: TemplateResolverDeps) {}

  @Mutation(() => MessageTemplateType, { description: 'A Liquid template for flow messages; one that does not parse is refused with its line.' })
  async createTemplate(@Arg('storeId', () => ID) storeId: string, @Arg('input', () => TemplateInput) input: TemplateInput, @Ctx() ctx: GraphQLContext): Promise<TemplateRow> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'flows_write');
    return this.deps.templates.create(storeId, input);
  }

  @Mutation(() => MessageTemplateType, { description: 'Changes the given fields of a template; sends from then on use the new text.' })
  async updateTemplate(@Arg('id', () => ID) id: string, @Arg('input', () => UpdateTemplateInput) input: UpdateTemplateInput, @Ctx() ctx: GraphQLContext): Promise<TemplateRow> {
    const current = visible(ctx, await this.deps.templates.find(id));
    if (!current) throw notFound('not-found', `No template ${id}.`);
    await authorizeStoreAccess(ctx, this.deps.accounts, current.storeId, 'flows_write');
    // An omitted (or null) field stays; only the subject can be cleared, with null.
    return this.deps.templates.update(current, {
      name: input.name ?? undefined,
      channel: input.channel ?? undefined,
      subject: input.subject,
      body: input.body ?? undefined,
    });
  }

  @Query(() => MessageTemplateConnection, { description: "The store's templates, newest first." })
  async templates(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<TemplateRow>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'flows_read');
    return toConnection(await this.deps.templates.list(storeId, pageRequest(first, after, { list: 'templates', storeId }, selects(info, 'totalCount'))));
  }

  @Query(() => TemplatePreviewType, {
    description: "Renders a template as a send would: for a real event (and its customer, or customerId), for a customer with a sample event, or for sample values.",
  })
  async previewTemplate(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => TemplatePreviewInput) input: TemplatePreviewInput,
    @Arg('eventId', () => ID, { nullable: true }) eventId: string | undefined,
    @Arg('customerId', () => ID, { nullable: true }) customerId: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<{ subject: string | null; body: string }> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'flows_read');
    const errors = this.deps.templates.problems({ name: '', ...input }, '/input', { requireName: false });
    if (errors.length) throw invalid('validation-failed', `The template is invalid: ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}`, errors);
    const scope = await this.scope(storeId, eventId, customerId);
    try {
      const { engine } = this.deps.templates;
      return { subject: input.subject ? await engine.render(input.subject, scope) : null, body: await engine.render(input.body, scope) };
    } catch (err) {
      if (err instanceof TemplateRenderError) throw invalid('validation-failed', `The template cannot be rendered: ${err.message}`, [{ pointer: '/input/body', detail: err.message }]);
      throw err;
    }
  }

  private async scope(storeId: string, eventId: string | undefined, customerId: string | undefined): Promise<TemplateScope> {
    const store = { id: storeId, name: (await this.deps.accounts.stores([storeId])).get(storeId)?.name ?? '' };
    const sample = sampleScope(store);
    if (!eventId && !customerId) return sample;
    const [event] = eventId ? await this.deps.events.findByIds([eventId]) : [];
    if (eventId && (!event || event.storeId !== storeId)) throw notFound('not-found', `No event ${eventId} in this store.`);
    const [customer] = await this.deps.customers.findByIds([customerId ?? event!.customerId]);
    if (!customer || customer.storeId !== storeId) throw notFound('not-found', `No customer ${customerId} in this store.`);
    return templateScope(event ?? null, customer, store, sample.event);
  }
}
