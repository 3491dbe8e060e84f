import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import type { Orm } from '../../platform/db/orm.js';
import type { DatabaseTimeouts } from '../../platform/config.js';
import type { Logger } from '../../platform/observability/logger.js';
import { createErasureQueue } from '../../platform/privacy/erasure.job.js';
import { ErasureRequests } from '../../platform/privacy/erasure.service.js';
import { SUPPRESSION_MODES, type RetentionDays, type SuppressionMode } from '../../platform/privacy/participants.js';
import { checkDays } from '../../platform/privacy/privacy.resolver.js';
import { oneIdentifier } from '../../platform/privacy/privacy.schemas.js';
import { createRetentionQueue, requestRetentionPass, RetentionSettings } from '../../platform/privacy/retention.js';
import { startQueue } from '../../platform/jobs/queue.js';
import { secretBoxOf } from '../../platform/secret-box.js';
import { need, UsageError } from './cli-args.js';

type Values = Record<string, string | boolean | undefined>;

interface Opened {
  url: string;
  orm: Orm;
  accounts: AccountsService;
  logger: Logger;
  timeouts: DatabaseTimeouts;
}

const RETENTION_OPTIONS: Record<string, keyof RetentionDays> = {
  'custom-event-days': 'customEventDays',
  'message-days': 'messageDays',
  'flow-run-days': 'flowRunDays',
  'webhook-log-days': 'webhookLogDays',
};

function days(option: string, value: string): number | null {
  if (value === 'forever') return null;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${option} takes a number of days or "forever"`);
  return Number(value);
}

/**
 * The admin CLI's privacy commands (docs/privacy.md): the same services the API uses, on the
 * platform's tables and queue. The erasure itself runs in the service's workers.
 */
export async function privacyCommand(command: string, values: Values, { url, orm, accounts, logger, timeouts }: Opened): Promise<Record<string, unknown>> {
  const retention = new RetentionSettings(orm);
  if (command === 'data-retention') {
    const storeId = need(values, 'store');
    const patch = Object.fromEntries(
      Object.entries(RETENTION_OPTIONS).flatMap(([option, key]) => (typeof values[option] === 'string' ? [[key, days(option, values[option])]] : [])),
    ) as Partial<RetentionDays>;
    if (!(await accounts.storeExists(storeId))) throw new UsageError(`no store ${storeId}`);
    return { storeId, ...(Object.keys(patch).length ? await retention.update(storeId, checkDays(patch)) : await retention.get(storeId)) };
  }
  const boss = await startQueue(url, logger, { supervise: false, poolSize: 2, timeouts });
  try {
    await createErasureQueue(boss);
    await createRetentionQueue(boss);
    const erasures = new ErasureRequests(orm, boss, secretBoxOf(accounts));
    if (command === 'enforce-retention') {
      await requestRetentionPass(boss);
      return { queued: true };
    }
    if (command === 'erasure-status') {
      const [erasure] = await erasures.documents([need(values, 'id')]);
      if (!erasure) throw new UsageError(`no erasure request ${String(values.id)}`);
      return erasure;
    }
    const storeId = need(values, 'store');
    if (!(await accounts.storeExists(storeId))) throw new UsageError(`no store ${storeId}`);
    const suppression = (typeof values.suppression === 'string' ? values.suppression.toUpperCase() : 'DROP') as SuppressionMode;
    if (!SUPPRESSION_MODES.includes(suppression)) throw new UsageError(`--suppression is one of ${SUPPRESSION_MODES.join(', ')}`);
    const str = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
    const by = oneIdentifier({ customerId: str('customer-id'), email: str('email'), phoneNumber: str('phone') }, '', { customerId: 'customer-id' });
    let erasure = await erasures.request(storeId, by, suppression);
    while (values.wait && erasure.status !== 'COMPLETED' && erasure.status !== 'FAILED') {
      await new Promise((r) => setTimeout(r, 500));
      [erasure] = (await erasures.documents([erasure.id])) as [typeof erasure];
    }
    return erasure;
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}
