import { Decimal, money, type Money } from '../../platform/money.js';

/** Hand computations of the analytics tests: which bucket a time falls in, named by Intl in the zone (independent of the service's arithmetic). */

export interface WindowArg {
  from: string;
  until: string;
  interval?: 'HOUR' | 'DAY' | 'WEEK' | 'MONTH';
  timeZone?: string;
}

/** The local hour (with its offset, so a repeated hour is two), date, Monday of the week, or month of `t` in the window's zone. */
export function bucketLabel(t: Date, window: WindowArg): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: window.timeZone ?? 'UTC', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', timeZoneName: 'longOffset' })
      .formatToParts(t)
      .map((p) => [p.type, p.value]),
  );
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  switch (window.interval ?? 'DAY') {
    case 'HOUR':
      return `${date} ${parts.hour} ${parts.timeZoneName}`;
    case 'MONTH':
      return `${parts.year}-${parts.month}`;
    case 'WEEK': {
      const d = new Date(`${date}T00:00:00Z`);
      d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
      return d.toISOString().slice(0, 10);
    }
    default:
      return date;
  }
}

export function inWindow(t: Date, window: WindowArg): boolean {
  return t.getTime() >= Date.parse(window.from) && t.getTime() < Date.parse(window.until);
}

/** The measures `returnStats` answers, as the tests select them. */
export const RETURN_MEASURES = 'returns items refund { amount currency } storeCredit { amount currency } exchange { amount currency } returnRate';

export interface ReturnMeasures {
  returns: number;
  items: number;
  refund: Money[];
  storeCredit: Money[];
  exchange: Money[];
  returnRate: number | null;
}

export const NO_RETURNS: ReturnMeasures = { returns: 0, items: 0, refund: [], storeCredit: [], exchange: [], returnRate: null };

/** A bucket's or group's `returnStats` measures summed by hand from stored returns and their items. */
export class ExpectedReturns {
  returns = new Set<string>();
  items = 0;
  refund = new Map<string, Decimal>();
  storeCredit = new Map<string, Decimal>();
  exchange = new Map<string, Decimal>();

  add(ret: { id: string; currency: string }, items: { quantity: number; compensation: string; refund: string }[]): void {
    this.returns.add(ret.id);
    for (const item of items) {
      this.items += item.quantity;
      const bag = item.compensation === 'refund' ? this.refund : item.compensation === 'store_credit' ? this.storeCredit : this.exchange;
      bag.set(ret.currency, (bag.get(ret.currency) ?? new Decimal(0)).plus(item.refund));
    }
  }

  measures(ordered: number): ReturnMeasures {
    const list = (m: Map<string, Decimal>) =>
      [...m.entries()]
        .filter(([, v]) => !v.isZero())
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([c, v]) => money(v, c));
    return { returns: this.returns.size, items: this.items, refund: list(this.refund), storeCredit: list(this.storeCredit), exchange: list(this.exchange), returnRate: ordered ? this.items / ordered : null };
  }
}
