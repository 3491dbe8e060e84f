import { Ajv, type ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutboxContract, OutboxEvent } from '../../platform/jobs/outbox.js';
import { addServiceFormats, DateTime, Int, Strict, Type } from '../../platform/validation/index.js';
import { projectRoot } from '../../platform/project-root.js';
import { API_DOCUMENTS, DOCUMENTS_DIR } from '../../rest-facade/documents.js';
import { PUBLISHED_EVENTS } from '../../subgraphs/index.js';

/**
 * The contract test: every REST response the suite reads through its helpers
 * (`app.request` and everything built on it) is checked against the committed
 * OpenAPI document of its API, by method and path template: the status must be
 * one the operation declares, the body must match the schema declared for that
 * status and media type, and headers the document describes per operation
 * (X-Page-Next, rate-limit fields, ...) must not appear where it does not
 * declare them. A response that drifts from the document fails the test that
 * read it. Paths that match no operation (404 and 405 answers) are not checked.
 *
 * Published events are held to their contracts the same way: a stored outbox
 * event to its contract's envelope and payload schema (`*.events.ts`), a
 * webhook delivery to the document's `webhooks` entry of its topic and type.
 */

type JsonObject = Record<string, any>;

interface Operation {
  document: string;
  template: string;
  method: string;
  pattern: RegExp;
  /** Literal segments: `/stores/{storeId}/events/bulk` wins over a template with a parameter there. */
  literals: number;
  responses: JsonObject;
}

/** Headers an operation must declare to send (the ones every answer carries, like X-Request-Id, are not listed). */
const DECLARED_HEADERS = ['x-page-next', 'ratelimit', 'ratelimit-policy', 'retry-after', 'www-authenticate', 'ignored-parameters'];

const ajv = addServiceFormats(new Ajv({ strict: false, allErrors: true, allowUnionTypes: true }));
const operations: { base: string; list: Operation[] }[] = [];
/** The webhook deliveries each document declares, by name (`return.created`). */
const webhooks = new Map<string, { document: string; operation: JsonObject }>();
const validators = new Map<string, ValidateFunction>();

for (const { file } of API_DOCUMENTS) {
  const document = JSON.parse(readFileSync(join(projectRoot(), DOCUMENTS_DIR, file), 'utf8')) as JsonObject;
  ajv.addSchema(document, file);
  const list: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths as JsonObject)) {
    const segments = template.split('/').filter(Boolean);
    const pattern = new RegExp(`^/${segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`);
    for (const [method, op] of Object.entries(item as JsonObject)) {
      list.push({ document: file, template, method: method.toUpperCase(), pattern, literals: segments.filter((s) => !s.startsWith('{')).length, responses: op.responses });
    }
  }
  for (const [name, item] of Object.entries((document.webhooks ?? {}) as JsonObject)) webhooks.set(name, { document: file, operation: item.post });
  list.sort((a, b) => b.literals - a.literals);
  operations.push({ base: document.servers[0].url as string, list });
}

const pointer = (...segments: string[]) => segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

function compiled(ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (!validate) validators.set(ref, (validate = ajv.compile({ $ref: ref })));
  return validate;
}

function validator(op: Operation, status: string, mediaType: string): ValidateFunction {
  return compiled(`${op.document}#/${pointer('paths', op.template, op.method.toLowerCase(), 'responses', status, 'content', mediaType, 'schema')}`);
}

const errorsOf = (where: string, validate: ValidateFunction) => (validate.errors ?? []).map((e) => `${where}: ${e.instancePath || '(body)'} ${e.message ?? 'is invalid'} (${e.schemaPath})`);

/** The documented operation a request went to, if any. */
function operationFor(method: string, pathname: string): Operation | undefined {
  for (const { base, list } of operations) {
    if (!pathname.startsWith(`${base}/`)) continue;
    const rest = pathname.slice(base.length);
    return list.find((op) => op.method === method && op.pattern.test(rest));
  }
  return undefined;
}

/** The ways `res` breaks the document (empty when it conforms). Reads a clone, so `res` stays readable. */
export async function contractViolations(method: string, url: string, res: Response): Promise<string[]> {
  const op = operationFor(method.toUpperCase(), new URL(url).pathname);
  if (!op) return [];
  const where = `${op.method} ${op.template} answered ${res.status}`;
  const status = String(res.status);
  const declared = op.responses[status] as JsonObject | undefined;
  if (!declared) return [`${where}, a status the document does not declare (it declares ${Object.keys(op.responses).join(', ')})`];
  const problems: string[] = [];
  const declaredHeaders = Object.keys(declared.headers ?? {}).map((h) => h.toLowerCase());
  for (const header of DECLARED_HEADERS) {
    if (res.headers.has(header) && !declaredHeaders.includes(header)) problems.push(`${where} with a ${header} header the document does not declare`);
  }
  const text = await res.clone().text();
  const content = declared.content as JsonObject | undefined;
  if (!content) {
    if (text.length) problems.push(`${where} with a body, but the document declares none`);
    return problems;
  }
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (!content[mediaType]) return [...problems, `${where} as ${mediaType || 'no content type'}; the document declares ${Object.keys(content).join(', ')}`];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, `${where} with a body that is not JSON: ${text.slice(0, 200)}`];
  }
  const validate = validator(op, status, mediaType);
  if (!validate(body)) problems.push(...errorsOf(where, validate));
  return problems;
}

/** Fails (throws) when `res` breaks the document. */
export async function assertConforms(method: string, url: string, res: Response): Promise<void> {
  const problems = await contractViolations(method, url, res);
  if (problems.length) throw new Error(`The response drifts from the OpenAPI document:\n- ${problems.slice(0, 20).join('\n- ')}`);
}

const contracts = new Map(PUBLISHED_EVENTS.map((c) => [`${c.type}@${c.version}`, c]));
const envelopes = new Map<OutboxContract, ValidateFunction>();

/** A contract's event as stored: the envelope of platform/jobs/outbox.ts around the declared payload. */
function envelope(c: OutboxContract): ValidateFunction {
  let validate = envelopes.get(c);
  if (!validate) {
    const schema = Strict({
      id: Type.String({ pattern: '^evt_' }),
      type: Type.Literal(c.type),
      version: Type.Literal(c.version),
      storeId: Type.String(),
      subjectType: Type.Literal(c.subjectType),
      subjectId: Type.String(),
      occurredAt: DateTime(),
      sequence: Int({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      // The trace context of the change, when tracing is on (platform/observability/tracing.ts).
      trace: Type.Optional(Type.Record(Type.String(), Type.String())),
      data: c.schema,
    });
    envelopes.set(c, (validate = ajv.compile(schema)));
  }
  return validate;
}

/** The ways a stored outbox event breaks its contract (empty when it conforms). */
export function eventViolations(event: OutboxEvent): string[] {
  const contract = contracts.get(`${event.type}@${event.version}`);
  if (!contract) return [`${event.type} (version ${event.version}) is published but no subgraph declares it`];
  const where = `${event.type} ${event.id}`;
  const validate = envelope(contract);
  return validate(event) ? [] : errorsOf(where, validate);
}

/** The ways a webhook request breaks the document's entry for its topic and type: a missing header, a body off its schema. */
export function deliveryViolations(topic: string, headers: Record<string, string | string[] | undefined>, text: string): string[] {
  let body: { type?: unknown };
  try {
    body = JSON.parse(text) as { type?: unknown };
  } catch {
    return [`a ${topic} delivery whose body is not JSON: ${text.slice(0, 200)}`];
  }
  // The operational topic's types are named in full (`webhook.disabled`); the others' are the topic's (`return` + `created`).
  const type = String(body.type);
  const name = type.includes('.') ? type : `${topic}.${type}`;
  const entry = webhooks.get(name);
  if (!entry) return [`a ${name} delivery, which no document declares`];
  const problems = (entry.operation.parameters as { name: string; in: string; required?: boolean }[])
    .filter((p) => p.in === 'header' && p.required && headers[p.name.toLowerCase()] === undefined)
    .map((p) => `${name} without its ${p.name} header`);
  const validate = compiled(`${entry.document}#/${pointer('webhooks', name, 'post', 'requestBody', 'content', 'application/json', 'schema')}`);
  if (!validate(body)) problems.push(...errorsOf(name, validate));
  return problems;
}

/** The delivery names the documents declare (`return.created`, ...). */
export const WEBHOOK_DELIVERIES: readonly string[] = [...webhooks.keys()];
