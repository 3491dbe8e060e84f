import express from 'express';
import { serveBaseline } from './support/baseline.js';
import pg from 'pg';
import { hashSecret } from '../platform/accounts/credentials.js';
import { decodeCursor, encodeCursor } from '../platform/api/cursor.js';
import { sortAtSql } from '../platform/db/keyset.js';
import { decodeLinkCursor, encodeLinkCursor } from '../rest-facade/compat/cursor.js';
import { loopReturn } from '../rest-facade/compat/format.js';
import { LIST_WINDOW, resolveWindow, stateCondition } from '../rest-facade/compat/params.js';
import { returnRecord } from '../subgraphs/returns/compat.json.js';
import { ITEM_COLUMNS, RETURN_COLUMNS, type ReturnItemRow, type ReturnRow } from '../subgraphs/returns/return.rows.js';
import { returnView } from '../subgraphs/returns/return.view.js';

/**
 * The baseline: a hand-written Express + pg handler answering the two
 * measured compatibility routes (the list walked page by page, details by
 * order name) with the same JSON from the same tables, without the facade,
 * the gateway or GraphQL. It checks the key, as any real handler must, but
 * counts no rate limit.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();
app.set('query parser', 'simple');

async function storeOfKey(header: unknown): Promise<string | undefined> {
  if (typeof header !== 'string') return undefined;
  const { rows } = await pool.query<{ store_id: string }>('select store_id from platform.compat_key where hash = $1 and revoked_at is null', [hashSecret(header.trim())]);
  return rows[0]?.store_id;
}

async function records(rows: (ReturnRow & { sortAt: string })[]) {
  const ids = rows.map((r) => r.id);
  const items = await pool.query<ReturnItemRow>(
    `select ${ITEM_COLUMNS} from returns.return_item i join returns.order_line_item l on l.id = i.order_line_item_id where i.return_id = any($1) and i.status = 'active' order by i.return_id, i.position`,
    [ids],
  );
  const byReturn = new Map<string, ReturnItemRow[]>();
  for (const item of items.rows) (byReturn.get(item.returnId) ?? byReturn.set(item.returnId, []).get(item.returnId)!).push(item);
  return rows.map((r) => returnRecord(returnView(r, byReturn.get(r.id) ?? [], [])));
}

app.get('/readyz', (_req, res) => {
  res.json({ status: 'ready' });
});

app.get('/api/v1/warehouse/return/list', async (req, res) => {
  const storeId = await storeOfKey(req.headers['x-authorization']);
  if (!storeId) return res.status(401).end();
  const query = req.query as Record<string, string>;
  const now = new Date();
  const link = query.cursor ? decodeLinkCursor(query.cursor) : undefined;
  const window = resolveWindow(query.from === undefined && query.to === undefined && link ? link.window : query, now, LIST_WINDOW);
  const first = Number(query.pageSize ?? 100);
  const condition = stateCondition(undefined, now);
  // The same filters the service binds its cursors to, so both answer the same links.
  const filters = { list: 'returns-window', storeId };
  const position = link && decodeCursor(link.position, filters);
  const backwards = link?.direction === 'previous';
  const column = window.field === 'created_at' ? 'r.created_at' : 'r.updated_at';
  const params: unknown[] = [storeId, window.from, window.until, condition.statuses, first + 1];
  let keyset = '';
  if (position) {
    params.push(position[0], position[1]);
    keyset = `and (${column}, r.id) ${backwards ? '>' : '<'} ($6::timestamptz, $7)`;
  }
  const direction = backwards ? 'asc' : 'desc';
  const { rows } = await pool.query<ReturnRow & { sortAt: string }>(
    `select ${RETURN_COLUMNS}, ${sortAtSql(column)} from returns.return r join returns."order" o on o.id = r.order_id
      where r.store_id = $1 and ${column} >= $2::timestamptz and ${column} < $3::timestamptz and r.status = any($4) ${keyset}
      order by ${column} ${direction}, r.id ${direction} limit $5`,
    params,
  );
  if (backwards) rows.reverse();
  const more = rows.length > first;
  const page = more ? (backwards ? rows.slice(rows.length - first) : rows.slice(0, first)) : rows;
  const body = (await records(page)).map((r) => loopReturn(r, 'list', now));
  const base = `${req.protocol}://${req.get('host')}/api/v1/warehouse/return/list`;
  const url = (direction: 'next' | 'previous', row: { sortAt: string; id: string }) =>
    `${base}?${new URLSearchParams({ ...window.bounds, filter: window.field, paginate: 'true', pageSize: String(first), cursor: encodeLinkCursor({ direction, window: window.bounds, position: encodeCursor([row.sortAt, row.id], filters) }) }).toString()}`;
  const hasNext = backwards || more;
  const hasPrevious = backwards ? more : position !== undefined;
  res.json({
    returns: body,
    nextPageUrl: hasNext && page.length ? url('next', page[page.length - 1]!) : null,
    previousPageUrl: hasPrevious && page.length ? url('previous', page[0]!) : null,
  });
});

app.get('/api/v1/warehouse/return/details', async (req, res) => {
  const storeId = await storeOfKey(req.headers['x-authorization']);
  if (!storeId) return res.status(401).end();
  const { rows } = await pool.query<ReturnRow & { sortAt: string }>(
    `select ${RETURN_COLUMNS}, ${sortAtSql('r.created_at')} from returns.return r join returns."order" o on o.id = r.order_id
      where r.store_id = $1 and r.order_name = $2 order by r.created_at desc, r.id desc limit 1`,
    [storeId, req.query.order_name],
  );
  if (!rows[0]) return res.json({ error: { message: 'No return found with this ID.' } });
  const [record] = await records(rows);
  res.json(loopReturn(record!, 'details', new Date()));
});

await serveBaseline(app, pool);
