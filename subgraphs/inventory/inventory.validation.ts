import { invalid, type FieldError } from '../../platform/errors.js';

const MONEY_AMOUNT = /^\d{1,15}(\.\d{1,4})?$/;
const CURRENCY = /^[A-Z]{3}$/;

/**
 * Collects every violation of an input before refusing it, so a caller fixes
 * everything in one round trip. Pointers are JSON pointers into the GraphQL
 * arguments (`/input/items/0/quantity`).
 */
export class Violations {
  readonly errors: FieldError[] = [];

  add(pointer: string, detail: string): this {
    this.errors.push({ pointer, detail });
    return this;
  }

  /** A required (or, with `optional`, nullable) trimmed string of 1..max characters. */
  text(pointer: string, value: string | null | undefined, options: { optional?: boolean; max?: number } = {}): this {
    const max = options.max ?? 255;
    if (value === null || value === undefined) {
      if (!options.optional) this.add(pointer, 'is required');
    } else if (!value.trim()) this.add(pointer, 'must not be empty');
    else if (value.length > max) this.add(pointer, `must be at most ${max} characters`);
    return this;
  }

  /** An integer within bounds. */
  integer(pointer: string, value: number | null | undefined, options: { min?: number; max?: number } = {}): this {
    if (value === null || value === undefined) return this;
    if (options.min !== undefined && value < options.min) this.add(pointer, `must be at least ${options.min}`);
    if (options.max !== undefined && value > options.max) this.add(pointer, `must be at most ${options.max}`);
    return this;
  }

  /** `{amount: "12.34", currency: "USD"}`: a non-negative decimal string (kept as text, never a float). */
  money(pointer: string, value: { amount: string; currency: string } | null | undefined): this {
    if (!value) return this;
    if (!MONEY_AMOUNT.test(value.amount)) this.add(`${pointer}/amount`, 'must be a non-negative decimal string with at most 4 decimals, e.g. "12.34"');
    if (!CURRENCY.test(value.currency)) this.add(`${pointer}/currency`, 'must be an ISO 4217 code, e.g. "USD"');
    return this;
  }

  throwIfAny(detail = 'The input is invalid.'): void {
    if (this.errors.length) throw invalid('validation-failed', detail, this.errors);
  }
}
