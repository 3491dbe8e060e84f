import { visible } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { shipmentLoader } from './inbound-shipment.resolver.js';
import type { InboundShipmentService } from './inbound-shipment.service.js';

/** `_entities` lookups of shipments, batched per request; a shipment of a store the caller cannot see resolves to null. */
export function inboundShipmentReferences(shipments: InboundShipmentService) {
  return {
    InboundShipment: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await shipmentLoader(ctx, shipments).load(ref.id)),
  };
}
