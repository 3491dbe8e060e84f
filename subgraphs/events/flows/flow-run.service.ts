import { randomUUID } from 'node:crypto';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import type { Config } from '../../../platform/config.js';
import { BulkInsert } from '../../../platform/db/bulk-insert.js';
import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { newId } from '../../../platform/ids.js';
import { flowSteps } from '../../../platform/observability/metrics.js';
import type { Logger } from '../../../platform/observability/logger.js';
import { enqueueInTransaction, type OutboxEvent } from '../../../platform/jobs/outbox.js';
import { deliver, retryDelayMs } from '../../../platform/outbound/index.js';
import type { PgBoss } from '../../../platform/jobs/queue.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import { inQueuedSpan, type Traced } from '../../../platform/observability/tracing.js';
import type { CustomEventCreatedData } from '../custom-event.events.js';
import { customerPayload, eventPayload, type CustomEventService } from '../custom-event.service.js';
import type { CustomEventRow } from '../custom-event.rows.js';
import type { CustomerService } from '../customers/customer.service.js';
import type { CustomerRow } from '../customers/customer.rows.js';
import { SegmentCompiler } from '../segments/segment.rules.js';
import { TemplateRenderError, type TemplateScope } from '../templates/template-engine.service.js';
import { templateScope } from '../templates/template.view.js';
import type { TemplateRow, TemplateService } from '../templates/template.service.js';
import { MessageChannel } from '../templates/template.type.js';
import { branchStart, kindOf, pathAfter, stepAt, type FlowDefinition, type FlowStep, type StepType } from './flow.schemas.js';
import { consentKey, lockMessagingOf, type ConsentService, type SendPermissions } from '../customers/consent.service.js';
import { sendRefusal, type ConsentChannel } from '../customers/consent.rules.js';
import type { MessagingSettings, MessagingSettingsService } from './messaging-settings.service.js';
import { quietUntil, smartSendingRefusal } from './messaging-settings.rules.js';
import type { MessageProvider } from './message-provider.service.js';
import type { FlowRunRow, RunStatus, StepStatus } from './flow.service.js';

/** The queue of run steps: one job per stretch of a run (its start, the end of a wait, a retry). */
export const FLOW_STEPS_QUEUE = 'flow-steps';

/** `trace`: the run continues the trace of the event that started it (platform/observability/tracing.ts). */
export interface FlowStepJob extends Traced {
  runId: string;
  storeId: string;
  /** The run's step_token when the job was queued: a stale or duplicated job finds another and does nothing. */
  token: string;
}

export interface FlowRunnerDeps {
  orm: Orm;
  boss: PgBoss;
  config: Config;
  logger: Logger;
  accounts: AccountsService;
  events: CustomEventService;
  customers: CustomerService;
  templates: TemplateService;
  providers: Record<MessageChannel, MessageProvider>;
  box: () => Promise<SecretBox>;
  consent: ConsentService;
  settings: MessagingSettingsService;
}

/** A run as the runner advances it: its row, where it is, and the token that fences stale step jobs. */
interface RunState extends Pick<FlowRunRow, 'id' | 'storeId' | 'flowId' | 'version' | 'customerId' | 'eventId' | 'status'> {
  nextPath: string | null;
  stepToken: string;
  attempt: number;
}

interface StepContext extends Traced {
  run: RunState;
  event: CustomEventRow;
  customer: CustomerRow;
  batch: BatchWrites;
  store: StoreInfo;
  definition: FlowDefinition;
  box: SecretBox;
  /** The customer's consent and suppressed channels, read after the batch took the customers' messaging locks. */
  permissions: SendPermissions;
  settings: MessagingSettings;
}

interface StoreInfo {
  id: string;
  name: string;
  timeZone: string | null;
}

interface Recorded {
  path: string;
  type: StepType;
  status: StepStatus;
  detail: string;
}

/** What one step decided: go on at `next`, wait until `resumeAt`, or end the run. */
type Outcome =
  | { kind: 'next'; next: string | null; record: Recorded }
  | { kind: 'wait'; resumeAt: Date; record: Recorded; attempt: number }
  | { kind: 'fail'; record: Recorded }
  /** The customer left the flow's audience: the run ends (EXITED). */
  | { kind: 'exit'; record: Recorded };

const STEP_TYPE: Record<FlowStep['type'], StepType> = { wait: 'wait', condition: 'condition', send_email: 'send_email', send_sms: 'send_sms', webhook: 'webhook' };

/**
 * Starts runs from processed events and executes them step by step. A run's
 * position (`next_path`) and its steps are written in the transaction that
 * also queues the job that continues it, so a crash at any point leaves either
 * the old position with its job or the new one with its job.
 */
export class FlowRunner {
  /** Versions never change once written: each process keeps the ones it read. */
  private readonly versions = new Map<string, FlowDefinition>();

  constructor(private readonly deps: FlowRunnerDeps) {}

  /**
   * Starts the runs of a batch of `custom_event.created` outbox events in the
   * caller's transaction. One run per (flow, event): the unique key makes a
   * retried job or a second worker with the same events start nothing more.
   * Returns how many runs started.
   */
  async start(em: EntityManager, events: OutboxEvent<string, CustomEventCreatedData>[]): Promise<number> {
    if (!events.length) return 0;
    const traces = new Map(events.map((e) => [e.data.event.id, e.trace]));
    const keys = [...new Map(events.map((e) => [`${e.storeId}\u0000${e.data.event.eventName}`, [e.storeId, e.data.event.eventName]])).values()];
    const flows = await sql<{ id: string; storeId: string; version: number; definition: FlowDefinition }>(
      em,
      `select f.id, f.store_id as "storeId", f.version, f.definition from flow f
        join unnest($1::text[], $2::text[]) k(store_id, event_name) on f.store_id = k.store_id and f.trigger_event_name = k.event_name
        where f.status = 'ACTIVE'`,
      [keys.map((k) => k[0]), keys.map((k) => k[1])],
    );
    let started = 0;
    for (const flow of flows) {
      const candidates = events.filter((e) => e.storeId === flow.storeId && e.data.event.eventName === flow.definition.trigger.eventName).map((e) => e.data.event.id);
      if (!candidates.length) continue;
      // Trigger conditions on the event row, the audience on its customer, evaluated now (at the trigger);
      // an event processed before the flow was active starts nothing.
      const compiler = new SegmentCompiler(flow.storeId);
      const where = compiler.eventProperties(flow.definition.trigger.where, 'te', '/trigger/where');
      const audience = flow.definition.audience ? compiler.definition(flow.definition.audience, '/audience') : 'true';
      const ids = compiler.param(candidates, 'text[]');
      const flowId = compiler.param(flow.id, 'text');
      // Re-entry (decisions section 21): once ever, or once per N days, counted from the customer's runs of the
      // flow (a merged profile's runs count for the survivor); one run per customer among the batch's events.
      const reentry = flow.definition.reentry ?? { mode: 'EVERY_EVENT' };
      const since = reentry.mode === 'ONCE_PER_DAYS' ? `and r.started_at > now() - ${compiler.param(reentry.days, 'int')} * interval '1 day'` : '';
      const limited = reentry.mode !== 'EVERY_EVENT';
      const matched = await sql<{ eventId: string; customerId: string }>(
        em,
        `select ${limited ? 'distinct on (te.customer_id)' : ''} te.id as "eventId", te.customer_id as "customerId" from custom_event te
          join customer c on c.id = te.customer_id
          join flow f on f.id = ${flowId}
          where te.id = any(${ids}) and te.store_id = $1::text and f.active_since is not null and te.created_at >= f.active_since
            and not te.backfill
            and (${where}) and (${audience})
            ${limited ? `and not exists (select 1 from flow_run r where r.flow_id = f.id and r.customer_id = te.customer_id ${since})` : ''}
          ${limited ? 'order by te.customer_id, te.event_timestamp, te.id' : ''}`,
        compiler.params,
      );
      if (!matched.length) continue;
      const inserted = await NEW_RUNS.run<{ id: string; token: string; eventId: string }>(em, matched.map((m) => ({ id: newId('flowRun'), token: randomUUID(), flow, ...m })));
      await enqueueInTransaction<FlowStepJob>(this.deps.boss, em, FLOW_STEPS_QUEUE, inserted.map((r) => ({ runId: r.id, storeId: flow.storeId, token: r.token, trace: traces.get(r.eventId) })));
      started += inserted.length;
    }
    return started;
  }

  private async definition(em: EntityManager, flowId: string, version: number): Promise<FlowDefinition> {
    const key = `${flowId}:${version}`;
    let definition = this.versions.get(key);
    if (!definition) {
      const [row] = await sql<{ definition: FlowDefinition }>(em, 'select definition from flow_version where flow_id = $1 and version = $2', [flowId, version]);
      definition = row!.definition;
      this.versions.set(key, definition);
    }
    return definition;
  }

  /**
   * Runs each job's run forward from its position until it waits, ends or
   * fails, all in one transaction (one commit for the batch: a commit per run
   * was what bounded the throughput). The runs stay locked meanwhile, so a
   * duplicated job in another batch waits and then finds a new token. Sends
   * happen inside: if the transaction fails after a send, the job is retried
   * and that step sends again (at least once; the message row and the webhook
   * id stay the same).
   */
  async advance(jobs: FlowStepJob[]): Promise<void> {
    // Read before the transaction: the store names and the secret box key belong to the platform's
    // own connection, which a query inside this subgraph's transaction cannot use.
    const stores = new Map<string, StoreInfo>();
    for (const storeId of new Set(jobs.map((j) => j.storeId))) stores.set(storeId, { id: storeId, ...(await this.storeInfo(storeId)) });
    await this.deps.consent.unsubscribeKey();
    const box = await this.deps.box();
    let committed: BatchWrites['steps'] | undefined;
    await this.deps.orm.em.fork().transactional(async (tx) => {
      const runs = await sql<RunState>(
        tx,
        `select id, store_id as "storeId", flow_id as "flowId", version, customer_id as "customerId", event_id as "eventId", status,
           next_path as "nextPath", step_token as "stepToken", attempt from flow_run where id = any($1) order by id for update`,
        [[...new Set(jobs.map((j) => j.runId))]],
      );
      const tokens = new Set(jobs.map((j) => `${j.runId} ${j.token}`));
      // A run moves once per batch, whatever copies of its job the batch holds; a stale token does nothing.
      const live = runs.filter((run) => tokens.has(`${run.id} ${run.stepToken}`) && (run.status === 'RUNNING' || run.status === 'WAITING'));
      if (!live.length) return;
      // The customers' messaging locks (consent writers wait for this batch; the next batch sees their changes),
      // then what the sends need to know, read after them.
      const customerIds = [...new Set(live.map((r) => r.customerId))];
      await lockMessagingOf(tx, customerIds);
      const permissions = await this.deps.consent.permissions(tx, customerIds);
      const settings = await this.deps.settings.forStores(tx, [...new Set(live.map((r) => r.storeId))]);
      const events = new Map((await this.deps.events.findByIds(live.map((r) => r.eventId))).map((e) => [e.id, e]));
      const customers = new Map((await this.deps.customers.findByIds(customerIds)).map((c) => [c.id, c]));
      const batch = new BatchWrites();
      const smart = live.filter((r) => settings.get(r.storeId)?.smartSendingHours);
      if (smart.length) await batch.loadLastMarketing(tx, [...new Set(smart.map((r) => r.customerId))]);
      const traces = new Map(jobs.map((job) => [job.runId, job.trace]));
      for (const run of live) {
        const definition = await this.definition(tx, run.flowId, run.version);
        const trace = traces.get(run.id);
        // Each run's steps are a span of the trace of the event that started it.
        await inQueuedSpan('flow run advance', trace, { 'flow.id': run.flowId, 'flow.run.id': run.id }, () =>
          this.advanceRun(tx, {
            run,
            event: events.get(run.eventId)!,
            customer: customers.get(run.customerId)!,
            store: stores.get(run.storeId)!,
            definition,
            box,
            batch,
            trace,
            permissions: permissions.get(run.customerId)!,
            settings: settings.get(run.storeId)!,
          }),
        );
      }
      await batch.flush(tx, this.deps.boss);
      committed = batch.steps;
    });
    // Counted once the batch committed (a rolled-back batch is retried and counted then).
    for (const step of committed ?? []) flowSteps.inc({ type: step.type, status: step.status });
  }

  private async advanceRun(tx: EntityManager, ctx: StepContext): Promise<void> {
    const { run, definition, batch } = ctx;
    let path = run.nextPath;
    let attempt = run.attempt;
    let resumed = run.status === 'WAITING';
    while (path !== null) {
      const step = stepAt(definition.steps, path)!;
      const outcome = await this.step(tx, ctx, step, path, resumed, attempt);
      resumed = false;
      batch.steps.push({ runId: run.id, ...outcome.record });
      if (outcome.kind === 'wait') {
        batch.runs.push({ id: run.id, storeId: run.storeId, status: 'WAITING', nextPath: path, token: randomUUID(), attempt: outcome.attempt, resumeAt: outcome.resumeAt, trace: ctx.trace });
        return;
      }
      if (outcome.kind === 'fail') {
        batch.runs.push({ id: run.id, storeId: run.storeId, status: 'FAILED', nextPath: path, token: run.stepToken, attempt: 0 });
        return;
      }
      if (outcome.kind === 'exit') {
        batch.runs.push({ id: run.id, storeId: run.storeId, status: 'EXITED', nextPath: null, token: run.stepToken, attempt: 0 });
        return;
      }
      path = outcome.next;
      attempt = 0;
    }
    batch.runs.push({ id: run.id, storeId: run.storeId, status: 'COMPLETED', nextPath: null, token: run.stepToken, attempt: 0 });
  }

  /** Store names change rarely; a minute-old name in a message is acceptable, a query per step is not. */
  private readonly storeInfos = new Map<string, { name: string; timeZone: string | null; at: number }>();

  /** The store's name and time zone (quiet hours' zone for customers without one), kept a minute. */
  private async storeInfo(storeId: string): Promise<{ name: string; timeZone: string | null }> {
    const cached = this.storeInfos.get(storeId);
    if (cached && Date.now() - cached.at < 60_000) return cached;
    const store = (await this.deps.accounts.stores([storeId])).get(storeId);
    const info = { name: store?.name ?? '', timeZone: store?.timeZone ?? null, at: Date.now() };
    this.storeInfos.set(storeId, info);
    return info;
  }

  private async step(em: EntityManager, ctx: StepContext, step: FlowStep, path: string, resumed: boolean, attempt: number): Promise<Outcome> {
    const { run, definition } = ctx;
    const type = STEP_TYPE[step.type];
    const after = () => pathAfter(definition.steps, path);
    switch (step.type) {
      case 'wait': {
        // The job that ends a wait resumes the run at the wait step itself: that is when it is done.
        if (resumed && attempt === 0) return { kind: 'next', next: after(), record: { path, type, status: 'DONE', detail: `waited ${step.seconds} s` } };
        const resumeAt = new Date(Date.now() + step.seconds * 1000);
        return { kind: 'wait', resumeAt, attempt: 0, record: { path, type, status: 'WAITING', detail: `until ${resumeAt.toISOString()}` } };
      }
      case 'condition': {
        const compiler = new SegmentCompiler(run.storeId, { triggerEvent: 'te' });
        const predicate = compiler.condition(step.if, '/if');
        const customerId = compiler.param(run.customerId, 'text');
        const eventId = compiler.param(run.eventId, 'text');
        const [row] = await sql<{ ok: boolean }>(
          em,
          `select coalesce((${predicate}), false) as ok from customer c join custom_event te on te.id = ${eventId} where c.id = ${customerId} and c.store_id = $1::text`,
          compiler.params,
        );
        const branch = row?.ok ? 'then' : 'else';
        return { kind: 'next', next: branchStart(definition.steps, path, branch), record: { path, type, status: 'DONE', detail: branch } };
      }
      case 'send_email':
      case 'send_sms':
        return this.send(em, ctx, step, path, attempt, after);
      case 'webhook':
        return this.webhook(em, ctx, step, path, attempt, after);
    }
  }

  private retryOrFail(path: string, type: StepType, attempt: number, error: string, retryAfterMs?: number): Outcome {
    // `attempt` is 0-based: attempt + 1 attempts have failed.
    const delay = retryDelayMs(this.deps.config.webhookRetrySchedule, attempt + 1, retryAfterMs);
    if (delay === undefined) return { kind: 'fail', record: { path, type, status: 'FAILED', detail: attempt ? `${error} (after ${attempt + 1} attempts)` : error } };
    const resumeAt = new Date(Date.now() + delay);
    return { kind: 'wait', resumeAt, attempt: attempt + 1, record: { path, type, status: 'WAITING', detail: `attempt ${attempt + 1} failed: ${error}; retrying at ${resumeAt.toISOString()}` } };
  }

  private async send(
    em: EntityManager,
    ctx: StepContext,
    step: Extract<FlowStep, { type: 'send_email' | 'send_sms' }>,
    path: string,
    attempt: number,
    after: () => string | null,
  ): Promise<Outcome> {
    const type = STEP_TYPE[step.type];
    const channel = step.type === 'send_email' ? MessageChannel.EMAIL : MessageChannel.SMS;
    const { run, event, store, customer } = ctx;
    const kind = kindOf(step);
    const consentChannel: ConsentChannel = channel === MessageChannel.EMAIL ? 'email' : 'sms';
    const to = channel === MessageChannel.EMAIL ? customer.email : customer.phoneNumber;
    const skip = (detail: string): Outcome => ({ kind: 'next', next: after(), record: { path, type, status: 'SKIPPED', detail } });
    if (!to) return skip(channel === MessageChannel.EMAIL ? 'no email address' : 'no phone number');
    // Consent (decisions section 21): marketing only to a subscribed customer, transactional unless unsubscribed; a suppressed channel takes nothing.
    const { consent, suppression } = ctx.permissions;
    const refusal = sendRefusal(
      kind,
      consentChannel,
      { marketing: consent.get(consentKey(consentChannel, 'marketing')), transactional: consent.get(consentKey(consentChannel, 'transactional')) },
      suppression.get(consentChannel) ?? null,
    );
    if (refusal) return skip(`${kind}: ${refusal}`);
    // The flow's audience, checked again before each send: a customer who left it leaves the flow.
    if (ctx.definition.audience && !(await this.inAudience(em, run, ctx.definition))) {
      return { kind: 'exit', record: { path, type, status: 'SKIPPED', detail: 'the customer is no longer in the flow audience: the run exits' } };
    }
    if (kind === 'marketing') {
      const now = Date.now();
      const { quietHours, smartSendingHours } = ctx.settings;
      const zone = customerZone(customer) ?? store.timeZone ?? 'UTC';
      const until = quietHours ? quietUntil(now, quietHours, zone) : null;
      if (until !== null) {
        const resumeAt = new Date(until);
        return { kind: 'wait', resumeAt, attempt, record: { path, type, status: 'WAITING', detail: `quiet hours (${zone}): waiting until ${resumeAt.toISOString()}` } };
      }
      const smart = smartSendingRefusal(now, smartSendingHours, ctx.batch.lastMarketing(run.customerId, consentChannel), consentChannel);
      if (smart) return skip(smart);
    }
    const template = await ctx.batch.template(step.templateId, (id) => this.deps.templates.find(id));
    if (!template || template.channel !== channel) return { kind: 'fail', record: { path, type, status: 'FAILED', detail: `template ${step.templateId} is gone or no longer ${channel}` } };
    let subject: string | null;
    let body: string;
    let headers: Record<string, string> | undefined;
    try {
      const scope: TemplateScope = templateScope(event, customer, store, null);
      if (kind === 'marketing') {
        // A token per store, customer and channel: the page, the one-click POST (RFC 8058) and the mailto all name it.
        const token = await this.deps.consent.unsubscribeToken({ storeId: run.storeId, customerId: run.customerId, channel: consentChannel });
        const url = `${this.deps.config.publicUrl}/u/${token}`;
        scope.unsubscribe = { url };
        if (channel === MessageChannel.EMAIL) {
          const mailto = `mailto:${this.deps.config.unsubscribeMailto}?subject=${encodeURIComponent(`unsubscribe ${token}`)}`;
          headers = { 'List-Unsubscribe': `<${url}>, <${mailto}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
        }
      }
      subject = channel === MessageChannel.EMAIL && template.subject ? await this.deps.templates.engine.render(template.subject, scope) : null;
      body = await this.deps.templates.engine.render(template.body, scope);
    } catch (err) {
      if (!(err instanceof TemplateRenderError)) throw err;
      return { kind: 'fail', record: { path, type, status: 'FAILED', detail: `template ${template.id} was stopped: ${err.message}` } };
    }
    const provider = this.deps.providers[channel];
    const result = await provider.send({ channel, to, subject, body, ...(headers ? { headers } : {}) });
    const message = { runId: run.id, storeId: run.storeId, customerId: run.customerId, flowId: run.flowId, path, channel, kind, to, subject, body, provider: provider.name };
    if (!result.ok) {
      const outcome = this.retryOrFail(path, type, attempt, result.error, result.retryAfterMs);
      if (outcome.kind === 'fail') ctx.batch.messages.push({ ...message, status: 'FAILED', error: result.error });
      return outcome;
    }
    ctx.batch.messages.push({ ...message, status: result.status, error: null });
    if (kind === 'marketing') ctx.batch.sentMarketing(run.customerId, consentChannel, Date.now());
    return { kind: 'next', next: after(), record: { path, type, status: 'DONE', detail: `${result.status === 'SENT' ? 'sent' : 'recorded'} to ${to} (template ${template.id})` } };
  }

  /** Whether the run's customer is in the flow's audience now. */
  private async inAudience(em: EntityManager, run: RunState, definition: FlowDefinition): Promise<boolean> {
    const compiler = new SegmentCompiler(run.storeId);
    const predicate = compiler.definition(definition.audience!, '/audience');
    const customerId = compiler.param(run.customerId, 'text');
    const [row] = await sql<{ ok: boolean }>(em, `select coalesce((${predicate}), false) as ok from customer c where c.id = ${customerId} and c.store_id = $1::text`, compiler.params);
    return row?.ok ?? false;
  }

  private async webhook(em: EntityManager, { run, event, customer, box }: StepContext, step: Extract<FlowStep, { type: 'webhook' }>, path: string, attempt: number, after: () => string | null): Promise<Outcome> {
    const type = STEP_TYPE[step.type];
    const [secretRow] = await sql<{ signingSecret: string }>(em, 'select signing_secret as "signingSecret" from flow where id = $1', [run.flowId]);
    const body = JSON.stringify({ type: 'flow.webhook', at: new Date().toISOString(), flowId: run.flowId, runId: run.id, event: eventPayload(event), customer: customerPayload(customer) });
    const result = await deliver({
      url: step.url,
      body,
      // Stable across retries and re-runs of the step: receivers deduplicate on it.
      messageId: `${run.id}.${path}`,
      signingSecret: box.open(secretRow!.signingSecret),
      headers: step.bearerToken ? { authorization: `Bearer ${box.open(step.bearerToken)}` } : {},
      timeoutMs: this.deps.config.webhookTimeoutMs,
      allowedHosts: this.deps.config.webhookAllowedHosts,
    });
    if (result.outcome === 'succeeded') return { kind: 'next', next: after(), record: { path, type, status: 'DONE', detail: `HTTP ${result.status}` } };
    const error = result.error ?? (result.status ? `HTTP ${result.status}` : 'failed');
    if (result.outcome === 'refused') return { kind: 'fail', record: { path, type, status: 'FAILED', detail: `refused: ${error}` } };
    return this.retryOrFail(path, type, attempt, result.status ? `HTTP ${result.status}` : error, result.retryAfterMs);
  }
}

/** The customer's own time zone (`location.ianaTimeZoneName`), when known and valid. */
function customerZone(customer: CustomerRow): string | null {
  const zone = customer.location?.['ianaTimeZoneName'];
  if (typeof zone !== 'string' || !zone) return null;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return null;
  }
}

interface NewRun {
  id: string;
  flow: { id: string; version: number; storeId: string };
  customerId: string;
  eventId: string;
  token: string;
}

const NEW_RUNS = new BulkInsert<NewRun>(
  'flow_run',
  [
    { name: 'id', type: 'text', value: (r) => r.id },
    { name: 'flow_id', type: 'text', value: (r) => r.flow.id },
    { name: 'version', type: 'int', value: (r) => r.flow.version },
    { name: 'store_id', type: 'text', value: (r) => r.flow.storeId },
    { name: 'customer_id', type: 'text', value: (r) => r.customerId },
    { name: 'event_id', type: 'text', value: (r) => r.eventId },
    { name: 'status', sql: "'RUNNING'" },
    { name: 'next_path', sql: "'0'" },
    { name: 'step_token', type: 'text', value: (r) => r.token },
  ],
  { tail: 'on conflict (flow_id, event_id) do nothing returning id, step_token as token, event_id as "eventId"' },
);

interface RunUpdate extends Traced {
  id: string;
  storeId: string;
  status: RunStatus;
  nextPath: string | null;
  token: string;
  attempt: number;
  /** WAITING: when the job that continues the run is due. */
  resumeAt?: Date;
}

interface MessageWrite {
  runId: string;
  storeId: string;
  customerId: string;
  flowId: string;
  path: string;
  channel: MessageChannel;
  kind: 'marketing' | 'transactional';
  to: string;
  subject: string | null;
  body: string;
  status: string;
  provider: string;
  error: string | null;
}

// A step recorded again (a retry) keeps its place; clock_timestamp() per row keeps the recorded order of a run's steps.
const STEP_RECORDS = new BulkInsert<{ runId: string } & Recorded>(
  'flow_run_step',
  [
    { name: 'run_id', type: 'text', value: (r) => r.runId },
    { name: 'path', type: 'text', value: (r) => r.path },
    { name: 'type', type: 'text', value: (r) => r.type },
    { name: 'status', type: 'text', value: (r) => r.status },
    { name: 'detail', type: 'text', value: (r) => r.detail },
  ],
  { tail: 'on conflict (run_id, path) do update set status = excluded.status, detail = excluded.detail, at = clock_timestamp()' },
);

const MESSAGES = new BulkInsert<MessageWrite>(
  'message',
  [
    { name: 'id', type: 'text', value: () => newId('flowMessage') },
    { name: 'store_id', type: 'text', value: (m) => m.storeId },
    { name: 'customer_id', type: 'text', value: (m) => m.customerId },
    { name: 'flow_id', type: 'text', value: (m) => m.flowId },
    { name: 'flow_run_id', type: 'text', value: (m) => m.runId },
    { name: 'step_path', type: 'text', value: (m) => m.path },
    { name: 'channel', type: 'text', value: (m) => m.channel },
    { name: 'kind', type: 'text', value: (m) => m.kind },
    { name: '"to"', type: 'text', value: (m) => m.to },
    { name: 'subject', type: 'text', value: (m) => m.subject },
    { name: 'body', type: 'text', value: (m) => m.body },
    { name: 'status', type: 'text', value: (m) => m.status },
    { name: 'provider', type: 'text', value: (m) => m.provider },
    { name: 'error', type: 'text', value: (m) => m.error },
  ],
  {
    tail: `on conflict (flow_run_id, step_path) do update set "to" = excluded."to", subject = excluded.subject, body = excluded.body,
           status = excluded.status, provider = excluded.provider, error = excluded.error`,
  },
);

/** What a batch of runs wrote, flushed with one statement per table at the end of the batch's transaction. */
class BatchWrites {
  readonly steps: ({ runId: string } & Recorded)[] = [];
  readonly runs: RunUpdate[] = [];
  readonly messages: MessageWrite[] = [];
  private readonly templates = new Map<string, Promise<TemplateRow | null>>();
  /** Smart sending: when each customer last got a marketing message per channel (ms), this batch's sends included. */
  private readonly lastMarketingAt = new Map<string, number>();

  async loadLastMarketing(em: EntityManager, customerIds: string[]): Promise<void> {
    const rows = await sql<{ customerId: string; channel: string; at: Date }>(
      em,
      `select customer_id as "customerId", channel, max(created_at) as at from message
        where customer_id = any($1) and kind = 'marketing' and status in ('SENT', 'RECORDED') group by 1, 2`,
      [customerIds],
    );
    for (const r of rows) this.lastMarketingAt.set(`${r.customerId} ${r.channel === MessageChannel.EMAIL ? 'email' : 'sms'}`, r.at.getTime());
  }

  lastMarketing(customerId: string, channel: ConsentChannel): number | null {
    return this.lastMarketingAt.get(`${customerId} ${channel}`) ?? null;
  }

  sentMarketing(customerId: string, channel: ConsentChannel, at: number): void {
    this.lastMarketingAt.set(`${customerId} ${channel}`, at);
  }

  /** Each template read once per batch. */
  template(id: string, load: (id: string) => Promise<TemplateRow | null>): Promise<TemplateRow | null> {
    let t = this.templates.get(id);
    if (!t) this.templates.set(id, (t = load(id)));
    return t;
  }

  async flush(em: EntityManager, boss: PgBoss): Promise<void> {
    const col = <T, K extends keyof T>(rows: T[], key: K) => rows.map((r) => r[key]);
    await STEP_RECORDS.run(em, this.steps);
    await MESSAGES.run(em, this.messages);
    if (this.runs.length) {
      const r = this.runs;
      await sql(
        em,
        `update flow_run f set status = u.status, next_path = u.next_path, step_token = u.token, attempt = u.attempt,
           finished_at = case when u.status in ('COMPLETED', 'FAILED', 'EXITED') then clock_timestamp() end
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[]) u(id, status, next_path, token, attempt)
         where f.id = u.id`,
        [col(r, 'id'), col(r, 'status'), col(r, 'nextPath'), col(r, 'token'), col(r, 'attempt')],
      );
      for (const w of r.filter((u) => u.resumeAt)) {
        await enqueueInTransaction<FlowStepJob>(boss, em, FLOW_STEPS_QUEUE, [{ runId: w.id, storeId: w.storeId, token: w.token, trace: w.trace }], { startAfter: w.resumeAt });
      }
    }
  }
}
