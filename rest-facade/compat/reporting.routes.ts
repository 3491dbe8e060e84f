import { Type } from '@sinclair/typebox';
import type { ReturnRecord } from '../../subgraphs/returns/public.js';
import type { RouteRegistry } from '../pipeline/routing.js';
import { asnRows } from './format.js';
import { ASN_WINDOW, resolveWindow, UNPAGED_LIMIT } from './params.js';
import { RETURNS_WINDOW, storeOf } from './returns.routes.js';
import { AsnRow } from './schemas.js';

const AsnQuery = Type.Object({ from: Type.Optional(Type.String()), to: Type.Optional(Type.String()) });

export function registerCompatReportingRoutes(routes: RouteRegistry): void {
  routes.add('GET', '/warehouse/reporting/asn', {
    operationId: 'getAsnReport',
    tag: 'Reporting',
    summary: 'Advanced shipping notice: one row per returned item of the returns created in the window (default: the last 7 days)',
    scope: 'returns_read',
    responses: { 200: { description: 'One row per returned item.', schema: Type.Array(AsnRow) } },
    query: AsnQuery,
    handle: async ({ principal, query, graphql }) => {
      const now = new Date();
      const window = resolveWindow(query, now, ASN_WINDOW);
      const data = await graphql<{ returnsWindow: { recordsJson: string } }>(RETURNS_WINDOW, {
        storeId: storeOf(principal),
        window: { field: window.field, from: window.from, until: window.until },
        first: UNPAGED_LIMIT,
      });
      const records = JSON.parse(data.returnsWindow.recordsJson) as ReturnRecord[];
      return { status: 200, body: records.flatMap((r) => asnRows(r, now)) };
    },
  });
}
