import { ClassType, Directive, Field, Int, ObjectType } from 'type-graphql';
import type { Page } from '../api/pagination.js';

// Every subgraph defines the same PageInfo: @shareable lets composition merge them.
@Directive('@shareable')
@ObjectType()
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true })
  endCursor!: string | null;
}

export interface Connection<T> {
  edges: { node: T; cursor: string | null }[];
  pageInfo: PageInfo;
  totalCount?: number;
}

/**
 * Relay-style connection types: `XConnection { edges { node cursor } pageInfo totalCount }`.
 * `totalCount` is resolved only when asked for (it costs a count query).
 * Call once per node type: `export const XConnection = ConnectionType(XType, 'X')`.
 */
export function ConnectionType<T extends object>(node: ClassType<T>, name: string) {
  @ObjectType(`${name}Edge`)
  class Edge {
    @Field(() => node)
    node!: T;

    @Field(() => String, { nullable: true, description: 'Cursor of the page ending here (only on the last edge)' })
    cursor!: string | null;
  }

  @ObjectType(`${name}Connection`)
  class ConnectionClass {
    @Field(() => [Edge])
    edges!: Edge[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;

    @Field(() => Int, { nullable: true })
    totalCount?: number;
  }
  return ConnectionClass;
}

export function toConnection<T>(page: Page<T>): Connection<T> {
  return {
    edges: page.items.map((node, i) => ({ node, cursor: i === page.items.length - 1 ? page.endCursor : null })),
    pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
    totalCount: page.totalCount,
  };
}
