import express from 'express';
import { serveBaseline } from './support/baseline.js';
import pg from 'pg';
import { hashSecret } from '../platform/accounts/credentials.js';
import { encodeCursor, decodeCursor } from '../platform/api/cursor.js';
import { sortAtSql } from '../platform/db/keyset.js';
import { restOrder } from '../subgraphs/returns/order.json.js';
import { LINE_COLUMNS, ORDER_COLUMNS, type OrderLineRow, type OrderRow } from '../subgraphs/returns/order.rows.js';
import { orderView } from '../subgraphs/returns/order.view.js';
import { restReturn } from '../subgraphs/returns/return.json.js';
import { ITEM_COLUMNS, RETURN_COLUMNS, type CommentRow, type ReturnItemRow, type ReturnRow } from '../subgraphs/returns/return.rows.js';
import { returnView } from '../subgraphs/returns/return.view.js';

/**
 * The baseline: a hand-written Express + pg handler answering the same two
 * routes with the same JSON from the same tables, without the facade, the
 * gateway or GraphQL. It still checks the API secret, as any real handler must.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();

async function authorised(header: string | undefined, storeId?: string): Promise<boolean> {
  const token = header?.replace(/^Bearer\s+/i, '') ?? '';
  const { rows } = await pool.query(
    `select array(select st.id from platform.store st where st.account_id = s.account_id) as stores from platform.api_secret s where s.hash = $1 and s.revoked_at is null`,
    [hashSecret(token)],
  );
  return rows.length === 1 && (!storeId || (rows[0].stores as string[]).includes(storeId));
}

async function views(ids: string[]) {
  const [returns, items, comments] = await Promise.all([
    pool.query<ReturnRow & { sortAt: string }>(`select ${RETURN_COLUMNS}, ${sortAtSql('r.updated_at')} from returns.return r join returns."order" o on o.id = r.order_id where r.id = any($1)`, [ids]),
    pool.query<ReturnItemRow>(`select ${ITEM_COLUMNS} from returns.return_item i join returns.order_line_item l on l.id = i.order_line_item_id where i.return_id = any($1) and i.status = 'active' order by i.return_id, i.position`, [ids]),
    pool.query<CommentRow>(`select id, return_id as "returnId", message, created_at as "createdAt" from returns.return_comment where return_id = any($1) order by created_at, id`, [ids]),
  ]);
  const byId = new Map(returns.rows.map((r) => [r.id, r]));
  const orderIds = [...new Set(returns.rows.map((r) => r.orderId))];
  const [orders, lines] = await Promise.all([
    pool.query<OrderRow>(`select ${ORDER_COLUMNS} from returns."order" o where o.id = any($1)`, [orderIds]),
    pool.query<OrderLineRow>(`select ${LINE_COLUMNS} from returns.order_line_item l where l.order_id = any($1) and l.removed_at is null order by l.order_id, l.position`, [orderIds]),
  ]);
  const orderViews = new Map(orders.rows.map((o) => [o.id, restOrder(orderView(o, lines.rows.filter((l) => l.orderId === o.id)))]));
  return ids
    .map((id) => byId.get(id))
    .filter((r): r is ReturnRow & { sortAt: string } => Boolean(r))
    .map((r) => ({
      sortAt: r.sortAt,
      id: r.id,
      ret: restReturn(returnView(r, items.rows.filter((i) => i.returnId === r.id), comments.rows.filter((c) => c.returnId === r.id))),
      order: orderViews.get(r.orderId)!,
    }));
}

app.get('/readyz', (_req, res) => {
  res.json({ status: 'ready' });
});

app.get('/v2.2/returns/:id', async (req, res) => {
  if (!(await authorised(req.headers.authorization))) return res.status(401).end();
  const [found] = await views([req.params.id]);
  if (!found) return res.status(404).end();
  res.json({ return: found.ret, order: found.order });
});

app.get('/v2.2/stores/:storeId/returns', async (req, res) => {
  const storeId = req.params.storeId;
  if (!(await authorised(req.headers.authorization, storeId))) return res.status(401).end();
  const first = Number(req.query['page-size'] ?? 20);
  const filters = { list: 'returns', storeId };
  const after = typeof req.query['page-continue'] === 'string' ? decodeCursor(req.query['page-continue'], filters) : undefined;
  const { rows } = await pool.query<{ id: string }>(
    `select r.id from returns.return r where r.store_id = $1 ${after ? 'and (r.updated_at, r.id) < ($3::timestamptz, $4)' : ''}
      order by r.updated_at desc, r.id desc limit $2`,
    after ? [storeId, first + 1, after[0], after[1]] : [storeId, first + 1],
  );
  const page = await views(rows.slice(0, first).map((r) => r.id));
  const last = page[page.length - 1];
  if (rows.length > first && last) res.setHeader('X-Page-Next', encodeCursor([last.sortAt, last.id], filters));
  const orders = new Map(page.map((p) => [(p.order as { id: string }).id, p.order]));
  res.json({ returns: page.map((p) => p.ret), orders: [...orders.values()] });
});

await serveBaseline(app, pool);
