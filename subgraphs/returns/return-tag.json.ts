import { OneOf, OrNull, Strict, Type, type Static } from '../../platform/validation/index.js';
import type { ReturnTagRow } from './return-tag.rows.js';
import { PILL_THEMES, TAG_SOURCES, type PillTheme } from './return-tag.schemas.js';

/** A return tag as the real platform's API reads it. */
const RestReturnTagSchema = Strict(
  {
    name: Type.String({ description: 'Case-sensitive.' }),
    kind: Type.Literal('return'),
    pillTheme: OneOf(PILL_THEMES),
    source: OneOf(TAG_SOURCES),
    numericId: OrNull(Type.Number({ description: 'Stable, never reused.' })),
  },
  { title: 'ReturnTag' },
);
export type RestReturnTag = Static<typeof RestReturnTagSchema>;

export const ReturnTagListSchema = Strict({ tags: Type.Array(RestReturnTagSchema) }, { title: 'ReturnTagList' });
export const ReturnTagResponseSchema = Strict({ tag: RestReturnTagSchema }, { title: 'ReturnTagResponse' });
export const ReturnTagDeletedSchema = Strict({ success: Type.Literal(true) }, { title: 'ReturnTagDeleted' });

export function restReturnTag(row: ReturnTagRow): RestReturnTag {
  return { name: row.name, kind: 'return', pillTheme: row.pillTheme as PillTheme, source: row.source as RestReturnTag['source'], numericId: Number(row.numericId) };
}
