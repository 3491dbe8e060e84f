import { Decimal } from 'decimal.js';

export { Decimal };

export interface Money {
  amount: string;
  currency: string;
}

const digitsCache = new Map<string, number>();

/** Minor-unit digits of an ISO 4217 currency (2 for USD, 0 for JPY, 3 for KWD). */
export function currencyDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(currency, digits);
  }
  return digits;
}

/** A money value rounded half-up to the currency's minor unit, as a decimal string. */
export function money(amount: Decimal.Value, currency: string): Money {
  return { amount: new Decimal(amount).toDecimalPlaces(currencyDigits(currency), Decimal.ROUND_HALF_UP).toFixed(currencyDigits(currency)), currency };
}
