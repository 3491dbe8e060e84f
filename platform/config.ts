import { resolve } from 'node:path';

/**
 * Every setting the service reads from the environment, in one typed place.
 * `.env.example` lists the same variables with their defaults.
 */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  adminToken: string | undefined;
  /** Bearer token for `/metrics` besides the admin token (a scraper should not hold the admin token). */
  metricsToken: string | undefined;
  nodeEnv: string;
  isProduction: boolean;
  logLevel: string;
  eventsRateLimitPerSecond: number;
  /** Event creation answers 503 while more accepted events than this wait for processing (0: never). */
  eventsMaxBacklog: number;
  compatRateLimitPerMinute: number;
  apiRateLimitPerMinute: number;
  webhookAllowedHosts: string[];
  webhookRetrySchedule: number[];
  webhookTimeoutMs: number;
  /** Flows: email through SMTP when set (e.g. smtp://user:pass@host:587), sent from smtpFrom; else recorded. */
  smtpUrl: string | undefined;
  smtpFrom: string;
  /** Flows: SMS are POSTed as {to, body} to this URL when set; else recorded. */
  smsWebhookUrl: string | undefined;
  /** Message templates: the time one render may take and the largest output accepted. */
  templateRenderTimeoutMs: number;
  templateMaxOutputBytes: number;
  dbPoolSize: number;
  shutdownTimeoutMs: number;
  /** Create and print a demo account on the first start against an empty database. */
  demoAccount: boolean;
  /** Split mode: where the gateway finds each subgraph, and the port a subgraph process listens on. */
  subgraphUrls: Record<SubgraphName, string>;
  subgraphPorts: Record<SubgraphName, number>;
}

export const SUBGRAPH_NAMES = ['returns', 'inventory', 'events'] as const;
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
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

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = env.NODE_ENV ?? 'development';
  const retry = list(env, 'WEBHOOK_RETRY_SCHEDULE', DEFAULT_RETRY_SCHEDULE).map(Number);
  if (retry.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error('WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of seconds');
  }
  const subgraphPorts = {
    returns: int(env, 'RETURNS_SUBGRAPH_PORT', 4001, 1),
    inventory: int(env, 'INVENTORY_SUBGRAPH_PORT', 4002, 1),
    events: int(env, 'EVENTS_SUBGRAPH_PORT', 4003, 1),
  };
  return {
    port: int(env, 'PORT', 4000),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: resolve(env.DATA_DIR || '.data'),
    adminToken: env.ADMIN_TOKEN || undefined,
    metricsToken: env.METRICS_TOKEN || undefined,
    nodeEnv,
    isProduction: nodeEnv === 'production',
    logLevel: env.LOG_LEVEL || 'info',
    eventsRateLimitPerSecond: int(env, 'EVENTS_RATE_LIMIT_PER_SECOND', 100, 1),
    eventsMaxBacklog: int(env, 'EVENTS_MAX_BACKLOG', 200_000, 0),
    compatRateLimitPerMinute: int(env, 'COMPAT_RATE_LIMIT_PER_MINUTE', 300, 1),
    apiRateLimitPerMinute: int(env, 'API_RATE_LIMIT_PER_MINUTE', 6000, 1),
    webhookAllowedHosts: list(env, 'WEBHOOK_ALLOWED_HOSTS', ''),
    webhookRetrySchedule: retry,
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1),
    smtpUrl: env.SMTP_URL || undefined,
    smtpFrom: env.SMTP_FROM || 'no-reply@localhost',
    smsWebhookUrl: env.SMS_WEBHOOK_URL || undefined,
    templateRenderTimeoutMs: int(env, 'TEMPLATE_RENDER_TIMEOUT_MS', 1000, 1),
    templateMaxOutputBytes: int(env, 'TEMPLATE_MAX_OUTPUT_BYTES', 256 * 1024, 1),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 10, 1),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 20_000, 0),
    demoAccount: (env.DEMO_ACCOUNT ?? 'true') !== 'false',
    subgraphPorts,
    subgraphUrls: {
      returns: env.RETURNS_SUBGRAPH_URL || `http://127.0.0.1:${subgraphPorts.returns}/graphql`,
      inventory: env.INVENTORY_SUBGRAPH_URL || `http://127.0.0.1:${subgraphPorts.inventory}/graphql`,
      events: env.EVENTS_SUBGRAPH_URL || `http://127.0.0.1:${subgraphPorts.events}/graphql`,
    },
  };
}
