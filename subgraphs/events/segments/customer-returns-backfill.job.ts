import { AsyncLocalStorage } from 'node:async_hooks';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { sql, type Orm } from '../../../platform/db/orm.js';
import { holdConsumer } from '../../../platform/jobs/outbox-consumers.js';
import type { DataOf } from '../../../platform/jobs/outbox.js';
import { ensureQueue, RETRIES, type PgBoss } from '../../../platform/jobs/queue.js';
import type { Contributions } from '../../../platform/module.js';
import type { Logger } from '../../../platform/observability/logger.js';
import type { OrderCreated, ReturnCreated } from '../../returns/public.js';
import { CUSTOMER_RETURNS_CONSUMER, orderFact, returnFact, writeOrderFacts, writeReturnFacts } from './customer-returns.consumer.js';

/**
 * The returns and orders that existed before the `customer-returns` consumer started reading the
 * outbox (a deployment upgrading to segments over return history) have no event it could read:
 * this copies them once, so return conditions count them. Queued at every start until it has
 * finished (then a no-op), one job at a time; each run copies pages for a while and queues the
 * next run, so neither a job nor a transaction grows with the store.
 */
const BACKFILL_QUEUE = 'customer-returns-backfill';

const KINDS = ['order', 'return'] as const;
type Kind = (typeof KINDS)[number];

/** Subjects per transaction, and how long one run goes on before it hands over to the next job. */
const PAGE = 500;
const RUN_MS = 60_000;

interface Position {
  store_id: string | null;
  kind: Kind | null;
  after_id: string | null;
  finished_at: Date | null;
}

export async function createCustomerReturnsBackfillQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, BACKFILL_QUEUE, { ...RETRIES.requested, policy: 'stately', expireInSeconds: 900, deadLetters: true });
}

async function position(orm: Orm): Promise<Position> {
  const [row] = await sql<Position>(orm.em.fork(), 'select store_id, kind, after_id, finished_at from customer_returns_backfill');
  return row!;
}

/**
 * Copies one page of a store's orders or returns that the segments' tables do not have, and moves
 * the position past it, in one transaction. Returns the page's last id (null: the kind is done).
 *
 * Why the result is the current state whatever the interleaving with the consumer. The
 * transaction first holds the consumer's position row (`holdConsumer`): no pass of the consumer
 * applies anything until it commits. The page is read after that, so it shows every change
 * committed before the hold. For each subject of the page:
 * - a change committed before the read whose event the consumer already applied left a row (or,
 *   for a deleted order, no row and no order in the page): the row is kept as it is
 *   (`on conflict do nothing`), since the consumer's later events bring it forward as before;
 * - a change committed before the read whose event the consumer has not applied yet: the page
 *   already shows its result; the row is written at sequence 0, below every event's, so when the
 *   consumer applies that event and those after it (in commit order, after this commit) each
 *   replaces it and the last one leaves the current state, as it would have from the start;
 * - a change committed after the read: the consumer applies its event after this commit (it
 *   cannot before: the hold), over the row written here. A deletion after the read removes the
 *   row; it cannot come before the insert and be undone by it.
 * A subject with no change since the read keeps the page's state, which is the current one. A
 * second run finds every row there and changes nothing. (Not covered: an event that failed three
 * times is applied from the consumer's pg-boss queue without the hold; an order deletion applied
 * that way while a page is read could be copied back. Narrow: only during the one-off backfill.)
 * An erasure (customer-returns.privacy.ts)
 * holds the consumer too, so a page read before the returns part anonymised a person cannot bring
 * their rows back after the events part removed them.
 */
async function copyPage(orm: Orm, pages: NonNullable<Contributions['subjects'][string]>, storeId: string, kind: Kind, after: string | null, size: number): Promise<string | null> {
  // The page is read on the returns subgraph's own pool, outside this transaction's context (which
  // the ORM would otherwise lend it: another schema's connection), while the hold lasts.
  const outside = AsyncLocalStorage.snapshot();
  return orm.em.fork().transactional(async (em) => {
    await holdConsumer(em, CUSTOMER_RETURNS_CONSUMER);
    const page = await outside(() => pages(storeId, after, size));
    if (kind === 'return') await writeReturnFacts(em, page.map((p) => returnFact(storeId, p.subjectId, p.data as DataOf<typeof ReturnCreated>, 0)), 'missing');
    else await writeOrderFacts(em, page.map((p) => orderFact(storeId, p.subjectId, p.data as DataOf<typeof OrderCreated>, 0)), 'missing');
    const last = page.length < size ? null : page[page.length - 1]!.subjectId;
    await sql(em, 'update customer_returns_backfill set store_id = $1, kind = $2, after_id = $3', [storeId, kind, last]);
    return last;
  });
}

/**
 * Runs the backfill from where it stands, pages of `page` subjects, until a page ends after `forMs`
 * (each run moves on by one page at least); returns whether it finished. Stores
 * in id order, each store's orders then its returns, each in id order. Stores made after the
 * consumer started need nothing, but copying them is harmless (every row is there).
 */
export async function backfillCustomerReturns(orm: Orm, accounts: AccountsService, contributions: Pick<Contributions, 'subjects'>, { page = PAGE, forMs = RUN_MS } = {}): Promise<boolean> {
  const started = Date.now();
  const at = await position(orm);
  if (at.finished_at) return true;
  // Read when used: the runtime fills the contributions after making the modules' services.
  const orders = contributions.subjects.order;
  const returns = contributions.subjects.return;
  if (!orders || !returns) throw new Error('the returns subgraph is not loaded in this process: the backfill of customer returns needs its subjects');
  const stores: string[] = [];
  for (const account of await accounts.listAccounts()) for (const s of await accounts.listStores(account.accountId)) stores.push(s.storeId);
  stores.sort();
  for (const storeId of stores) {
    if (at.store_id && storeId < at.store_id) continue;
    for (const kind of KINDS) {
      // Resuming: the kinds of the position's store before its own are done.
      if (storeId === at.store_id && KINDS.indexOf(kind) < KINDS.indexOf(at.kind!)) continue;
      let after = storeId === at.store_id && kind === at.kind ? at.after_id : null;
      // A resumed position whose page was the kind's last one (after_id null) is done.
      if (storeId === at.store_id && kind === at.kind && after === null && at.kind) continue;
      do {
        after = await copyPage(orm, kind === 'order' ? orders : returns, storeId, kind, after, page);
        if (after && Date.now() - started > forMs) return false;
      } while (after);
    }
  }
  await sql(orm.em.fork(), 'update customer_returns_backfill set finished_at = now()');
  return true;
}

/** Worker roles: the job's worker, and the job queued when the backfill has not finished. */
export async function startCustomerReturnsBackfill(orm: Orm, boss: PgBoss, accounts: AccountsService, contributions: Pick<Contributions, 'subjects'>, logger: Logger): Promise<void> {
  await boss.work(BACKFILL_QUEUE, { pollingIntervalSeconds: 2 }, async () => {
    const done = await backfillCustomerReturns(orm, accounts, contributions);
    if (done) logger.info('the segments\' copy of returns and orders is complete');
    else await boss.send(BACKFILL_QUEUE, {}, { singletonKey: BACKFILL_QUEUE });
  });
  if (!(await position(orm)).finished_at) await boss.send(BACKFILL_QUEUE, {}, { singletonKey: BACKFILL_QUEUE });
}
