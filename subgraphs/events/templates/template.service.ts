import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { invalid, type FieldError } from '../../../platform/errors.js';
import { Conditions, keysetPage } from '../../../platform/db/keyset.js';
import { newId } from '../../../platform/ids.js';
import type { Page, PageRequest } from '../../../platform/api/pagination.js';
import { MessageChannel } from './template.type.js';
import type { TemplateEngine } from './template-engine.service.js';

export interface TemplateRow {
  id: string;
  storeId: string;
  name: string;
  channel: MessageChannel;
  subject: string | null;
  body: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface TemplateFields {
  name: string;
  channel: MessageChannel;
  subject?: string | null;
  body: string;
}

const COLUMNS = `id, store_id as "storeId", name, channel, subject, body, created_at as "createdAt", updated_at as "updatedAt"`;
const MAX_NAME = 200;
const MAX_SUBJECT = 1_000;
const MAX_BODY = 100 * 1024;

/** Message templates: validated (Liquid that parses, subject for EMAIL only) before they are stored. */
export class TemplateService {
  constructor(
    private readonly orm: Orm,
    readonly engine: TemplateEngine,
  ) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  /** Every problem of a template's fields, pointers under `pointer` (`/input`). */
  problems(fields: TemplateFields, pointer: string, options: { requireName: boolean }): FieldError[] {
    const errors: FieldError[] = [];
    if (options.requireName && (typeof fields.name !== 'string' || !fields.name.trim() || fields.name.length > MAX_NAME)) {
      errors.push({ pointer: `${pointer}/name`, detail: `must be a non-empty string of at most ${MAX_NAME} characters` });
    }
    const subject = fields.subject ?? null;
    if (fields.channel === MessageChannel.EMAIL) {
      if (subject === null || !subject.trim()) errors.push({ pointer: `${pointer}/subject`, detail: 'is required for an EMAIL template' });
      else if (subject.length > MAX_SUBJECT) errors.push({ pointer: `${pointer}/subject`, detail: `must be at most ${MAX_SUBJECT} characters` });
      else {
        const problem = this.engine.check(subject, `${pointer}/subject`);
        if (problem) errors.push({ ...problem, detail: `does not parse as Liquid: ${problem.detail}` });
      }
    } else if (subject !== null) {
      errors.push({ pointer: `${pointer}/subject`, detail: 'an SMS has no subject' });
    }
    if (typeof fields.body !== 'string' || !fields.body.trim()) errors.push({ pointer: `${pointer}/body`, detail: 'must be a non-empty string' });
    else if (Buffer.byteLength(fields.body) > MAX_BODY) errors.push({ pointer: `${pointer}/body`, detail: `must be at most ${MAX_BODY} bytes` });
    else {
      const problem = this.engine.check(fields.body, `${pointer}/body`);
      if (problem) errors.push({ ...problem, detail: `does not parse as Liquid: ${problem.detail}` });
    }
    return errors;
  }

  private validate(fields: TemplateFields, requireName = true): void {
    const errors = this.problems(fields, '/input', { requireName });
    if (errors.length) throw invalid('validation-failed', `The template is invalid: ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}`, errors);
  }

  async create(storeId: string, fields: TemplateFields): Promise<TemplateRow> {
    this.validate(fields);
    const [row] = await sql<TemplateRow>(
      this.em(),
      `insert into message_template (id, store_id, name, channel, subject, body) values ($1, $2, $3, $4, $5, $6) returning ${COLUMNS}`,
      [newId('template'), storeId, fields.name.trim(), fields.channel, fields.subject ?? null, fields.body],
    );
    return row!;
  }

  /** Changes the given fields; a channel change is refused while a flow's current version sends the template. */
  async update(current: TemplateRow, changes: Partial<TemplateFields>): Promise<TemplateRow> {
    const channel = changes.channel ?? current.channel;
    // Moving to SMS drops the subject unless one is given (which is then refused).
    const subject = changes.subject !== undefined ? changes.subject : channel === MessageChannel.SMS ? null : current.subject;
    const fields: TemplateFields = { name: changes.name ?? current.name, channel, subject, body: changes.body ?? current.body };
    this.validate(fields);
    return this.em().transactional(async (em) => {
      if (channel !== current.channel) {
        const [used] = await sql<{ id: string }>(em, `select id from flow where store_id = $1 and definition::text like $2 limit 1`, [current.storeId, `%"templateId": "${current.id}"%`]);
        if (used) {
          throw invalid('validation-failed', `Flow ${used.id} sends this template as ${current.channel}; its channel cannot change.`, [{ pointer: '/input/channel', detail: `flow ${used.id} sends it as ${current.channel}` }]);
        }
      }
      const [row] = await sql<TemplateRow>(
        em,
        `update message_template set name = $2, channel = $3, subject = $4, body = $5, updated_at = now() where id = $1 returning ${COLUMNS}`,
        [current.id, fields.name.trim(), fields.channel, fields.subject ?? null, fields.body],
      );
      return row!;
    });
  }

  async findByIds(ids: readonly string[]): Promise<TemplateRow[]> {
    return sql<TemplateRow>(this.em(), `select ${COLUMNS} from message_template where id = any($1)`, [ids]);
  }

  async find(id: string): Promise<TemplateRow | null> {
    const [row] = await this.findByIds([id]);
    return row ?? null;
  }

  async list(storeId: string, page: PageRequest): Promise<Page<TemplateRow>> {
    const where = new Conditions().when(storeId, (p) => `store_id = ${p}`);
    return keysetPage<TemplateRow>(this.em(), { columns: COLUMNS, from: 'message_template', where, sortColumn: 'created_at', idColumn: 'id', page });
  }
}
