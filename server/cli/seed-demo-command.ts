import { parseArgs } from 'node:util';
import { AccountsService } from '../../platform/accounts/accounts.service.js';
import { platformDbModule } from '../../platform/schema.js';
import { environment, loadConfig, type Config } from '../../platform/config.js';
import { openDatabase } from '../../platform/db/database.js';
import { createOrm, migrate, sql } from '../../platform/db/orm.js';
import { createLogger, type Logger } from '../../platform/observability/logger.js';
import { startService, type RunningService } from '../main.js';
import pg from 'pg';
import { DEFAULT_COUNTS, ORDERS_PER_RETURN, seedDemo, terminalProgress, type SeedCounts } from './seed-demo.js';

class SeedUsageError extends Error {}

function count(value: string | undefined, name: keyof SeedCounts, max: number): number {
  if (value === undefined) return DEFAULT_COUNTS[name];
  if (!/^\d+$/.test(value) || Number(value) > max) throw new SeedUsageError(`--${name} must be an integer from 0 to ${max}`);
  return Number(value);
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

/** The admin token of the running configuration (ADMIN_TOKEN, or the one generated and kept in the database). */
async function adminToken(config: Config, logger: Logger): Promise<string> {
  if (config.adminToken) return config.adminToken;
  const database = await openDatabase(config, logger);
  const orm = await createOrm(database.url, platformDbModule, 2, logger, config.dbTimeouts);
  try {
    await migrate(database.url, orm, platformDbModule);
    return await new AccountsService(orm).adminToken(undefined);
  } finally {
    await orm.close();
    await database.stop();
  }
}

/**
 * Sets the returns' creation times (the API dates a return when it is made): an update the
 * returns rollups follow like any other (their triggers). Unchanged ones are left alone.
 */
function returnDater(config: Config, logger: Logger, url?: string) {
  return async (dates: { returnId: string; createdAt: Date }[]) => {
    const database = url ? undefined : await openDatabase(config, logger);
    const client = new pg.Client({ connectionString: url ?? database!.url });
    await client.connect();
    try {
      for (let i = 0; i < dates.length; i += 1000) {
        const batch = dates.slice(i, i + 1000);
        await client.query(
          `update returns.return r set created_at = d.created_at from unnest($1::text[], $2::timestamptz[]) as d(id, created_at)
            where r.id = d.id and r.created_at <> d.created_at`,
          [batch.map((d) => d.returnId), batch.map((d) => d.createdAt.toISOString())],
        );
      }
    } finally {
      await client.end();
      await database?.stop();
    }
  };
}

/** Waits (bounded) until the events just queued are processed, so the store shows them when the command ends. */
async function drainEvents(service: RunningService): Promise<void> {
  const { orm } = service.runtime.deps.events!;
  for (let i = 0; i < 600; i++) {
    const [row] = await sql<{ n: number }>(orm.em.fork(), 'select count(*)::int as n from event_inbox');
    if (row!.n === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Where the command reads its configuration and writes its output (the process's, unless a test gives others). */
export interface CommandIo {
  env: Record<string, string | undefined>;
  stdout: { write(text: string): unknown };
  stderr: NodeJS.WriteStream | { write(text: string): unknown; isTTY?: boolean };
}

/** `admin -- seed-demo ...`: exit code 0 on success, 2 on a usage error. */
export async function seedDemoCommand(argv: string[], io: CommandIo = { env: environment(), stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        store: { type: 'string' },
        orders: { type: 'string' },
        returns: { type: 'string' },
        events: { type: 'string' },
        inventory: { type: 'string' },
        days: { type: 'string' },
        end: { type: 'string' },
        url: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    }));
    if (!values.store) throw new SeedUsageError('--store is required');
  } catch (err) {
    io.stderr.write(
      `${err instanceof Error ? err.message : String(err)}\n\nusage: npm run --silent admin -- seed-demo --store ID [--orders N --returns N --events N --inventory N --days N --end YYYY-MM-DD] [--url URL] [--json]\n`,
    );
    return 2;
  }
  let counts: SeedCounts;
  let end: Date | undefined;
  try {
    const returns = count(values.returns, 'returns', 50_000);
    // --returns without --orders: enough orders for a plausible return rate.
    const orders = values.orders === undefined && values.returns !== undefined ? Math.max(DEFAULT_COUNTS.orders, returns * ORDERS_PER_RETURN) : count(values.orders, 'orders', 200_000);
    counts = { orders, returns, events: count(values.events, 'events', 5_000_000), inventory: count(values.inventory, 'inventory', 1_000), days: Math.max(1, count(values.days, 'days', 3650)) };
    if (values.end !== undefined) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(values.end) || Number.isNaN(Date.parse(`${values.end}T00:00:00Z`))) throw new SeedUsageError('--end must be a date, YYYY-MM-DD');
      end = new Date(`${values.end}T00:00:00Z`);
    }
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const config = loadConfig(io.env);
  const logger = createLogger(io.env.LOG_LEVEL ?? 'warn', { stderr: true });
  let baseUrl = (values.url ?? `http://127.0.0.1:${config.port}`).replace(/\/$/, '');
  let service: RunningService | undefined;
  let token: string;
  if (await answers(baseUrl)) {
    token = await adminToken(config, logger);
  } else {
    if (values.url) throw new Error(`no service answers at ${baseUrl}`);
    io.stderr.write(`No service answers at ${baseUrl}; starting one in this process.\n`);
    // Its demo webhook receiver listens on 127.0.0.1 (seed-demo.ts#seedWebhook): the service it starts allows that callback.
    service = await startService({ ...config, port: 0, host: '127.0.0.1', demoAccount: false, webhookAllowedHosts: [...config.webhookAllowedHosts, '127.0.0.1'] }, logger, 'all');
    baseUrl = `http://127.0.0.1:${service.port}`;
    token = service.runtime.adminToken;
  }
  try {
    const dateReturns = returnDater(config, logger, service?.runtime.database.url);
    const summary = await seedDemo({ baseUrl, token, storeId: values.store, counts, end, dateReturns, progress: terminalProgress(io.stderr) });
    if (service) await drainEvents(service);
    io.stdout.write(
      values.json
        ? `${JSON.stringify(summary)}\n`
        : `Store ${summary.storeId}: ${summary.orders} orders, ${Object.values(summary.returns).reduce((a, b) => a + b, 0)} returns (${Object.entries(summary.returns)
            .map(([s, n]) => `${n} ${s}`)
            .join(', ')}), ${summary.products} products in ${summary.locations} locations, ${summary.inboundShipments} inbound shipments, ${summary.events} events of ${summary.customers} customers.${
            summary.webhook ? ` Webhook ${summary.webhook.subscriptionId}: ${summary.webhook.succeeded} deliveries to this command's receiver (${summary.webhook.failed} failed, ${summary.webhook.pending} pending).` : ''
          }\n`,
    );
    return 0;
  } finally {
    await service?.stop();
  }
}
