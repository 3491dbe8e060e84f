import { Nullable, Phone, Strict, Type } from '../../platform/validation/index.js';
import { AddressSchema, optionalText } from './order.schemas.js';

/** GraphQL `updateStoreSettings` input. */
export const StoreSettingsSchema = Strict({
  returnLocationId: optionalText(255),
  requireReturnApproval: Nullable(Type.Boolean()),
  returnAddress: Nullable(AddressSchema),
  returnPhoneNumber: Nullable(Phone()),
});
