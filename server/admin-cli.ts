import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { AccountsService } from '../platform/accounts/accounts.service.js';
import { platformDbModule } from '../platform/accounts/index.js';
import { loadConfig } from '../platform/config.js';
import { openDatabase } from '../platform/db/database.js';
import { createOrm, migrate } from '../platform/db/orm.js';
import { AppError } from '../platform/errors.js';
import { createLogger } from '../platform/logger.js';
import { SEED_DEMO_USAGE } from './seed-demo.js';

const USAGE = `usage: npm run --silent admin -- <command> [options] [--json]

  create-account --name NAME [--store-name NAME]
  create-store --account ID --name NAME
  create-secret --account ID [--scopes a,b]
  list-secrets --account ID
  revoke-secret --account ID --prefix P
  create-compat-key --store ID
  admin-token
${SEED_DEMO_USAGE}
`;

type Output = Record<string, unknown> | unknown[];

function need(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || !value) throw new UsageError(`--${name} is required`);
  return value;
}

class UsageError extends Error {}

function human(result: Output): string {
  if (Array.isArray(result)) return result.map((r) => human(r as Record<string, unknown>)).join('\n');
  return Object.entries(result)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(',') : String(v)}`)
    .join('\n');
}

async function main(): Promise<number> {
  // seed-demo drives the service's API and parses its own options (server/seed-demo-command.ts).
  if (process.argv[2] === 'seed-demo') return (await import('./seed-demo-command.js')).seedDemoCommand(process.argv.slice(3));
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      'store-name': { type: 'string' },
      account: { type: 'string' },
      store: { type: 'string' },
      scopes: { type: 'string' },
      prefix: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const command = positionals[0];
  if (!command || values.help) {
    process.stderr.write(USAGE);
    return command || values.help ? 0 : 2;
  }
  const config = loadConfig();
  // Logs go to stderr so `--json` output on stdout stays machine-readable.
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', { stderr: true });
  const database = await openDatabase(config, logger);
  const orm = await createOrm(database.url, platformDbModule, 2, logger);
  try {
    await migrate(database.url, orm, platformDbModule);
    const accounts = new AccountsService(orm);
    let result: Output;
    switch (command) {
      case 'create-account':
        result = { ...(await accounts.createAccount({ name: need(values, 'name'), storeName: values['store-name'] })) };
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
      case 'admin-token':
        result = { adminToken: await accounts.adminToken(config.adminToken) };
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
