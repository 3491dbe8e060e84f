import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Orm } from '../../platform/db/orm.js';
import { AppError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { check } from '../../platform/validation/index.js';
import { ReturnUpdated, type ReturnEvents } from './return.events.js';
import type { ReturnTagReads, ReturnTagRow } from './return-tag.rows.js';
import { MAX_TAGS_PER_STORE, ReturnTagNamesSchema, TagName, UpsertReturnTagSchema, type PillTheme } from './return-tag.schemas.js';
import type { ReturnView, ReturnViews } from './return.view.js';

/** How many changed returns are read and published at once when a tag change reaches many of them. */
const RETURNS_PER_BATCH = 500;

const tagNotFound = (name: string) => notFound('return-tag-not-found', `The store has no return tag named "${name}".`);

/**
 * Return tags: a store's tags (create, recolour, rename, delete) and the tags a return carries.
 * A change that reaches returns (a rename or a deletion shows in their documents, tagging one)
 * moves their `updatedAt` and publishes `return.updated` for each, in the same transaction.
 */
export class ReturnTagService {
  constructor(
    private readonly orm: Orm,
    private readonly reads: ReturnTagReads,
    private readonly returns: ReturnViews,
    private readonly events: ReturnEvents,
  ) {}

  /**
   * Creates the tag, recolours it, or (with `newName`) renames it: a rename needs the tag to exist
   * and the new name to be free (400 `rename-precondition-failed` otherwise).
   */
  async upsert(storeId: string, rawName: string, raw: unknown): Promise<ReturnTagRow> {
    const name = check(TagName(), rawName, { prefix: '/name', detail: 'The tag name is invalid.' });
    const body = check(UpsertReturnTagSchema, raw, { detail: 'The tag is invalid.' });
    return this.orm.em.fork().transactional(async (em) => {
      // Tag changes of a store are serialised: a rename's checks then hold until it commits.
      await sql(em, 'select pg_advisory_xact_lock(hashtext($1))', [`return-tags:${storeId}`]);
      const current = await this.reads.byName(em, storeId, name, true);
      const rename = body.newName !== undefined && body.newName !== name;
      if (rename) {
        const taken = await this.reads.byName(em, storeId, body.newName!);
        if (!current || taken) {
          throw new AppError('invalid_data', 'rename-precondition-failed', !current ? `The store has no return tag named "${name}".` : `The store already has a return tag named "${body.newName}".`);
        }
        await sql(em, 'update return_tag set name = $2, pill_theme = $3, updated_at = now() where id = $1', [current.id, body.newName, body.pillTheme]);
        await this.touchReturnsOf(em, current.id);
        return (await this.reads.byName(em, storeId, body.newName!))!;
      }
      if (current) {
        await sql(em, 'update return_tag set pill_theme = $2, updated_at = now() where id = $1', [current.id, body.pillTheme]);
      } else {
        await this.create(em, storeId, [name], body.pillTheme);
      }
      return (await this.reads.byName(em, storeId, name))!;
    });
  }

  /** Deletes a tag and strips it from every return that carried it. */
  async remove(storeId: string, rawName: string): Promise<void> {
    const name = check(TagName(), rawName, { prefix: '/name', detail: 'The tag name is invalid.' });
    await this.orm.em.fork().transactional(async (em) => {
      await sql(em, 'select pg_advisory_xact_lock(hashtext($1))', [`return-tags:${storeId}`]);
      const tag = await this.reads.byName(em, storeId, name, true);
      if (!tag) throw tagNotFound(name);
      const stripped = await sql<{ returnId: string }>(em, 'delete from return_tag_link where tag_id = $1 returning return_id as "returnId"', [tag.id]);
      await sql(em, 'delete from return_tag where id = $1', [tag.id]);
      await this.touch(em, stripped.map((r) => r.returnId));
    });
  }

  /** Sets the tags a return carries (tags the store lacks are created: NORMAL, merchant). */
  async setReturnTags(storeId: string, returnId: string, rawNames: unknown): Promise<ReturnView> {
    const names = check(ReturnTagNamesSchema, rawNames, { prefix: '/names', detail: 'A tag name is invalid.' });
    return this.orm.em.fork().transactional(async (em) => {
      await sql(em, 'select 1 from return where id = $1 for update', [returnId]);
      await sql(em, 'select pg_advisory_xact_lock_shared(hashtext($1))', [`return-tags:${storeId}`]);
      const ids = await this.ensure(em, storeId, names);
      const removed = await sql(em, 'delete from return_tag_link where return_id = $1 and tag_id <> all($2) returning tag_id', [returnId, ids]);
      const added = await sql(
        em,
        'insert into return_tag_link (return_id, tag_id) select $1, unnest($2::text[]) on conflict do nothing returning tag_id',
        [returnId, ids],
      );
      if (removed.length + added.length > 0) await this.touch(em, [returnId]);
      return (await this.returns.byIds([returnId], em))[0]!;
    });
  }

  /**
   * The ids of the store's tags of these names, creating the missing ones (NORMAL, merchant): for
   * a return being tagged, and for imported returns. The caller holds the store's tag lock (shared).
   */
  async ensure(em: EntityManager, storeId: string, names: readonly string[]): Promise<string[]> {
    if (!names.length) return [];
    await this.create(em, storeId, names, 'NORMAL');
    const rows = await sql<{ id: string; name: string }>(em, 'select id, name from return_tag where store_id = $1 and name = any($2)', [storeId, names]);
    const byName = new Map(rows.map((r) => [r.name, r.id]));
    return names.map((n) => byName.get(n)!);
  }

  /** Creates the tags of these names the store lacks, within its limit. */
  private async create(em: EntityManager, storeId: string, names: readonly string[], theme: PillTheme): Promise<void> {
    const created = await sql(
      em,
      `insert into return_tag (id, store_id, name, pill_theme) select n.id, $1, n.name, $4 from unnest($2::text[], $3::text[]) as n(id, name)
       on conflict (store_id, name) do nothing returning id`,
      [storeId, names.map(() => newId('returnTag')), names, theme],
    );
    if (!created.length) return;
    const [count] = await sql<{ n: number }>(em, 'select count(*)::int as n from return_tag where store_id = $1', [storeId]);
    if (count!.n > MAX_TAGS_PER_STORE) throw new AppError('conflict', 'too-many-return-tags', `A store has at most ${MAX_TAGS_PER_STORE} return tags.`);
  }

  private async touchReturnsOf(em: EntityManager, tagId: string): Promise<void> {
    const ids = await sql<{ returnId: string }>(em, 'select return_id as "returnId" from return_tag_link where tag_id = $1', [tagId]);
    await this.touch(em, ids.map((r) => r.returnId));
  }

  /** The returns' documents changed: their update time moves and `return.updated` goes out for each. */
  private async touch(em: EntityManager, returnIds: readonly string[]): Promise<void> {
    for (let i = 0; i < returnIds.length; i += RETURNS_PER_BATCH) {
      const batch = returnIds.slice(i, i + RETURNS_PER_BATCH);
      const changed = await sql<{ id: string; status: string }>(
        em,
        'update return set updated_at = now(), version = version + 1 where id = any($1) returning id, status',
        [batch],
      );
      await this.events.emitMany(em, ReturnUpdated, changed.map((r) => ({ returnId: r.id, previousStatus: r.status })));
    }
  }
}
