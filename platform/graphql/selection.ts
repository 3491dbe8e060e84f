import type { GraphQLResolveInfo } from 'graphql';

/** Whether the client selected `field` directly on the resolved object (e.g. a connection's `totalCount`). */
export function selects(info: GraphQLResolveInfo, field: string): boolean {
  return info.fieldNodes.some((node) => node.selectionSet?.selections.some((s) => s.kind === 'Field' && s.name.value === field) ?? false);
}
