import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BulkInsert } from '../platform/db/bulk-insert.js';
import { createOrm, sql, type Orm } from '../platform/db/orm.js';
import { createLogger } from '../platform/observability/logger.js';
import { createTestDatabase } from './support/database.js';

interface Item {
  id: string;
  quantity: number;
  note?: string;
  seq?: number;
}

const ITEMS = new BulkInsert<Item>(
  'bulk_item',
  [
    { name: 'id', type: 'text', value: (i) => i.id },
    { name: 'quantity', type: 'int', value: (i) => i.quantity },
    { name: '"note"', type: 'text', value: (i) => i.note ?? null },
    { name: 'seq', type: 'bigint', value: (i) => i.seq ?? null, select: (seq) => `coalesce(${seq}, nextval('bulk_seq'))` },
    { name: 'kind', sql: `'item'` },
  ],
  { ordered: true, tail: 'on conflict (id) do update set quantity = bulk_item.quantity + excluded.quantity returning id, quantity, seq::int as seq' },
);

describe('BulkInsert: a multi-row insert with each column named once', () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await createOrm(await createTestDatabase(), { name: 'bulk', schema: 'public', migrations: [] }, 1, createLogger('silent'));
    await sql(orm.em.fork(), `create sequence bulk_seq; create table bulk_item (id text primary key, quantity int not null, note text, seq bigint not null, kind text not null)`);
  });
  afterAll(async () => {
    await orm?.close();
  });

  it('builds its statement once: one typed array parameter per row column, the fixed columns inline', () => {
    expect(ITEMS.text).toBe(
      [
        'insert into bulk_item (id, quantity, "note", seq, kind)',
        `select u.id, u.quantity, u."note", coalesce(u.seq, nextval('bulk_seq')), 'item' from unnest($1::text[], $2::int[], $3::text[], $4::bigint[]) with ordinality as u(id, quantity, "note", seq, bulk_ordinal)`,
        'order by u.bulk_ordinal',
        'on conflict (id) do update set quantity = bulk_item.quantity + excluded.quantity returning id, quantity, seq::int as seq',
      ].join('\n'),
    );
    expect(ITEMS.params([{ id: 'a', quantity: 1 }, { id: 'b', quantity: 2, note: 'n', seq: 7 }])).toEqual([
      ['a', 'b'],
      [1, 2],
      [null, 'n'],
      [null, 7],
    ]);
  });

  it('inserts the rows in their order (a sequence follows it), applies its tail, and runs nothing for no rows', async () => {
    const em = orm.em.fork();
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: `i${i}`, quantity: i }));
    const inserted = await ITEMS.run<{ id: string; seq: number }>(em, rows);
    const seqs = new Map(inserted.map((r) => [r.id, r.seq]));
    expect(rows.map((r) => seqs.get(r.id))).toEqual(rows.map((_, i) => i + 1));
    expect(await ITEMS.run(em, [{ id: 'i3', quantity: 10, seq: 99 }])).toEqual([{ id: 'i3', quantity: 13, seq: 4 }]);
    expect(await ITEMS.run(em, [])).toEqual([]);
    expect(await sql(em, `select kind, count(*)::int as n from bulk_item group by kind`)).toEqual([{ kind: 'item', n: 50 }]);
  });
});
