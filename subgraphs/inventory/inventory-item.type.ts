import { Directive, Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ConnectionType } from '../../platform/graphql/connection.js';
import { DateScalar } from '../../platform/graphql/scalars.js';
import { InventoryKind } from './inventory-item.rules.js';

registerEnumType(InventoryKind, { name: 'InventoryKind', description: 'Classification of stock (not a lifecycle).' });

// An item's units at one location (not the REST inventory level, which is a ProductLevel here).
@ObjectType('InventoryLevel', { description: 'Units of an item on hand at one location.' })
export class ItemLocationType {
  @Field(() => ID)
  locationId!: string;

  @Field(() => String)
  locationName!: string;

  @Field(() => Int)
  quantity!: number;
}

// `{storeId, sku, kind}` is the item of that sku and kind without a lot number.
@Directive('@key(fields: "id")')
@Directive('@key(fields: "storeId sku kind")')
@ObjectType('InventoryItem')
export class InventoryItemType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => ID, { nullable: true, description: 'The product, when the sku is one of the store (null for UNKNOWN stock).' })
  productId!: string | null;

  @Field(() => String)
  sku!: string;

  @Field(() => String, { description: 'Product title, then " - " and the variant title when there is one.' })
  name!: string;

  // A String (not the InventoryKind enum) because it is part of an entity key other subgraphs declare.
  @Field(() => String, { description: 'PRODUCT, RETURN, UNDECLARED or UNKNOWN' })
  kind!: string;

  @Field(() => String, { nullable: true })
  lotNumber!: string | null;

  @Field(() => DateScalar, { nullable: true })
  expirationDate!: string | null;

  @Field(() => Int, { description: 'Units on hand in total; in a list filtered by location, the units at that location.' })
  quantity!: number;

  @Field(() => [ItemLocationType], { description: 'Locations holding units of this item.' })
  locations!: ItemLocationType[];

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

export const InventoryItemConnection = ConnectionType(InventoryItemType, 'InventoryItem');
