import { Nullable, Strict, Text } from '../../platform/validation/index.js';

/** The `upsertProduct` input as a JSON Schema (pointers `/input/...`). */
export const UpsertProductSchema = Strict({
  sku: Text(),
  title: Text({ max: 1000 }),
  variantTitle: Nullable(Text({ max: 1000 })),
  upc: Nullable(Text()),
  imageUrl: Nullable(Text({ max: 2048 })),
});
