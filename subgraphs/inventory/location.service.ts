import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Orm } from '../../platform/db/orm.js';
import { newId } from '../../platform/ids.js';
import { check } from '../../platform/validation/index.js';
import type { CreateLocationInput } from './location.input.js';
import { LOCATION_COLUMNS, loadLocations, type LocationRow } from './location.rows.js';
import { CreateLocationSchema } from './location.schemas.js';

/** A store's locations: warehouses and return centres. */
export class LocationService {
  constructor(private readonly orm: Orm) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  locationsByIds(ids: readonly string[]): Promise<LocationRow[]> {
    return loadLocations(this.em(), ids);
  }

  async locations(storeId: string): Promise<LocationRow[]> {
    return sql<LocationRow>(this.em(), `select ${LOCATION_COLUMNS} from location where store_id = $1 order by created_at, id`, [storeId]);
  }

  async createLocation(storeId: string, input: CreateLocationInput): Promise<LocationRow> {
    check(CreateLocationSchema, input, { prefix: '/input', detail: 'The location is invalid.' });
    const [row] = await sql<LocationRow>(
      this.em(),
      `insert into location (id, store_id, name, external_id) values ($1, $2, $3, $4) returning ${LOCATION_COLUMNS}`,
      [newId('location'), storeId, input.name.trim(), input.externalId ?? null],
    );
    return row!;
  }
}
