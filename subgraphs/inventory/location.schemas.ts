import { Nullable, Strict, Text } from '../../platform/validation/index.js';

/** The `createLocation` input as a JSON Schema (pointers `/input/...`). */
export const CreateLocationSchema = Strict({ name: Text(), externalId: Nullable(Text()) });
