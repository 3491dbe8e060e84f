import { readBody, Violations } from '../../platform/validation.js';
import type { Address } from './return.view.js';
import { readAddress } from './order.validation.js';

export const COMPENSATIONS = ['refund', 'store_credit', 'exchange'] as const;
export type Compensation = (typeof COMPENSATIONS)[number];
export const RETURN_TYPES = ['return', 'warranty'] as const;

export interface ReturnItemInput {
  lineItemId: string;
  quantity: number;
  reason: string;
  reasonCode: string | null;
  notes: string | null;
  compensation: Compensation;
}

export interface ReturnInput {
  provider: string;
  externalOrderId: string;
  items: ReturnItemInput[];
  shippingAddress: Address | null;
  notes: string | null;
  type: (typeof RETURN_TYPES)[number];
  createExternalRMAs: boolean;
}

/** The create-return body (decisions section 8); every violation with its JSON pointer. */
export function validateReturn(body: unknown): ReturnInput {
  const violations = new Violations();
  const root = readBody(body, violations);
  if (!root) return violations.throwIfAny() as never;
  root.rejectUnknown(['data', 'options']);
  const data = root.object_('data', { required: true });
  const options = root.object_('options');
  options?.rejectUnknown(['createExternalRMAs']);
  if (!data) return violations.throwIfAny('The return is invalid.') as never;
  data.rejectUnknown(['provider', 'externalOrderId', 'items', 'shippingAddress', 'notes', 'type']);
  const provider = data.string('provider', { required: true, max: 64 });
  const externalOrderId = data.string('externalOrderId', { required: true, max: 255 });
  const seen = new Map<string, number>();
  const items = (data.array('items', { required: true, min: 1, max: 500 }) ?? []).map((item, index): ReturnItemInput => {
    item.rejectUnknown(['lineItemId', 'quantity', 'reason', 'reasonCode', 'notes', 'compensation']);
    const lineItemId = item.string('lineItemId', { required: true, max: 255 });
    if (lineItemId !== undefined) {
      if (seen.has(lineItemId)) violations.add(item.at('lineItemId'), `repeats the line item of /data/items/${seen.get(lineItemId)}`);
      else seen.set(lineItemId, index);
    }
    return {
      lineItemId: lineItemId ?? '',
      quantity: item.integer('quantity', { required: true, min: 1 }) ?? 1,
      reason: item.string('reason', { required: true, max: 1000 }) ?? '',
      reasonCode: item.string('reasonCode', { max: 255 }) ?? null,
      notes: item.string('notes', { max: 5000 }) ?? null,
      compensation: item.oneOf('compensation', COMPENSATIONS) ?? 'refund',
    };
  });
  const shippingAddress = readAddress(data.object_('shippingAddress'));
  const notes = data.string('notes', { max: 5000 }) ?? null;
  const type = data.oneOf('type', RETURN_TYPES) ?? 'return';
  const createExternalRMAs = options?.boolean('createExternalRMAs') ?? false;
  violations.throwIfAny('The return is invalid.');
  return { provider: provider!, externalOrderId: externalOrderId!, items, shippingAddress, notes, type, createExternalRMAs };
}
