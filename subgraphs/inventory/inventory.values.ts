/** Enum values, spelled exactly as REST shows them (GraphQL enums carry the same spellings). */
export enum InboundShipmentStatus {
  PENDING = 'PENDING',
  IN_TRANSIT = 'IN_TRANSIT',
  PARTIALLY_RECEIVED = 'PARTIALLY_RECEIVED',
  RECEIVED = 'RECEIVED',
}

export enum InventoryKind {
  PRODUCT = 'PRODUCT',
  RETURN = 'RETURN',
  UNDECLARED = 'UNDECLARED',
  UNKNOWN = 'UNKNOWN',
}
