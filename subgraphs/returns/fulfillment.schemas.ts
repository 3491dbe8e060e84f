import { DateTime, Int, Nullable, OneOf, Strict, Text, Type, type Static } from '../../platform/validation/index.js';
import { FULFILLMENT_STATUSES, POSTED_STATUSES } from './fulfillment.rules.js';

/** The fulfillment bodies of the real platform's orders API, as its published schema shapes them. */

const OptionalText = (max = 255) => Nullable(Text({ max }));

const TrackingLocationSchema = Strict({ city: OptionalText(500), state: OptionalText(500), country: OptionalText(500), postalCode: OptionalText(500) });
export type TrackingLocation = Static<typeof TrackingLocationSchema>;

/** `POST /stores/{storeId}/orders/{orderId}/fulfillments`. */
export const CreateFulfillmentSchema = Strict(
  {
    fulfillmentId: Type.Optional(Text({ description: 'Your id for the fulfillment (generated when absent): the same id again with the same lines answers the fulfillment as it is.' })),
    lineItems: Type.Array(
      Strict({ id: Text({ description: "The order line's id (lineItems[].id of the order)." }), quantity: Int({ min: 1, max: 1000 }) }),
      { minItems: 1, maxItems: 1000, uniqueItemsBy: 'id' },
    ),
    tracking: Nullable(Strict({ carrier: Text(), code: Text() })),
    useDummyTracking: Type.Optional(Type.Boolean({ description: 'The service calls no carrier: tracking moves only by shipment-status updates. With true, `initialTracking` is applied.' })),
    initialTracking: Type.Optional(
      Strict({
        status: OneOf(FULFILLMENT_STATUSES),
        estimatedDeliveryDate: Nullable(DateTime()),
        message: OptionalText(2000),
        datetime: Nullable(DateTime()),
        location: Nullable(TrackingLocationSchema),
      }),
    ),
  },
  { title: 'CreateFulfillment' },
);

/** `POST .../fulfillments/{fulfillmentId}/shipment-status`. */
export const FulfillmentStatusSchema = Strict(
  {
    status: OneOf(POSTED_STATUSES, { description: 'A status (updates the current status) or an event (stalled_in_transit, delayed, arriving_early: recorded only).' }),
    estimatedDeliveryDate: Nullable(DateTime({ description: 'Its calendar date, as written, becomes the estimated delivery date.' })),
    message: OptionalText(2000),
    datetime: Nullable(DateTime({ description: 'When the carrier saw it (default: now). An entry older than the one that set the status records history only.' })),
    location: Nullable(TrackingLocationSchema),
  },
  { title: 'FulfillmentStatusUpdate' },
);
