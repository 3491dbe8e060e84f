import { filterDigest } from '../../../platform/api/cursor.js';
import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { invalid } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import { Conditions, keysetPage } from '../../../platform/db/keyset.js';
import { pageRequest, type Page } from '../../../platform/api/pagination.js';
import { customerColumns, type CustomerRow } from '../customers/customer.rows.js';
import { compileSegment, definitionJson, type SegmentDefinition } from './segment.rules.js';

/** The most customers a segment may have when another subgraph matches by its members' contacts. */
const SEGMENT_CONTACTS_LIMIT = 250_000;

export interface SegmentRow {
  id: string;
  storeId: string;
  name: string;
  definition: SegmentDefinition;
  createdAt: Date;
}


/** Segment evaluation (one SQL query per page, one per count) and saved segments. */
export class SegmentService {
  constructor(private readonly orm: Orm) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  /** The members of a definition, newest customers first (keyset pages bound to the definition). */
  async members(storeId: string, definition: SegmentDefinition, first: number | undefined, after: string | undefined, count = false): Promise<Page<CustomerRow>> {
    const compiled = compileSegment(storeId, definition);
    const page = pageRequest(first, after, { list: 'segment-members', storeId, definition: filterDigest({ d: definitionJson(definition) }) }, count);
    // The compiled predicate's parameters come first ($1 is the store id).
    const where = new Conditions([...compiled.params]).and('c.store_id = $1::text').and(compiled.where);
    return keysetPage<CustomerRow>(this.em(), { columns: customerColumns('c'), from: 'customer c', where, sortColumn: 'c.created_at', idColumn: 'c.id', page });
  }

  async count(storeId: string, definition: SegmentDefinition): Promise<number> {
    const compiled = compileSegment(storeId, definition);
    const [row] = await sql<{ n: number }>(this.em(), `select count(*)::int as n from customer c where c.store_id = $1::text and ${compiled.where}`, compiled.params);
    return row!.n;
  }

  /**
   * The emails and phone numbers of a definition's members, for a subgraph that matches customers
   * by them (returns by their orders' contacts). Bounded: a larger segment is refused rather than
   * shipped as a list.
   */
  async contacts(storeId: string, definition: SegmentDefinition): Promise<{ emails: string[]; phoneNumbers: string[]; members: number }> {
    const compiled = compileSegment(storeId, definition, '/definition');
    const [row] = await sql<{ emails: string[]; phoneNumbers: string[]; members: number }>(
      this.em(),
      `select coalesce(array_agg(distinct lower(c.email)) filter (where c.email is not null), '{}') as emails,
              coalesce(array_agg(distinct c.phone_number) filter (where c.phone_number is not null), '{}') as "phoneNumbers",
              count(*)::int as members
         from customer c where c.store_id = $1::text and ${compiled.where}`,
      compiled.params,
    );
    if (row!.members > SEGMENT_CONTACTS_LIMIT) {
      throw invalid('validation-failed', `The segment has ${row!.members} customers; at most ${SEGMENT_CONTACTS_LIMIT} can be matched across subgraphs.`, [
        { pointer: '/definition', detail: `matches more than ${SEGMENT_CONTACTS_LIMIT} customers` },
      ]);
    }
    return row!;
  }

  async create(storeId: string, name: string, definition: SegmentDefinition): Promise<SegmentRow> {
    if (!name.trim()) throw invalid('validation-failed', 'The segment needs a name.', [{ pointer: '/input/name', detail: 'must be a non-empty string' }]);
    compileSegment(storeId, definition, '/input/definition');
    const [row] = await sql<SegmentRow>(
      this.em(),
      `insert into segment (id, store_id, name, definition) values ($1, $2, $3, $4)
       returning id, store_id as "storeId", name, definition, created_at as "createdAt"`,
      [newId('segment'), storeId, name, JSON.stringify(definitionJson(definition))],
    );
    return row!;
  }

  async list(storeId: string): Promise<SegmentRow[]> {
    return sql<SegmentRow>(
      this.em(),
      `select id, store_id as "storeId", name, definition, created_at as "createdAt" from segment where store_id = $1 order by created_at desc, id desc`,
      [storeId],
    );
  }
}
