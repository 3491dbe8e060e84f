import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { AccountsService } from '../../platform/accounts/accounts.service.js';
import { platformDbModule } from '../../platform/schema.js';
import { environment, loadConfig } from '../../platform/config.js';
import { openDatabase } from '../../platform/db/database.js';
import { embeddedUrl } from '../../platform/db/embedded-postgres.js';
import { createOrm, migrate } from '../../platform/db/orm.js';
import { AppError } from '../../platform/errors.js';
import { createLogger } from '../../platform/observability/logger.js';
import { need, UsageError } from './cli-args.js';
import { SEED_DEMO_USAGE } from './seed-demo.js';

const USAGE = `usage: npm run --silent admin -- <command> [options] [--json]

  create-account --name NAME [--store-name NAME] [--contact EMAIL]
  set-contact --account ID (--contact EMAIL | --clear)   (told by email when a webhook subscription of the account is disabled)
  create-store --account ID --name NAME
  create-secret --account ID [--scopes a,b]
  list-secrets --account ID
  revoke-secret --account ID --prefix P        (P: the prefix list-secrets shows, or the whole secret)
  create-compat-key --store ID
  list-accounts
  list-stores --account ID
  admin-token
  database-url                                  (the embedded PostgreSQL: for psql, or DATABASE_URL of another process)
  erase-customer --store ID (--email E | --phone P | --customer-id C) [--suppression DROP|REFUSE] [--wait]
                                                (queues the erasure; --wait: until the service's workers completed it)
  erasure-status --id ID
  data-retention --store ID [--custom-event-days N] [--message-days N] [--flow-run-days N] [--webhook-log-days N]
                                                (shows, or changes, how long the store keeps records; N: days, or "forever")
  enforce-retention                             (queues a retention pass now)
${SEED_DEMO_USAGE}
`;

type Output = Record<string, unknown> | unknown[];

function human(result: Output): string {
  if (Array.isArray(result)) return result.map((r) => human(r as Record<string, unknown>)).join('\n\n');
  return Object.entries(result)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(',') : v instanceof Date ? v.toISOString() : String(v)}`)
    .join('\n');
}

async function main(): Promise<number> {
  // seed-demo drives the service's API and parses its own options (server/cli/seed-demo-command.ts).
  if (process.argv[2] === 'seed-demo') return (await import('./seed-demo-command.js')).seedDemoCommand(process.argv.slice(3));
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      'store-name': { type: 'string' },
      contact: { type: 'string' },
      clear: { type: 'boolean', default: false },
      account: { type: 'string' },
      store: { type: 'string' },
      scopes: { type: 'string' },
      prefix: { type: 'string' },
      email: { type: 'string' },
      phone: { type: 'string' },
      'customer-id': { type: 'string' },
      suppression: { type: 'string' },
      wait: { type: 'boolean', default: false },
      id: { type: 'string' },
      'custom-event-days': { type: 'string' },
      'message-days': { type: 'string' },
      'flow-run-days': { type: 'string' },
      'webhook-log-days': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, ...stray] = positionals;
  if (!command || values.help) {
    process.stderr.write(USAGE);
    return command || values.help ? 0 : 2;
  }
  // A word the command does not take (`[--store-name X]` pasted with its brackets) is a mistake, like an unknown flag.
  if (stray.length) throw new UsageError(`unexpected argument${stray.length > 1 ? 's' : ''}: ${stray.map((w) => JSON.stringify(w)).join(' ')}`);
  // The CLI is quiet unless LOG_LEVEL says otherwise.
  const config = loadConfig({ LOG_LEVEL: 'warn', ...environment() });
  // Logs go to stderr so `--json` output on stdout stays machine-readable.
  const logger = createLogger(config.logLevel, { stderr: true, format: config.logFormat });
  if (command === 'database-url') {
    // The embedded server keeps its port per DATA_DIR: its URL holds whether it runs now or later.
    let url = config.databaseUrl ?? embeddedUrl(config.dataDir);
    if (!url) {
      const database = await openDatabase(config, logger); // a new DATA_DIR: make the cluster, choose the port
      url = database.url;
      await database.stop();
    }
    process.stdout.write(values.json ? `${JSON.stringify({ databaseUrl: url })}\n` : `${url}\n`);
    return 0;
  }
  const database = await openDatabase(config, logger);
  const orm = await createOrm(database.url, platformDbModule, 2, logger, config.dbTimeouts);
  try {
    await migrate(database.url, orm, platformDbModule);
    const accounts = new AccountsService(orm);
    let result: Output;
    switch (command) {
      case 'create-account':
        result = { ...(await accounts.createAccount({ name: need(values, 'name'), storeName: values['store-name'], contactEmail: values.contact })) };
        break;
      case 'set-contact':
        result = await accounts.setContact(need(values, 'account'), values.clear ? null : need(values, 'contact'));
        break;
      case 'create-store':
        result = await accounts.createStore(need(values, 'account'), need(values, 'name'));
        break;
      case 'create-secret':
        result = { ...(await accounts.createSecret(need(values, 'account'), values.scopes?.split(',').map((s) => s.trim()).filter(Boolean))) };
        break;
      case 'list-secrets':
        result = await accounts.listSecrets(need(values, 'account'));
        break;
      case 'revoke-secret':
        result = await accounts.revokeSecret(need(values, 'account'), need(values, 'prefix'));
        break;
      case 'create-compat-key':
        result = await accounts.createCompatKey(need(values, 'store'));
        break;
      case 'list-accounts':
        result = await accounts.listAccounts();
        break;
      case 'list-stores':
        result = await accounts.listStores(need(values, 'account'));
        break;
      case 'admin-token':
        result = { adminToken: await accounts.adminToken(config.adminToken) };
        break;
      case 'erase-customer':
      case 'erasure-status':
      case 'data-retention':
      case 'enforce-retention':
        // Loaded only for these commands: they bring the GraphQL layer's validation with them.
        result = await (await import('./privacy-command.js')).privacyCommand(command, values, { url: database.url, orm, accounts, logger, timeouts: config.dbTimeouts });
        break;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
    process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${human(result)}\n`);
    return 0;
  } finally {
    await orm.close();
    await database.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) process.stderr.write(`${err.message}\n\n${USAGE}`);
    else if (err instanceof AppError) process.stderr.write(`error: ${err.message}\n`);
    else process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
