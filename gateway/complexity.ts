import {
  getNamedType,
  isCompositeType,
  isObjectType,
  isInterfaceType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

export const LIMITS = { maxDepth: 10, maxCost: 5000, defaultFirst: 20 } as const;

export interface Complexity {
  depth: number;
  cost: number;
}

function firstArgument(args: readonly { name: { value: string }; value: ValueNode }[] | undefined, variables: Record<string, unknown>): number | undefined {
  const arg = args?.find((a) => a.name.value === 'first');
  if (!arg) return undefined;
  if (arg.value.kind === Kind.INT) return Number(arg.value.value);
  if (arg.value.kind === Kind.VARIABLE) {
    const name = arg.value.name.value;
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    return typeof value === 'number' ? value : undefined;
  }
  return undefined;
}

function rootType(schema: GraphQLSchema, operation: OperationDefinitionNode): GraphQLCompositeType | undefined {
  if (operation.operation === 'mutation') return schema.getMutationType() ?? undefined;
  if (operation.operation === 'subscription') return schema.getSubscriptionType() ?? undefined;
  return schema.getQueryType() ?? undefined;
}

/**
 * Depth counts field levels from the root field (root = 1; `edges` and `node`
 * count). Cost is 1 per field; a field returning a `...Connection` type
 * multiplies the cost of its selection by its `first` argument (default 20).
 */
export function measure(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> = {},
): Complexity {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }

  const walk = (set: SelectionSetNode | undefined, parent: GraphQLCompositeType | undefined, level: number, seen: Set<string>): Complexity => {
    let depth = level - 1;
    let cost = 0;
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        const field = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[selection.name.value] : undefined;
        const returned = field ? getNamedType(field.type) : undefined;
        const child = walk(selection.selectionSet, returned && isCompositeType(returned) ? returned : undefined, level + 1, seen);
        const isConnection = returned?.name.endsWith('Connection') ?? false;
        const multiplier = isConnection ? Math.max(firstArgument(selection.arguments, variables) ?? LIMITS.defaultFirst, 1) : 1;
        depth = Math.max(depth, level, child.depth);
        cost += 1 + multiplier * child.cost;
      } else {
        const name = selection.kind === Kind.FRAGMENT_SPREAD ? selection.name.value : undefined;
        if (name && seen.has(name)) continue;
        const fragment = name ? fragments.get(name) : undefined;
        const inner = selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : fragment?.selectionSet;
        const condition = selection.kind === Kind.INLINE_FRAGMENT ? selection.typeCondition : fragment?.typeCondition;
        const narrowed = condition ? schema.getType(condition.name.value) : parent;
        const child = walk(inner, narrowed && isCompositeType(narrowed) ? narrowed : parent, level, name ? new Set([...seen, name]) : seen);
        depth = Math.max(depth, child.depth);
        cost += child.cost;
      }
    }
    return { depth, cost };
  };
  return walk(operation.selectionSet, rootType(schema, operation), 1, new Set());
}
