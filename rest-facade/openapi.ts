import type { TObject, TSchema } from '@sinclair/typebox';
import type { Scope } from '../platform/api/auth.js';
import type { ProblemSlug } from '../platform/problems.js';
import { pipelineProblems, type HeaderSpec, type ProblemsByStatus, type ResponseSpec, type RouteSpec } from './pipeline/route.js';
import type { DocumentedTable } from './pipeline/routing.js';

/**
 * The OpenAPI 3.1 document of a REST API, generated from its route table: the
 * same specs the pipeline validates with (query, body), the responses each
 * route declares, the problems the pipeline and the route answer with. Any
 * table works (RouteTable or RouteList); what differs between APIs (title,
 * security scheme, error format, pagination, the webhooks it sends) comes
 * with its description.
 */

export type JsonObject = Record<string, unknown>;

interface ParameterSpec {
  name: string;
  in: 'query' | 'header';
  description: string;
  schema: TSchema | JsonObject;
}

/** What an API adds to its routes' specs to make its document. */
export interface ApiDescription {
  info: { title: string; version: string; description: string };
  /** Where the table is mounted: the document's server URL (relative to the service). */
  basePath: string;
  tags?: { name: string; description: string }[];
  /** Descriptions of path parameters by name (`storeId`, ...). */
  pathParameters?: Record<string, string>;
  securitySchemes: JsonObject;
  /** The security requirement of an operation that needs `scope`. */
  security(scope: Scope): JsonObject[];
  /**
   * The response of an error status, with the problem types the operation may
   * carry under it; `schema` turns a TypeBox schema into the document's form.
   */
  errorResponse(status: number, slugs: readonly ProblemSlug[], schema: (s: TSchema) => JsonObject): JsonObject;
  /** Headers every answer carries. */
  commonHeaders?: Record<string, HeaderSpec>;
  /** How lists are paged: the parameters, the headers of a page, the problems of bad paging input. */
  pagination?: { parameters: ParameterSpec[]; headers: Record<string, HeaderSpec>; problems: ProblemsByStatus };
  /**
   * The status this API answers a problem with, when its error format moves it
   * (Laravel answers validation with 422). Default: the problem's status.
   */
  problemStatus?(slug: ProblemSlug, status: number): number;
  /** The requests the API sends to its subscribers (OpenAPI 3.1 `webhooks`). */
  webhooks?: WebhooksDescription;
}

/** Outgoing requests: one POST per kind of delivery, all signed and answered the same way. */
interface WebhooksDescription {
  tag?: string;
  /** Said of every delivery (how it is signed, ordered, retried). */
  description: string;
  /** Headers every delivery carries. */
  headers: Record<string, HeaderSpec>;
  /** What the subscriber's answers mean, by status or range (`2XX`, `default`). */
  responses: Record<string, ResponseSpec>;
  deliveries: readonly { name: string; summary: string; body: TSchema }[];
}

const SCHEMA_REF = '#/components/schemas/';
/** Keywords of the service's Ajv that are not JSON Schema: published as extensions (`detail` is only a message). */
const EXTENSION_KEYWORDS: Record<string, string | null> = { detail: null, maxBytes: 'x-max-bytes', requireAnyOf: 'x-require-any-of', uniqueItemsBy: 'x-unique-items-by' };

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
const SUBSCHEMAS = new Set(['items', 'additionalProperties', 'not', 'propertyNames', 'contains', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems']);

/** Named schemas (those with a `title`) become components; each name must always mean the same schema. */
class Components {
  readonly schemas: Record<string, JsonObject> = {};
  private readonly texts = new Map<string, string>();

  /** A TypeBox schema as plain JSON Schema, its named parts replaced by references. */
  schema(schema: TSchema | JsonObject): JsonObject {
    return this.walk(JSON.parse(JSON.stringify(schema)) as unknown) as JsonObject;
  }

  add(name: string, schema: JsonObject): void {
    const text = JSON.stringify(schema);
    const known = this.texts.get(name);
    if (known !== undefined && known !== text) throw new Error(`Two different schemas are both named "${name}"; give one another title`);
    this.texts.set(name, text);
    this.schemas[name] = schema;
  }

  /** A schema object: its subschemas walked by keyword (property maps keep their keys), extension keywords renamed. */
  private walk(node: unknown): unknown {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (Object.hasOwn(EXTENSION_KEYWORDS, key)) {
        const renamed = EXTENSION_KEYWORDS[key];
        if (renamed) out[renamed] = value;
      } else if (SCHEMA_MAPS.has(key)) {
        out[key] = Object.fromEntries(Object.entries(value as JsonObject).map(([name, sub]) => [name, this.walk(sub)]));
      } else if (SCHEMA_LISTS.has(key)) {
        out[key] = (value as unknown[]).map((sub) => this.walk(sub));
      } else if (SUBSCHEMAS.has(key)) {
        out[key] = this.walk(value);
      } else {
        out[key] = value;
      }
    }
    if (typeof out.title === 'string') {
      this.add(out.title, out);
      return { $ref: `${SCHEMA_REF}${out.title}` };
    }
    return out;
  }
}

function headerObject(components: Components, header: HeaderSpec): JsonObject {
  return { description: header.description, ...(header.required ? { required: true } : {}), schema: components.schema(header.schema ?? { type: 'string' }) };
}

function headersObject(components: Components, headers: Record<string, HeaderSpec>): JsonObject | undefined {
  const entries = Object.entries(headers);
  return entries.length ? Object.fromEntries(entries.map(([name, h]) => [name, headerObject(components, h)])) : undefined;
}

function headerParameters(components: Components, headers: Record<string, HeaderSpec>): JsonObject[] {
  return Object.entries(headers).map(([name, h]) => ({ name, in: 'header', ...headerObject(components, h) }));
}

function mergeProblems(api: ApiDescription, ...sets: ProblemsByStatus[]): [number, ProblemSlug[]][] {
  const merged = new Map<number, ProblemSlug[]>();
  for (const set of sets) {
    for (const [declared, slugs] of Object.entries(set)) {
      for (const slug of slugs ?? []) {
        const status = api.problemStatus ? api.problemStatus(slug, Number(declared)) : Number(declared);
        const list = merged.get(status) ?? [];
        if (!list.includes(slug)) list.push(slug);
        merged.set(status, list);
      }
    }
  }
  return [...merged.entries()].sort(([a], [b]) => a - b);
}

function queryParameters(components: Components, query: TObject | undefined): JsonObject[] {
  if (!query) return [];
  const required = new Set(query.required ?? []);
  return Object.entries(query.properties).map(([name, schema]) => {
    const { description, ...rest } = components.schema(schema);
    return { name, in: 'query', ...(description ? { description } : {}), ...(required.has(name) ? { required: true } : {}), schema: rest };
  });
}

function operationObject(components: Components, api: ApiDescription, method: string, path: string, spec: RouteSpec<TObject, TSchema>): JsonObject {
  if (!spec.operationId || !spec.summary || !spec.responses) {
    throw new Error(`${method} ${path} is not documented: give its spec an operationId, a summary and its responses`);
  }
  const pathParameters = [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    ...(api.pathParameters?.[name!] ? { description: api.pathParameters[name!] } : {}),
    schema: { type: 'string' },
  }));
  const pagination = spec.paginated ? api.pagination : undefined;
  if (spec.paginated && !pagination) throw new Error(`${method} ${path} is paginated but the API describes no pagination`);
  const parameters = [
    ...pathParameters,
    ...queryParameters(components, spec.query),
    ...(pagination?.parameters ?? []).map((p) => ({ name: p.name, in: p.in, description: p.description, schema: components.schema(p.schema) })),
    ...headerParameters(components, spec.headers ?? {}),
  ];
  const responses: JsonObject = {};
  for (const [status, response] of Object.entries(spec.responses) as [string, ResponseSpec][]) {
    const headers = headersObject(components, { ...api.commonHeaders, ...(pagination && status.startsWith('2') ? pagination.headers : {}), ...response.headers });
    responses[status] = {
      description: response.description,
      ...(headers ? { headers } : {}),
      ...(response.schema ? { content: { 'application/json': { schema: components.schema(response.schema) } } } : {}),
    };
  }
  for (const [status, slugs] of mergeProblems(api, pipelineProblems(path, spec, pagination?.problems), spec.problems ?? {})) {
    const error = api.errorResponse(status, slugs, (schema) => components.schema(schema));
    const success = responses[String(status)] as JsonObject | undefined;
    responses[String(status)] = success ? bothAnswers(success, error) : error;
  }
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.tag ? { tags: [spec.tag] } : {}),
    security: api.security(spec.scope),
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            description: `JSON, at most ${spec.body.limit.toLocaleString('en')} bytes.`,
            content: { 'application/json': { schema: components.schema(spec.body.schema) } },
          },
        }
      : {}),
    responses,
  };
}

/**
 * One status that is both a route's own answer and a problem's (Loop answers
 * some refusals itself with 422, and Laravel's validation with 422 too): either body.
 */
function bothAnswers(success: JsonObject, error: JsonObject): JsonObject {
  const content: Record<string, JsonObject> = { ...(success.content as Record<string, JsonObject> | undefined) };
  for (const [mediaType, media] of Object.entries((error.content ?? {}) as Record<string, JsonObject>)) {
    content[mediaType] = content[mediaType] ? { schema: { anyOf: [content[mediaType].schema, media.schema] } } : media;
  }
  return { ...error, ...success, description: `${String(success.description)}; ${String(error.description)}`, content };
}

/** The OpenAPI 3.1 document of `table` (paths in Express syntax become templates: `:id` -> `{id}`). */
export function openApiDocument(table: DocumentedTable, api: ApiDescription): JsonObject {
  const components = new Components();
  const paths: Record<string, Record<string, JsonObject>> = {};
  const operationIds = new Set<string>();
  for (const { method, path, route } of table.entries) {
    const operation = operationObject(components, api, method, path, route.spec);
    if (operationIds.has(String(operation.operationId))) throw new Error(`operationId ${String(operation.operationId)} is used twice`);
    operationIds.add(String(operation.operationId));
    (paths[path.replace(/:(\w+)/g, '{$1}')] ??= {})[method.toLowerCase()] = operation;
  }
  const webhooks = api.webhooks ? webhooksObject(components, api.webhooks) : undefined;
  return {
    openapi: '3.1.0',
    info: api.info,
    servers: [{ url: api.basePath }],
    ...(api.tags ? { tags: api.tags } : {}),
    paths,
    ...(webhooks ? { webhooks } : {}),
    components: { schemas: sortKeys(components.schemas), securitySchemes: api.securitySchemes },
  };
}

/** The document's `webhooks`: a path item per delivery, keyed by its name. */
function webhooksObject(components: Components, webhooks: WebhooksDescription): JsonObject {
  const parameters = headerParameters(components, webhooks.headers);
  const responses = Object.fromEntries(
    Object.entries(webhooks.responses).map(([status, r]) => {
      const headers = headersObject(components, r.headers ?? {});
      return [status, { description: r.description, ...(headers ? { headers } : {}) }];
    }),
  );
  return Object.fromEntries(
    webhooks.deliveries.map((d) => [
      d.name,
      {
        post: {
          summary: d.summary,
          description: webhooks.description,
          ...(webhooks.tag ? { tags: [webhooks.tag] } : {}),
          parameters,
          requestBody: { required: true, content: { 'application/json': { schema: components.schema(d.body) } } },
          responses,
        },
      },
    ]),
  );
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** The document as committed under docs/ (stable formatting, one trailing newline). */
export function documentText(document: JsonObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
