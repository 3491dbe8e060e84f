import { Field, ID, InputType, Int } from 'type-graphql';
import { DateScalar } from '../../platform/graphql/scalars.js';
import { InventoryKind } from './inventory-item.rules.js';

@InputType()
export class AdjustInventoryInput {
  @Field(() => ID, { nullable: true, description: 'The product (or give its sku)' })
  productId?: string | null;

  @Field(() => String, { nullable: true })
  sku?: string | null;

  @Field(() => ID)
  locationId!: string;

  @Field(() => InventoryKind, { nullable: true, description: 'Defaults to PRODUCT' })
  kind?: InventoryKind | null;

  @Field(() => Int, { description: 'Units to add (positive) or remove (negative)' })
  delta!: number;

  @Field(() => String, { nullable: true })
  lotNumber?: string | null;

  @Field(() => DateScalar, { nullable: true })
  expirationDate?: string | null;
}

@InputType()
export class ReceiveUndeclaredInput {
  @Field(() => ID)
  locationId!: string;

  @Field(() => String)
  sku!: string;

  @Field(() => Int)
  quantity!: number;
}
