import { DateTime, Email, OneOf, Text, Type } from '../../platform/validation/index.js';
import { STOREFRONT_EVENT_NAMES } from './storefront-event.rules.js';

const Free = (description: string) => Type.Unsafe<Record<string, unknown>>({ type: 'object', description });

/**
 * `POST /stores/{storeId}/storefront/events`: a Shopify web-pixel event, as the real platform's
 * published schema shapes it. Additional properties are accepted (the schema allows them).
 */
export const StorefrontEventSchema = Type.Object(
  {
    eventName: OneOf(STOREFRONT_EVENT_NAMES, { description: 'The pixel event: it becomes the custom event of that name.' }),
    eventId: Text({ max: 200, description: "The pixel's event id: the same id again is the same event (counted once)." }),
    timestamp: DateTime({ description: 'When it happened: the custom event\'s eventTimestamp.' }),
    source: OneOf(['AIMERCE'] as const),
    anonymousId: Type.Optional(Text({ max: 255, description: "The visitor's id: events of a visitor not identified yet wait until one of theirs names an email or phone." })),
    customerEmail: Type.Optional(Email()),
    customerPhone: Type.Optional(Type.String({ maxLength: 64, description: 'Used when it is E.164 once spaces, dashes, dots and parentheses are dropped.' })),
    urlWithParams: Type.Optional(Type.String({ maxLength: 8192 })),
    urlWithoutParams: Type.Optional(Type.String({ maxLength: 8192 })),
    cart: Type.Optional(Type.Union([Free('The cart.'), Type.Null()])),
    cartLine: Type.Optional(Free('The cart line added or removed ({merchandise, quantity, cost}).')),
    checkout: Type.Optional(Free('The checkout ({token, email, phone, lineItems, totalPrice, currencyCode, order}).')),
    collection: Type.Optional(Free('The collection viewed ({id, title}).')),
    customer: Type.Optional(Type.Union([Free('The storefront\'s customer ({id, email, phone}).'), Type.Null()])),
    productVariant: Type.Optional(Free('The product variant viewed ({id, title, sku, price, product}).')),
  },
  { title: 'StorefrontEvent', additionalProperties: true },
);
