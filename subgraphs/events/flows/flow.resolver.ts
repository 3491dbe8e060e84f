import DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { authorizeStore } from '../../../platform/api/auth.js';
import { notFound } from '../../../platform/errors.js';
import { authorizeStoreAccess, visible } from '../../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../../platform/graphql/connection.js';
import { memoize, type GraphQLContext } from '../../../platform/graphql/context.js';
import { batchById } from '../../../platform/graphql/loaders.js';
import { JSONScalar as GraphQLJSON } from '../../../platform/graphql/scalars.js';
import { selects } from '../../../platform/graphql/selection.js';
import { pageRequest } from '../../../platform/api/pagination.js';
import { customerLoader } from '../customers/customer.resolver.js';
import type { CustomerService } from '../customers/customer.service.js';
import type { CustomerRow } from '../customers/customer.rows.js';
import { CustomerType } from '../customers/customer.type.js';
import { publicSteps } from './flow.schemas.js';
import { FlowInput, FlowReentryMode, FlowStatus } from './flow.input.js';
import { isTransactionalTrigger } from './return-trigger.js';
import type { FlowRow, FlowRunRow, FlowRunStepRow, FlowService, MessageRow } from './flow.service.js';
import { flowRunDocument, messageDocument } from './flow.json.js';
import { FlowConnection, FlowReentryType, FlowRunConnection, FlowRunStepType, FlowRunType, FlowTriggerType, FlowType, MessageConnection, MessageType } from './flow.type.js';

export interface FlowResolverDeps {
  flows: FlowService;
  customers: CustomerService;
  accounts: AccountsService;
}

function flowLoader(ctx: GraphQLContext, flows: FlowService) {
  return memoize(ctx, 'events.flows', () => new DataLoader<string, FlowRow | null>(batchById((ids) => flows.findByIds(ids))));
}

/** The steps of each run of a page, in one query. */
function runStepsLoader(ctx: GraphQLContext, flows: FlowService) {
  return memoize(
    ctx,
    'events.flow-run-steps',
    () =>
      new DataLoader<string, FlowRunStepRow[]>(async (runIds) => {
        const rows = await flows.stepsOf(runIds);
        return runIds.map((id) => rows.filter((r) => r.runId === id));
      }),
  );
}

/** A flow by id for the caller, or a 404 (another account's ids are unknown ids); then the scope (403). */
async function flowFor(ctx: GraphQLContext, deps: FlowResolverDeps, id: string, scope: 'flows_read' | 'flows_write'): Promise<FlowRow> {
  const flow = visible(ctx, await flowLoader(ctx, deps.flows).load(id));
  if (!flow) throw notFound('not-found', `No flow ${id}.`);
  await authorizeStoreAccess(ctx, deps.accounts, flow.storeId, scope);
  return flow;
}

@Resolver(() => FlowType)
export class FlowResolver {
  constructor(private readonly deps: FlowResolverDeps) {}

  @Mutation(() => FlowType, { description: 'A flow: runs start for the processed events that match its trigger and audience. Returns the signing secret once.' })
  async createFlow(@Arg('storeId', () => ID) storeId: string, @Arg('input', () => FlowInput) input: FlowInput, @Ctx() ctx: GraphQLContext): Promise<FlowRow> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'flows_write');
    return this.deps.flows.create(storeId, input);
  }

  @Mutation(() => FlowType, { description: 'A new version of the flow; runs already started keep the version they started with.' })
  async updateFlow(@Arg('id', () => ID) id: string, @Arg('input', () => FlowInput) input: FlowInput, @Ctx() ctx: GraphQLContext): Promise<FlowRow> {
    return this.deps.flows.update(await flowFor(ctx, this.deps, id, 'flows_write'), input);
  }

  @Mutation(() => FlowType, { description: 'PAUSED: events processed from now on start nothing (runs already started go on). ACTIVE: events processed from now on start runs.' })
  async setFlowStatus(@Arg('id', () => ID) id: string, @Arg('status', () => FlowStatus) status: FlowStatus, @Ctx() ctx: GraphQLContext): Promise<FlowRow> {
    await flowFor(ctx, this.deps, id, 'flows_write');
    return this.deps.flows.setStatus(id, status);
  }

  @Query(() => FlowConnection, { description: "The store's flows, newest first." })
  async flows(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<FlowRow>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'flows_read');
    return toConnection(await this.deps.flows.list(storeId, pageRequest(first, after, { list: 'flows', storeId }, selects(info, 'totalCount'))));
  }

  @Query(() => FlowType, { nullable: true, description: 'A flow by id; null when unknown.' })
  async flow(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<FlowRow | null> {
    const flow = visible(ctx, await flowLoader(ctx, this.deps.flows).load(id));
    if (!flow) return null;
    await authorizeStoreAccess(ctx, this.deps.accounts, flow.storeId, 'flows_read');
    return flow;
  }

  @Query(() => FlowRunConnection, { description: "A flow's runs, newest first." })
  async flowRuns(
    @Arg('flowId', () => ID) flowId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<FlowRunRow>> {
    await flowFor(ctx, this.deps, flowId, 'flows_read');
    return toConnection(await this.deps.flows.runs({ flowId }, pageRequest(first, after, { list: 'flow-runs', flowId }, selects(info, 'totalCount'))));
  }

  @Query(() => MessageConnection, { description: 'What flows sent (or recorded) to whom, newest first; by customer and/or flow.' })
  async messages(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('customerId', () => ID, { nullable: true }) customerId: string | undefined,
    @Arg('flowId', () => ID, { nullable: true }) flowId: string | undefined,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<MessageRow>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'flows_read');
    const request = pageRequest(first, after, { list: 'messages', storeId, customerId, flowId }, selects(info, 'totalCount'));
    return toConnection(await this.deps.flows.messages({ storeId, customerId, flowId }, request));
  }

  @FieldResolver(() => FlowTriggerType)
  trigger(@Root() flow: FlowRow): FlowTriggerType {
    return { eventName: flow.definition.trigger.eventName, where: flow.definition.trigger.where };
  }

  @FieldResolver(() => GraphQLJSON, { nullable: true, description: 'The audience (a segment definition), as given.' })
  audience(@Root() flow: FlowRow): unknown {
    return flow.definition.audience;
  }

  @FieldResolver(() => GraphQLJSON, { description: 'The steps in the shape of FlowStepInput (bearer tokens masked; a send step without `kind` is marketing).' })
  steps(@Root() flow: FlowRow): unknown {
    return publicSteps(flow.definition.steps);
  }

  @FieldResolver(() => FlowReentryType, { description: 'How often a customer may enter the flow.' })
  reentry(@Root() flow: FlowRow): FlowReentryType {
    const reentry = flow.definition.reentry ?? { mode: 'EVERY_EVENT' };
    return { mode: reentry.mode as FlowReentryMode, days: reentry.mode === 'ONCE_PER_DAYS' ? reentry.days : null };
  }

  @FieldResolver(() => Boolean, { description: "Whether its message steps are transactional unless they say otherwise (the return.statusChanged trigger: about the customer's own order)." })
  transactional(@Root() flow: FlowRow): boolean {
    return isTransactionalTrigger(flow.definition.trigger.eventName);
  }
}

@Resolver(() => FlowRunType)
export class FlowRunResolver {
  constructor(private readonly deps: FlowResolverDeps) {}

  @FieldResolver(() => FlowType, { nullable: true, description: 'The flow as it is now (the run follows `version`).' })
  async flow(@Root() run: FlowRunRow, @Ctx() ctx: GraphQLContext): Promise<FlowRow | null> {
    return flowLoader(ctx, this.deps.flows).load(run.flowId);
  }

  @FieldResolver(() => CustomerType, { nullable: true })
  async customer(@Root() run: FlowRunRow, @Ctx() ctx: GraphQLContext): Promise<CustomerRow | null> {
    return customerLoader(ctx, this.deps.customers).load(run.customerId);
  }

  @FieldResolver(() => [FlowRunStepType], { description: 'Each step the run reached, in order, with its status and why.' })
  async steps(@Root() run: FlowRunRow, @Ctx() ctx: GraphQLContext): Promise<FlowRunStepRow[]> {
    return runStepsLoader(ctx, this.deps.flows).load(run.id);
  }

  @FieldResolver(() => String, { description: 'The run with its steps as a customer export shows it, as JSON text.' })
  async restJson(@Root() run: FlowRunRow, @Ctx() ctx: GraphQLContext): Promise<string> {
    return JSON.stringify(flowRunDocument(run, await runStepsLoader(ctx, this.deps.flows).load(run.id)));
  }
}

@Resolver(() => MessageType)
export class MessageResolver {
  @FieldResolver(() => String, { description: 'The message as a customer export shows it, as JSON text.' })
  restJson(@Root() message: MessageRow): string {
    return JSON.stringify(messageDocument(message));
  }
}

/** A customer's runs and messages (the events subgraph owns both). */
@Resolver(() => CustomerType)
export class CustomerFlowsResolver {
  constructor(private readonly deps: FlowResolverDeps) {}

  @FieldResolver(() => FlowRunConnection, { description: "The customer's flow runs, newest first (scope flows_read)." })
  async flowRuns(
    @Root() customer: CustomerRow,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<FlowRunRow>> {
    authorizeStore(ctx.auth, customer.storeId, 'flows_read');
    const request = pageRequest(first, after, { list: 'customer-flow-runs', customerId: customer.id }, selects(info, 'totalCount'));
    return toConnection(await this.deps.flows.runs({ customerId: customer.id }, request));
  }

  @FieldResolver(() => MessageConnection, { description: 'What flows sent (or recorded) to the customer, newest first (scope flows_read).' })
  async messages(
    @Root() customer: CustomerRow,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<MessageRow>> {
    authorizeStore(ctx.auth, customer.storeId, 'flows_read');
    const request = pageRequest(first, after, { list: 'messages', storeId: customer.storeId, customerId: customer.id }, selects(info, 'totalCount'));
    return toConnection(await this.deps.flows.messages({ customerId: customer.id }, request));
  }
}
