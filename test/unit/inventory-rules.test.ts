import { describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors.js';
import type { OutboxEvent } from '../../platform/jobs/outbox.js';
import {
  checkReceiptFits,
  checkReceiptReportsUnits,
  checkTransition,
  discrepancy,
  InboundShipmentStatus,
  shipmentCounts,
  shipmentCurrency,
  type LineTotals,
} from '../../subgraphs/inventory/inbound-shipment.rules.js';
import { byItemKey, InventoryKind, isStockDelta, itemName, kindNeedsProduct } from '../../subgraphs/inventory/inventory-item.rules.js';
import { completedReturn, restockedItem } from '../../subgraphs/inventory/restock.rules.js';

/** The pure rules of the inventory subgraph, without a database or an app. */

function thrown(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

const { PENDING, IN_TRANSIT, PARTIALLY_RECEIVED, RECEIVED } = InboundShipmentStatus;

describe('inbound shipment status machine', () => {
  it('marks only a PENDING shipment in transit', () => {
    expect(() => checkTransition(PENDING, IN_TRANSIT)).not.toThrow();
    for (const from of [IN_TRANSIT, PARTIALLY_RECEIVED, RECEIVED]) {
      const err = thrown(() => checkTransition(from, IN_TRANSIT));
      expect([err.status, err.slug, err.message]).toEqual([409, 'invalid-transition', `An inbound shipment cannot go from ${from} to IN_TRANSIT.`]);
    }
  });

  it('takes receipts until the shipment is RECEIVED, which is final', () => {
    for (const from of [PENDING, IN_TRANSIT, PARTIALLY_RECEIVED]) expect(() => checkTransition(from, RECEIVED)).not.toThrow();
    const err = thrown(() => checkTransition(RECEIVED, RECEIVED));
    expect([err.status, err.slug, err.message]).toEqual([409, 'invalid-transition', 'An inbound shipment cannot go from RECEIVED to RECEIVED.']);
  });
});

describe('receipt rules', () => {
  const line = (quantity: number, receivedQuantity = 0, damagedQuantity = 0, missingQuantity = 0): LineTotals => ({ quantity, receivedQuantity, damagedQuantity, missingQuantity });

  it('names every receipt line that reports no units', () => {
    expect(() => checkReceiptReportsUnits([{ itemId: 'a', receivedQuantity: 1 }, { itemId: 'b', missingQuantity: 2 }])).not.toThrow();
    const err = thrown(() =>
      checkReceiptReportsUnits([{ itemId: 'a' }, { itemId: 'b', damagedQuantity: 1 }, { itemId: 'c', receivedQuantity: 0, damagedQuantity: null, missingQuantity: 0 }]),
    );
    expect([err.status, err.slug, err.message]).toEqual([400, 'validation-failed', 'The receipt is invalid.']);
    expect(err.errors).toEqual([
      { pointer: '/items/0', detail: 'reports no units' },
      { pointer: '/items/2', detail: 'reports no units' },
    ]);
  });

  it('accepts a receipt up to the units each line has not accounted for yet', () => {
    const lines = new Map([
      ['a', line(10, 4, 1, 1)],
      ['b', line(3)],
    ]);
    expect(() => checkReceiptFits('ish_1', [{ itemId: 'a', receivedQuantity: 2, damagedQuantity: 1, missingQuantity: 1 }, { itemId: 'b', receivedQuantity: 3 }], lines)).not.toThrow();
  });

  it('refuses more units than a line has left, counting every earlier receipt', () => {
    const err = thrown(() => checkReceiptFits('ish_1', [{ itemId: 'a', receivedQuantity: 2, missingQuantity: 1 }], new Map([['a', line(10, 5, 2, 1)]])));
    expect([err.status, err.slug]).toEqual([400, 'quantity-exceeds-expected']);
    expect(err.errors).toEqual([{ pointer: '/items/0', detail: 'reports 3 units but only 2 of 10 remain unaccounted for' }]);
  });

  it('refuses a line of another shipment, and reports the excess first when both happen', () => {
    const lines = new Map([['a', line(1)]]);
    const unknown = thrown(() => checkReceiptFits('ish_1', [{ itemId: 'x', receivedQuantity: 1 }], lines));
    expect([unknown.status, unknown.slug, unknown.message]).toEqual([400, 'validation-failed', 'The receipt is invalid.']);
    expect(unknown.errors).toEqual([{ pointer: '/items/0/itemId', detail: 'is not a line of shipment ish_1' }]);

    const both = thrown(() => checkReceiptFits('ish_1', [{ itemId: 'x', receivedQuantity: 1 }, { itemId: 'a', damagedQuantity: 2 }], lines));
    expect([both.slug, both.message]).toEqual(['quantity-exceeds-expected', 'The receipt reports more units than the shipment expects.']);
    expect(both.errors?.map((e) => e.pointer)).toEqual(['/items/0/itemId', '/items/1']);
  });
});

describe('shipment figures', () => {
  it('counts lines, expected, good, damaged and missing units', () => {
    const lines = [
      { quantity: 10, receivedQuantity: 6, damagedQuantity: 1, missingQuantity: 2 },
      { quantity: 5, receivedQuantity: 0, damagedQuantity: 0, missingQuantity: 0 },
    ];
    expect(shipmentCounts(lines)).toEqual({ skuCount: 2, itemCount: 15, receivedCount: 6, damagedCount: 1, missingCount: 2 });
    expect(shipmentCounts([])).toEqual({ skuCount: 0, itemCount: 0, receivedCount: 0, damagedCount: 0, missingCount: 0 });
    expect(lines.map(discrepancy)).toEqual([4, 5]);
  });

  it("takes the currency of the shipment's costs, USD without any", () => {
    expect(shipmentCurrency({ freightCost: { amount: '1.00', currency: 'EUR' }, dutyCost: { amount: '2', currency: 'JPY' } })).toBe('EUR');
    expect(shipmentCurrency({ freightCost: null, dutyCost: { amount: '2', currency: 'JPY' } })).toBe('JPY');
    expect(shipmentCurrency({ freightCost: null, dutyCost: null })).toBe('USD');
  });
});

describe('inventory item rules', () => {
  it('names an item after its product, with the variant when there is one', () => {
    expect(itemName({ title: 'Tee', variantTitle: 'S' })).toBe('Tee - S');
    expect(itemName({ title: 'Hat', variantTitle: null })).toBe('Hat');
    expect(itemName({ title: 'Hat', variantTitle: '' })).toBe('Hat');
  });

  it('lets only unknown and undeclared stock exist without a product', () => {
    expect(Object.values(InventoryKind).filter((kind) => !kindNeedsProduct(kind))).toEqual([InventoryKind.UNDECLARED, InventoryKind.UNKNOWN]);
  });

  it('moves whole, non-zero numbers of units', () => {
    expect([1, -1, 2_147_483_647].every(isStockDelta)).toBe(true);
    expect([0, -0, 1.5, Number.NaN, Number.POSITIVE_INFINITY].some(isStockDelta)).toBe(false);
  });

  it('orders items by sku, then kind, then lot (no lot first), the order writers lock them in', () => {
    const keys = [
      { sku: 'B', kind: InventoryKind.PRODUCT },
      { sku: 'A', kind: InventoryKind.RETURN },
      { sku: 'A', kind: InventoryKind.PRODUCT, lotNumber: 'L2' },
      { sku: 'A', kind: InventoryKind.PRODUCT, lotNumber: null },
      { sku: 'A', kind: InventoryKind.PRODUCT, lotNumber: 'L1' },
    ];
    expect([...keys].sort(byItemKey)).toEqual([keys[3], keys[4], keys[2], keys[1], keys[0]]);
    expect(byItemKey({ sku: 'A', kind: InventoryKind.PRODUCT, lotNumber: '' }, { sku: 'A', kind: InventoryKind.PRODUCT })).toBe(0);
  });
});

describe('restock rules', () => {
  const event = (type: string, status: string, items: { id: string; sku: string | null; title: string | null; quantity: number; restock?: boolean }[]) =>
    ({
      id: 'evt_1',
      type,
      version: 1,
      storeId: 'sto_1',
      subjectType: 'return',
      subjectId: 'ret_1',
      occurredAt: '2026-12-01T00:00:00Z',
      data: { return: { status }, destinationLocationId: 'loc_1', items },
    }) as unknown as OutboxEvent;

  it('reads a completed return, leaving out items processed not to be restocked', () => {
    const items = [
      { id: 'ri_1', sku: 'TEE', title: 'Tee', quantity: 1, restock: true },
      { id: 'ri_2', sku: 'HAT', title: 'Hat', quantity: 2, restock: false },
      // Events from before the flag existed restock every item.
      { id: 'ri_3', sku: null, title: null, quantity: 1 },
    ];
    expect(completedReturn(event('return.updated', 'complete', items))).toEqual({ returnId: 'ret_1', destinationLocationId: 'loc_1', items: [items[0], items[2]] });
  });

  it('ignores returns that are not complete and other events', () => {
    expect(completedReturn(event('return.updated', 'open', []))).toBeNull();
    expect(completedReturn(event('return.created', 'complete', []))).toBeNull();
  });

  it("files a product's sku as RETURN stock named after it, any other sku as UNKNOWN stock named after the returned item", () => {
    expect(restockedItem('TEE-S', 'Old tee', { id: 'prd_1', title: 'Tee', variantTitle: 'S' })).toEqual({ productId: 'prd_1', sku: 'TEE-S', name: 'Tee - S', kind: InventoryKind.RETURN });
    expect(restockedItem('ODD', 'Odd thing', undefined)).toEqual({ productId: null, sku: 'ODD', name: 'Odd thing', kind: InventoryKind.UNKNOWN });
    expect(restockedItem('ODD', null, undefined)).toEqual({ productId: null, sku: 'ODD', name: 'ODD', kind: InventoryKind.UNKNOWN });
  });
});
