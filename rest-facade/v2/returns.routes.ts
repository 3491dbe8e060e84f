import { operation } from '../gateway-client.js';
import type { RouteTable } from '../routing.js';
import { pageHeaders, v2Route, type V2Deps } from './route.js';

const LIST_RETURNS = operation(`
  query ListReturns($storeId: ID!, $first: Int, $after: String) {
    returns(storeId: $storeId, first: $first, after: $after) {
      edges { node { id status type createdAt updatedAt order { id name externalId provider } } }
      pageInfo { hasNextPage endCursor }
    }
  }
`);

interface OrderSummary {
  id: string;
  name: string;
  externalId: string;
  provider: string;
}

interface ListReturnsData {
  returns: {
    edges: { node: { id: string; status: string; type: string; createdAt: string; updatedAt: string; order: OrderSummary } }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

export function registerReturnRoutes(routes: RouteTable, deps: V2Deps): void {
  routes.add(
    'GET',
    '/stores/:storeId/returns',
    v2Route(deps, {
      scope: 'returns_read',
      paginated: true,
      handle: async ({ params, page, graphql }) => {
        const data = await graphql<ListReturnsData>(LIST_RETURNS, { storeId: params.storeId, first: page.first, after: page.after });
        const nodes = data.returns.edges.map((e) => e.node);
        const orders = new Map(nodes.map((n) => [n.order.id, n.order]));
        return {
          status: 200,
          body: {
            returns: nodes.map(({ order, ...ret }) => ({ ...ret, order: { id: order.id, name: order.name } })),
            orders: [...orders.values()].map((o) => ({ id: o.id, name: o.name, externalId: o.externalId })),
          },
          headers: pageHeaders(data.returns.pageInfo),
        };
      },
    }),
  );
}
