import { addMoney, MAX_GROUPS, moneyList, topGroups } from '../../platform/analytics/sql.js';
import type { Window } from '../../platform/analytics/time-window.js';
import type { Decimal } from '../../platform/money.js';
import type { ReturnFilter } from './return.schemas.js';
import type { ReturnStatsBasis } from './return-stats.input.js';
import type { ReturnStatsReads, StatRow, StatScope, StatShape } from './return-stats.rows.js';
import { ReturnDimension, ReturnRateBasis, type ReturnMeasuresType, type ReturnStatsType } from './return-stats.type.js';

/** Running sums of one bucket or group, over its currencies. */
class Sums {
  returns = 0;
  items = 0;
  readonly refund = new Map<string, Decimal>();
  readonly storeCredit = new Map<string, Decimal>();
  readonly exchange = new Map<string, Decimal>();

  add(row: StatRow): void {
    this.returns += row.returns;
    this.items += row.items;
    addMoney(this.refund, row.currency, row.refund);
    addMoney(this.storeCredit, row.currency, row.storeCredit);
    addMoney(this.exchange, row.currency, row.exchange);
  }

  measures(ordered: number | undefined): ReturnMeasuresType {
    return {
      returns: this.returns,
      items: this.items,
      refund: moneyList(this.refund),
      storeCredit: moneyList(this.storeCredit),
      exchange: moneyList(this.exchange),
      returnRate: ordered ? this.items / ordered : null,
    };
  }
}

function sumBy<K>(rows: readonly StatRow[], keyOf: (row: StatRow) => K): Map<K, Sums> {
  const sums = new Map<K, Sums>();
  for (const row of rows) {
    const key = keyOf(row);
    let s = sums.get(key);
    if (!s) sums.set(key, (s = new Sums()));
    s.add(row);
  }
  return sums;
}

const SHAPES: Record<ReturnDimension, StatShape> = {
  [ReturnDimension.STATUS]: { dim: '', key: 'status' },
  [ReturnDimension.TYPE]: { dim: '', key: 'type' },
  [ReturnDimension.REASON]: { dim: 'REASON', key: 'key' },
  [ReturnDimension.SKU]: { dim: 'SKU', key: 'key' },
  [ReturnDimension.OUTCOME]: { dim: 'OUTCOME', key: 'key' },
};

/**
 * `returnStats` over one period: the series and totals from each return's own rows, the groups
 * from the rows of the dimension (a status or type is the return's; a reason, sku or outcome its
 * items'), and the units ordered beside them for `returnRate` (by the scope's customers only, when
 * it names some).
 */
async function loadReturnStats(
  reads: ReturnStatsReads,
  storeId: string,
  window: Window,
  by: ReturnDimension | undefined,
  filter: ReturnFilter,
  scope: StatScope,
  rateBasis: ReturnRateBasis = ReturnRateBasis.ORDERED,
): Promise<ReturnStatsType> {
  const fulfilled = rateBasis === ReturnRateBasis.FULFILLED;
  const shape = by ? SHAPES[by] : undefined;
  // STATUS and TYPE are columns of the return's own rows: one read gives the series and the groups.
  const ownKey = shape?.dim === '' ? shape.key : null;
  const whose = { customers: scope.customers, email: filter.email };
  const [rows, ordered, groupRows] = await Promise.all([
    reads.returns(storeId, window, { dim: '', key: ownKey }, filter, scope, { perBucket: true }),
    reads.ordered(storeId, window, { perBucket: true, fulfilled, ...whose }),
    shape && shape.dim !== '' ? reads.returns(storeId, window, shape, filter, scope, { perBucket: false, top: MAX_GROUPS }) : Promise.resolve(undefined),
  ]);

  const orderedIn = new Map(ordered.map((o) => [o.bucket, o.units]));
  const orderedTotal = ordered.reduce((sum, o) => sum + o.units, 0);
  const buckets = sumBy(rows, (r) => r.bucket);
  const series = window.starts.map((start, i) => ({ start: new Date(start), measures: (buckets.get(i) ?? new Sums()).measures(orderedIn.get(i)) }));
  const totals = sumBy(rows, () => 0).get(0) ?? new Sums();

  let groups: ReturnStatsType['groups'] = [];
  if (by) {
    const byKey = sumBy(groupRows ?? rows, (r) => r.key);
    const top = topGroups([...byKey].map(([key, sums]) => ({ key, sums })), (g) => g.sums.returns);
    // A sku's return rate is against that sku's ordered units; every other group's against all of them.
    const perSku = by === ReturnDimension.SKU ? new Map((await reads.ordered(storeId, window, { perBucket: false, skus: top.map((g) => g.key), fulfilled, ...whose })).map((o) => [o.key, o.units])) : undefined;
    groups = top.map(({ key, sums }) => ({ key, measures: sums.measures(perSku ? perSku.get(key) : orderedTotal) }));
  }
  return { from: new Date(window.from), until: new Date(window.until), basis: scope.basis as ReturnStatsBasis, totals: totals.measures(orderedTotal), series, groups, previous: null };
}

/** `returnStats`: the window, and with `previous` the period just before it, each cut into its own buckets. */
export async function loadReturnStatsCompared(
  reads: ReturnStatsReads,
  storeId: string,
  window: Window,
  previous: Window | undefined,
  by: ReturnDimension | undefined,
  filter: ReturnFilter,
  scope: StatScope,
  rateBasis?: ReturnRateBasis,
): Promise<ReturnStatsType> {
  const [current, before] = await Promise.all([
    loadReturnStats(reads, storeId, window, by, filter, scope, rateBasis),
    previous ? loadReturnStats(reads, storeId, previous, by, filter, scope, rateBasis) : Promise.resolve(null),
  ]);
  return { ...current, previous: before };
}
