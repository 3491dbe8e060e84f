import type { ProductRow } from './product.rows.js';

/** Classifications of stock, not a lifecycle; spelled exactly as REST shows them (the GraphQL enum carries the same spellings). */
export enum InventoryKind {
  PRODUCT = 'PRODUCT',
  RETURN = 'RETURN',
  UNDECLARED = 'UNDECLARED',
  UNKNOWN = 'UNKNOWN',
}

/** An item's display name: the product title, then " - " and the variant title when there is one. */
export function itemName(product: Pick<ProductRow, 'title' | 'variantTitle'>): string {
  return product.variantTitle ? `${product.title} - ${product.variantTitle}` : product.title;
}

/** Unknown and undeclared stock may exist under a sku the store does not sell (yet); other kinds need the store's product. */
export function kindNeedsProduct(kind: InventoryKind): boolean {
  return kind !== InventoryKind.UNKNOWN && kind !== InventoryKind.UNDECLARED;
}

/** A stock change moves a whole, non-zero number of units. */
export function isStockDelta(delta: number): boolean {
  return Number.isInteger(delta) && delta !== 0;
}

/** What identifies an item in its store (with the store): a stock change finds or creates its item by it. */
export interface ItemKey {
  sku: string;
  kind: InventoryKind;
  lotNumber?: string | null;
}

/** Lock order for changes to several items: always the same, so two writers never wait on each other in a cycle. */
export function byItemKey(a: ItemKey, b: ItemKey): number {
  const ka = `${a.sku}\u0000${a.kind}\u0000${a.lotNumber ?? ''}`;
  const kb = `${b.sku}\u0000${b.kind}\u0000${b.lotNumber ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
