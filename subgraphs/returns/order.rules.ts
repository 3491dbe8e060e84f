import { Decimal, money, type Money } from '../../platform/money.js';

/** What an order line's money is made of: its unit price, the tax and discount of the whole line, the units ordered. */
export interface LineAmounts {
  price: string;
  tax: string;
  discount: string;
  quantity: number;
}

/**
 * An order's totals in its currency: the lines at unit price times quantity,
 * their discounts and taxes, the shipping, and the total (lines less
 * discounts plus taxes and shipping), each summed exactly and rounded once.
 */
export function orderTotals(
  lines: readonly LineAmounts[],
  shippingCost: string,
  currency: string,
): { discounts: Money; lineItemsTotal: Money; shippingCost: Money; taxes: Money; total: Money } {
  const m = (value: Decimal.Value) => money(value, currency);
  const lineItemsTotal = lines.reduce((acc, l) => acc.plus(new Decimal(l.price).times(l.quantity)), new Decimal(0));
  const discounts = lines.reduce((acc, l) => acc.plus(l.discount), new Decimal(0));
  const taxes = lines.reduce((acc, l) => acc.plus(l.tax), new Decimal(0));
  return {
    discounts: m(discounts),
    lineItemsTotal: m(lineItemsTotal),
    shippingCost: m(shippingCost),
    taxes: m(taxes),
    total: m(lineItemsTotal.minus(discounts).plus(taxes).plus(shippingCost)),
  };
}

/**
 * An order-level amount (a discount, a tax) shared over the lines in proportion to their values,
 * each share cut to 6 decimals (what `numeric(20, 6)` keeps) and the last line taking the rest, so
 * the shares always sum to the amount exactly. Lines worth nothing in total share it evenly.
 */
export function spreadByValue(amount: Decimal.Value, values: readonly Decimal.Value[]): Decimal[] {
  const total = values.reduce<Decimal>((acc, v) => acc.plus(v), new Decimal(0));
  let left = new Decimal(amount);
  return values.map((value, i) => {
    if (i === values.length - 1) return left;
    const share = (total.isZero() ? new Decimal(amount).dividedBy(values.length) : new Decimal(amount).times(value).dividedBy(total)).toDecimalPlaces(6, Decimal.ROUND_DOWN);
    left = left.minus(share);
    return share;
  });
}
