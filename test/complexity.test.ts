import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { measure } from '../gateway/complexity.js';

const schema = buildSchema(`
  type Query { items(first: Int): ItemConnection! item: Item }
  type ItemConnection { edges: [ItemEdge!]! pageInfo: PageInfo! }
  type ItemEdge { node: Item! }
  type PageInfo { hasNextPage: Boolean! }
  type Item { id: ID! name: String children(first: Int): ItemConnection! parent: Item }
`);

function cost(query: string, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition') as OperationDefinitionNode;
  return measure(schema, document, operation, variables);
}

describe('operation depth and cost', () => {
  it('counts 1 per field and depth from the root field', () => {
    expect(cost('{ item { id name } }')).toEqual({ depth: 2, cost: 3 });
  });

  it('multiplies a connection selection by first, default 20', () => {
    expect(cost('{ items(first: 10) { edges { node { id } } } }')).toEqual({ depth: 4, cost: 1 + 10 * 3 });
    expect(cost('{ items { edges { node { id } } } }').cost).toBe(1 + 20 * 3);
    expect(cost('query($n: Int) { items(first: $n) { edges { node { id } } } }', { n: 2 }).cost).toBe(1 + 2 * 3);
  });

  it('multiplies nested connections', () => {
    expect(cost('{ items(first: 10) { edges { node { children(first: 5) { edges { node { id } } } } } } }').cost).toBe(1 + 10 * (1 + 1 + 1 + 5 * 3));
  });

  it('sees through fragments and inline fragments', () => {
    const q = '{ item { ...F } } fragment F on Item { parent { ... on Item { parent { id } } } }';
    expect(cost(q)).toEqual({ depth: 4, cost: 4 });
  });
});
