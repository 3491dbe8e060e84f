import { OneOf, Strict, Text, Type } from '../../platform/validation/index.js';

/** Return tags' inputs as the real platform's published schema shapes them. */

/** The colours a tag's pill can take (the schema's `pill-theme`). */
export const PILL_THEMES = [
  'NORMAL',
  'PRIMARY_LIGHT',
  'LIGHT_PINK',
  'DANGER',
  'NEUTRAL_YELLOW',
  'SUCCESS',
  'NEUTRAL_BLUE',
  'PRIMARY',
  'SOLID_WHITE',
  'SOLID_PINK',
  'SOLID_RED',
  'SOLID_ORANGE',
  'SOLID_YELLOW',
  'SOLID_GREEN',
  'SOLID_LIGHT_BLUE',
  'SOLID_NAVY',
  'SOLID_BLACK',
  'BRAND',
  'GRAY_BLUE',
  'WHITE_SUCCESS',
  'GRAY_ALTERNATE',
  'BRAND_ALTERNATE',
  'ERROR_ALTERNATE',
  'WARNING_ALTERNATE',
  'SUCCESS_ALTERNATE',
  'GRAY_BLUE_ALTERNATE',
  'BLUE_LIGHT_ALTERNATE',
  'BLUE_ALTERNATE',
  'INDIGO_ALTERNATE',
  'PURPLE_ALTERNATE',
  'PINK_ALTERNATE',
  'ORANGE_ALTERNATE',
  'BLACK_ALTERNATE',
  'WHITE_ALTERNATE',
  'WHITE_SUCCESS_ALTERNATE',
] as const;
export type PillTheme = (typeof PILL_THEMES)[number];

/** Where a tag came from: the merchant's (this API, dashboards), the platform's, a flow's. */
export const TAG_SOURCES = ['merchant', 'redo', 'flow'] as const;

/** A tag's name: case-sensitive, 1 to 100 characters. */
export const TagName = (a: { description?: string } = {}) => Text({ max: 100, ...a });

/** The most tags a store may define: the list has no pages. */
export const MAX_TAGS_PER_STORE = 1000;
/** The most tags one return may carry. */
export const MAX_TAGS_PER_RETURN = 50;

/** `PUT /stores/{storeId}/return-tags/{name}`. */
export const UpsertReturnTagSchema = Strict(
  {
    pillTheme: OneOf(PILL_THEMES),
    newName: Type.Optional(TagName({ description: 'Renames the tag (returns carrying it show the new name).' })),
  },
  { title: 'UpsertReturnTag' },
);

/** The tags a return carries (GraphQL `setReturnTags`, imports). */
export const ReturnTagNamesSchema = Type.Array(TagName(), { maxItems: MAX_TAGS_PER_RETURN, uniqueItems: true });
