import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { Conditions, keysetPage } from '../../../platform/db/keyset.js';
import { invalid } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { Page, PageRequest } from '../../../platform/api/pagination.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import type { TemplateService } from '../templates/template.service.js';
import { type MessageChannel } from '../templates/template.type.js';
import { buildDefinition, type FlowDefinition, type StepType } from './flow.schemas.js';
import { FlowStatus, type FlowInput } from './flow.input.js';

export interface FlowRow {
  id: string;
  storeId: string;
  name: string;
  status: FlowStatus;
  version: number;
  definition: FlowDefinition;
  createdAt: Date;
  updatedAt: Date;
  /** Only in the answer of createFlow: the secret webhook steps sign with. */
  signingSecret?: string;
}

export type RunStatus = 'RUNNING' | 'WAITING' | 'COMPLETED' | 'EXITED' | 'FAILED';
export type StepStatus = 'DONE' | 'SKIPPED' | 'FAILED' | 'WAITING';

export interface FlowRunRow {
  id: string;
  storeId: string;
  flowId: string;
  version: number;
  customerId: string;
  eventId: string;
  status: RunStatus;
  startedAt: Date;
  finishedAt: Date | null;
}

export interface FlowRunStepRow {
  runId: string;
  path: string;
  type: StepType;
  status: StepStatus;
  at: Date;
  detail: string | null;
}

export interface MessageRow {
  id: string;
  storeId: string;
  customerId: string;
  flowId: string;
  flowRunId: string;
  channel: MessageChannel;
  kind: 'marketing' | 'transactional';
  to: string;
  subject: string | null;
  body: string;
  status: 'SENT' | 'RECORDED' | 'FAILED';
  provider: string;
  error: string | null;
  createdAt: Date;
}

const FLOW_COLUMNS = `id, store_id as "storeId", name, status, version, definition, created_at as "createdAt", updated_at as "updatedAt"`;
const RUN_COLUMNS = `r.id, r.store_id as "storeId", r.flow_id as "flowId", r.version, r.customer_id as "customerId", r.event_id as "eventId", r.status,
  r.started_at as "startedAt", r.finished_at as "finishedAt"`;
export const MESSAGE_COLUMNS = `id, store_id as "storeId", customer_id as "customerId", flow_id as "flowId", flow_run_id as "flowRunId", channel, kind, "to", subject, body,
  status, provider, error, created_at as "createdAt"`;

export interface FlowServiceDeps {
  templates: TemplateService;
  box: () => Promise<SecretBox>;
  checkUrl(url: string): Promise<string | null>;
  generateSigningSecret(): string;
}

/** Flows (versioned definitions), and the reads of their runs and messages. */
export class FlowService {
  constructor(
    private readonly orm: Orm,
    private readonly deps: FlowServiceDeps,
  ) {}

  em(): EntityManager {
    return this.orm.em.fork();
  }

  private async definition(storeId: string, input: FlowInput): Promise<FlowDefinition> {
    const box = await this.deps.box();
    const { definition, errors } = await buildDefinition(storeId, input, {
      templateChannels: async (ids) => {
        const rows = ids.length ? await this.deps.templates.findByIds(ids) : [];
        return new Map(rows.filter((t) => t.storeId === storeId).map((t) => [t.id, t.channel]));
      },
      checkUrl: (url) => this.deps.checkUrl(url),
      seal: (secret) => box.seal(secret),
    });
    if (errors.length) throw invalid('validation-failed', `The flow is invalid: ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}`, errors);
    return definition;
  }

  async create(storeId: string, input: FlowInput): Promise<FlowRow> {
    const definition = await this.definition(storeId, input);
    const status = input.status ?? FlowStatus.ACTIVE;
    const signingSecret = this.deps.generateSigningSecret();
    const sealed = (await this.deps.box()).seal(signingSecret);
    const id = newId('flow');
    return this.em().transactional(async (em) => {
      const [row] = await sql<FlowRow>(
        em,
        `insert into flow (id, store_id, name, status, version, trigger_event_name, definition, signing_secret, active_since)
         values ($1, $2, $3, $4, 1, $5, $6, $7, case when $4 = 'ACTIVE' then now() end) returning ${FLOW_COLUMNS}`,
        [id, storeId, input.name.trim(), status, definition.trigger.eventName, JSON.stringify(definition), sealed],
      );
      await sql(em, 'insert into flow_version (flow_id, version, definition) values ($1, 1, $2)', [id, JSON.stringify(definition)]);
      return { ...row!, signingSecret };
    });
  }

  /** A new version; runs already started keep theirs. */
  async update(current: FlowRow, input: FlowInput): Promise<FlowRow> {
    const definition = await this.definition(current.storeId, input);
    return this.em().transactional(async (em) => {
      const [row] = await sql<FlowRow>(
        em,
        `update flow set name = $2, version = version + 1, trigger_event_name = $3, definition = $4, updated_at = now(),
           active_since = case when $5::text is null or $5 = status then active_since when $5 = 'ACTIVE' then now() end,
           status = coalesce($5, status)
         where id = $1 returning ${FLOW_COLUMNS}`,
        [current.id, input.name.trim(), definition.trigger.eventName, JSON.stringify(definition), input.status ?? null],
      );
      await sql(em, 'insert into flow_version (flow_id, version, definition) values ($1, $2, $3)', [row!.id, row!.version, JSON.stringify(definition)]);
      return row!;
    });
  }

  /** Pausing stops new runs (events processed while paused start nothing); runs already started go on. */
  async setStatus(id: string, status: FlowStatus): Promise<FlowRow> {
    const [row] = await sql<FlowRow>(
      this.em(),
      `update flow set active_since = case when status = $2 then active_since when $2 = 'ACTIVE' then now() end, status = $2, updated_at = now()
       where id = $1 returning ${FLOW_COLUMNS}`,
      [id, status],
    );
    return row!;
  }

  async findByIds(ids: readonly string[]): Promise<FlowRow[]> {
    return sql<FlowRow>(this.em(), `select ${FLOW_COLUMNS} from flow where id = any($1)`, [ids]);
  }

  async find(id: string): Promise<FlowRow | null> {
    return (await this.findByIds([id]))[0] ?? null;
  }

  async list(storeId: string, page: PageRequest): Promise<Page<FlowRow>> {
    const where = new Conditions().when(storeId, (p) => `store_id = ${p}`);
    return keysetPage<FlowRow>(this.em(), { columns: FLOW_COLUMNS, from: 'flow', where, sortColumn: 'created_at', idColumn: 'id', page });
  }

  /** Runs of a flow or of a customer, newest first. */
  async runs(by: { flowId?: string; customerId?: string }, page: PageRequest): Promise<Page<FlowRunRow>> {
    const where = new Conditions().when(by.flowId, (p) => `r.flow_id = ${p}`).when(by.customerId, (p) => `r.customer_id = ${p}`);
    return keysetPage<FlowRunRow>(this.em(), { columns: RUN_COLUMNS, from: 'flow_run r', where, sortColumn: 'r.started_at', idColumn: 'r.id', page });
  }

  /** The recorded steps of several runs at once (one query per page of runs). */
  async stepsOf(runIds: readonly string[]): Promise<FlowRunStepRow[]> {
    return sql<FlowRunStepRow>(
      this.em(),
      `select run_id as "runId", path, type, status, at, detail from flow_run_step where run_id = any($1) order by at, path`,
      [runIds],
    );
  }

  async messages(by: { storeId?: string; customerId?: string; flowId?: string }, page: PageRequest): Promise<Page<MessageRow>> {
    const where = new Conditions()
      .when(by.storeId, (p) => `store_id = ${p}`)
      .when(by.customerId, (p) => `customer_id = ${p}`)
      .when(by.flowId, (p) => `flow_id = ${p}`);
    return keysetPage<MessageRow>(this.em(), { columns: MESSAGE_COLUMNS, from: 'message', where, sortColumn: 'created_at', idColumn: 'id', page });
  }
}
