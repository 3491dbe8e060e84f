import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../platform/db/orm.js';
import { notFound } from '../../platform/errors.js';

/** A warehouse or return centre of a store (`location`), as resolvers return it. */
export interface LocationRow {
  id: string;
  storeId: string;
  name: string;
  externalId: string | null;
  createdAt: Date;
}

export const LOCATION_COLUMNS = `id, store_id as "storeId", name, external_id as "externalId", created_at as "createdAt"`;

export async function loadLocations(em: EntityManager, ids: readonly string[]): Promise<LocationRow[]> {
  return sql<LocationRow>(em, `select ${LOCATION_COLUMNS} from location where id = any($1)`, [ids]);
}

/** The location of the store, or 404 `location-not-found` (another store's location included). */
export async function requireLocation(em: EntityManager, storeId: string, locationId: string): Promise<LocationRow> {
  const [location] = await sql<LocationRow>(em, `select ${LOCATION_COLUMNS} from location where id = $1 and store_id = $2`, [locationId, storeId]);
  if (!location) throw notFound('location-not-found', `Location ${locationId} was not found in store ${storeId}.`);
  return location;
}
