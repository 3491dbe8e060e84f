import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';

/**
 * Every setting the service reads from the environment, in one typed place.
 * `.env.example` lists the same variables with their defaults.
 */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** A read replica for heavy reads (decisions section 19); bypassed while away or more than `replicaMaxLagSeconds` behind. */
  databaseReplicaUrl: string | undefined;
  replicaMaxLagSeconds: number;
  dataDir: string;
  adminToken: string | undefined;
  /** Bearer token for `/metrics` besides the admin token (a scraper should not hold the admin token). */
  metricsToken: string | undefined;
  nodeEnv: string;
  isProduction: boolean;
  logLevel: string;
  /** `json` (for machines), `pretty` (for people), or `auto`: pretty when stdout is a terminal. */
  logFormat: 'json' | 'pretty' | 'auto';
  /**
   * How long the database may stay unreachable before the process exits (code 1) for its supervisor
   * to restart it; meanwhile `/readyz` says not ready and API calls answer 503 (0: never exit).
   */
  databaseLostExitMs: number;
  /** Set by npm when a script started us: the process then stops when npm goes away. */
  startedByNpm: boolean;
  eventsRateLimitPerSecond: number;
  /** Event creation answers 503 while more accepted events than this wait for processing (0: never). */
  eventsMaxBacklog: number;
  /** Jobs a custom-event worker applies per transaction. */
  eventsBatchSize: number;
  /** Event transactions in flight per worker process, in acceptance order (custom-event.job.ts). */
  eventsWorkerConcurrency: number;
  /** Failed attempts of an accepted event before it is dead-lettered, and the first retry's delay (doubling): RETRIES.events. */
  eventsRetryLimit: number;
  eventsRetryDelaySeconds: number;
  /** How long an outbox event every consumer has read is kept before retention deletes it (0: at the next sweep). */
  outboxKeepSeconds: number;
  compatRateLimitPerMinute: number;
  apiRateLimitPerMinute: number;
  webhookAllowedHosts: string[];
  webhookRetrySchedule: number[];
  webhookTimeoutMs: number;
  /** A subscription whose deliveries have all failed this long (hours; fractions allowed) is disabled and the store told. */
  webhookDisableAfterHours: number;
  /** Flows: email through SMTP when set (e.g. smtp://user:pass@host:587), sent from smtpFrom; else recorded. */
  smtpUrl: string | undefined;
  smtpFrom: string;
  /** Flows: SMS are POSTed as {to, body} to this URL when set; else recorded. */
  smsWebhookUrl: string | undefined;
  /**
   * Where customers and SMS providers reach the service (the unsubscribe links of marketing emails,
   * the inbound SMS URL): an https URL in production; `http://localhost:<PORT>` when unset.
   */
  publicUrl: string;
  /** The mailto of marketing emails' `List-Unsubscribe` (the subject carries the token); `SMTP_FROM` when unset. */
  unsubscribeMailto: string;
  /** Message templates: the time one render may take and the largest output accepted. */
  templateRenderTimeoutMs: number;
  templateMaxOutputBytes: number;
  dbPoolSize: number;
  /** How long the service waits on its database (docs/operations.md, "Timeouts"). */
  dbTimeouts: DatabaseTimeouts;
  /** A request not answered by then gets 503 with Retry-After, and the log says what it waited on (0: no deadline). */
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** When the retention job runs (pg-boss cron, UTC); docs/privacy.md. */
  retentionCron: string;
  /** Create and print a demo account on the first start against an empty database. */
  demoAccount: boolean;
  /** Split mode: where the gateway finds each subgraph, and the port a subgraph process listens on. */
  subgraphUrls: Record<SubgraphName, string>;
  subgraphPorts: Record<SubgraphName, number>;
  /** OpenTelemetry tracing is asked for by the standard `OTEL_*` variables (`tracingSettings`). */
  tracing: boolean;
}

/** The bounds every database connection of a process works under, pools and single clients alike. */
export interface DatabaseTimeouts {
  /** Waiting for a pool's connection (a free one, or a new one opened): past it the caller gets 503. */
  acquireMs: number;
  /** PostgreSQL's `statement_timeout` on pool connections: a statement running longer is cancelled (0: none). */
  statementMs: number;
  /** TCP keepalive: an idle connection is probed after this long, so a half-open socket is found and dropped. */
  keepAliveMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { acquireMs: 10_000, statementMs: 30_000, keepAliveMs: 10_000 };

export const SUBGRAPH_NAMES = ['returns', 'inventory', 'events'] as const;
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];

/** A start-up problem the operator must fix (a setting, a port, a directory): its message says what to do. */
export class StartupError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new StartupError(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

function list(env: Env, name: string, fallback: string): string[] {
  return (env[name] ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const DEFAULT_RETRY_SCHEDULE = '30,120,600,1800,3600,7200,21600,43200';

/**
 * The process environment over the `.env` file of the working directory (when there is one):
 * a variable set in the environment wins over the same one in the file.
 */
export function environment(env: Env = process.env, envFile = '.env'): Env {
  if (!existsSync(envFile)) return env;
  return { ...parseEnv(readFileSync(envFile, 'utf8')), ...env };
}

const LOG_FORMATS = ['json', 'pretty', 'auto'] as const;

/** The service name traces carry when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one. */
export const DEFAULT_SERVICE_NAME = 'returns-platform';

export interface TracingSettings {
  /** `OTEL_*` variables the SDK must see: it reads the process environment only, so those of `.env` are given to it. */
  variables: Env;
  /** Set when the variables name no service. */
  serviceName?: string;
}

/**
 * OpenTelemetry tracing (docs/observability.md) is off unless the standard
 * variables ask for it: `OTEL_TRACES_EXPORTER` naming an exporter other than
 * `none`, or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). `OTEL_SDK_DISABLED=true` wins.
 * Everything else (sampler, protocol, headers, resource) the SDK reads itself.
 */
export function tracingSettings(env: Env = environment()): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = list(env, 'OTEL_TRACES_EXPORTER', '');
  const requested = exporters.length ? exporters.some((e) => e !== 'none') : Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (!requested) return undefined;
  const variables = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('OTEL_')));
  const named = Boolean(env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  return { variables, ...(named ? {} : { serviceName: DEFAULT_SERVICE_NAME }) };
}

/** `PUBLIC_URL` without a trailing slash: an http(s) URL with no query or fragment. */
function publicUrl(env: Env): string {
  const raw = env.PUBLIC_URL?.trim();
  if (!raw) return `http://localhost:${env.PORT || '4000'}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StartupError(`PUBLIC_URL must be an http or https URL, got "${raw}"`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash) throw new StartupError(`PUBLIC_URL must be an http or https URL without query or fragment, got "${raw}"`);
  return url.toString().replace(/\/+$/, '');
}

export function loadConfig(env: Env = environment()): Config {
  const logFormat = env.LOG_FORMAT || 'auto';
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) throw new StartupError(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}, got "${logFormat}"`);
  const nodeEnv = env.NODE_ENV ?? 'development';
  const retry = list(env, 'WEBHOOK_RETRY_SCHEDULE', DEFAULT_RETRY_SCHEDULE).map(Number);
  if (retry.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new StartupError('WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of seconds');
  }
  const disableAfter = env.WEBHOOK_DISABLE_AFTER_HOURS ? Number(env.WEBHOOK_DISABLE_AFTER_HOURS) : 120;
  if (!Number.isFinite(disableAfter) || disableAfter <= 0) throw new StartupError('WEBHOOK_DISABLE_AFTER_HOURS must be a positive number of hours (a fraction such as 0.5 is allowed)');
  const subgraphPorts = {
    returns: int(env, 'RETURNS_SUBGRAPH_PORT', 4001, 1),
    inventory: int(env, 'INVENTORY_SUBGRAPH_PORT', 4002, 1),
    events: int(env, 'EVENTS_SUBGRAPH_PORT', 4003, 1),
  };
  return {
    port: int(env, 'PORT', 4000),
    // Loopback unless told otherwise: a developer's demo credentials stay off the local network.
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    databaseReplicaUrl: env.DATABASE_REPLICA_URL || undefined,
    replicaMaxLagSeconds: int(env, 'REPLICA_MAX_LAG_SECONDS', 30, 0),
    dataDir: resolve(env.DATA_DIR || '.data'),
    adminToken: env.ADMIN_TOKEN || undefined,
    metricsToken: env.METRICS_TOKEN || undefined,
    nodeEnv,
    isProduction: nodeEnv === 'production',
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: logFormat as Config['logFormat'],
    databaseLostExitMs: int(env, 'DATABASE_LOST_EXIT_MS', 60_000, 0),
    startedByNpm: Boolean(env.npm_lifecycle_event),
    eventsRateLimitPerSecond: int(env, 'EVENTS_RATE_LIMIT_PER_SECOND', 100, 1),
    eventsMaxBacklog: int(env, 'EVENTS_MAX_BACKLOG', 200_000, 0),
    eventsBatchSize: int(env, 'EVENTS_BATCH_SIZE', 250, 1),
    eventsWorkerConcurrency: int(env, 'EVENTS_WORKER_CONCURRENCY', 2, 1),
    eventsRetryLimit: int(env, 'EVENTS_RETRY_LIMIT', 5, 0),
    eventsRetryDelaySeconds: int(env, 'EVENTS_RETRY_DELAY_SECONDS', 2, 0),
    outboxKeepSeconds: int(env, 'OUTBOX_KEEP_SECONDS', 0, 0),
    compatRateLimitPerMinute: int(env, 'COMPAT_RATE_LIMIT_PER_MINUTE', 300, 1),
    apiRateLimitPerMinute: int(env, 'API_RATE_LIMIT_PER_MINUTE', 6000, 1),
    webhookAllowedHosts: list(env, 'WEBHOOK_ALLOWED_HOSTS', ''),
    webhookRetrySchedule: retry,
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1),
    webhookDisableAfterHours: disableAfter,
    smtpUrl: env.SMTP_URL || undefined,
    smtpFrom: env.SMTP_FROM || 'no-reply@localhost',
    smsWebhookUrl: env.SMS_WEBHOOK_URL || undefined,
    publicUrl: publicUrl(env),
    unsubscribeMailto: env.UNSUBSCRIBE_MAILTO || env.SMTP_FROM || 'no-reply@localhost',
    templateRenderTimeoutMs: int(env, 'TEMPLATE_RENDER_TIMEOUT_MS', 1000, 1),
    templateMaxOutputBytes: int(env, 'TEMPLATE_MAX_OUTPUT_BYTES', 256 * 1024, 1),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 10, 1),
    dbTimeouts: {
      acquireMs: int(env, 'DB_ACQUIRE_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.acquireMs, 1),
      statementMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.statementMs, 0),
      keepAliveMs: int(env, 'DB_KEEPALIVE_MS', DEFAULT_DATABASE_TIMEOUTS.keepAliveMs, 1),
    },
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 0),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 20_000, 0),
    retentionCron: env.RETENTION_CRON || '17 * * * *',
    demoAccount: (env.DEMO_ACCOUNT ?? 'true') !== 'false',
    subgraphPorts,
    tracing: tracingSettings(env) !== undefined,
    subgraphUrls: {
      returns: env.RETURNS_SUBGRAPH_URL || `http://127.0.0.1:${subgraphPorts.returns}/graphql`,
      inventory: env.INVENTORY_SUBGRAPH_URL || `http://127.0.0.1:${subgraphPorts.inventory}/graphql`,
      events: env.EVENTS_SUBGRAPH_URL || `http://127.0.0.1:${subgraphPorts.events}/graphql`,
    },
  };
}
