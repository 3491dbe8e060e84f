import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Orm } from '../../platform/db/orm.js';
import type { Address } from './order.rows.js';

export interface StoreSettings {
  storeId: string;
  returnLocationId: string | null;
  requireReturnApproval: boolean;
  returnAddress: Address | null;
  returnPhoneNumber: string | null;
}

export type StoreSettingsPatch = Partial<Omit<StoreSettings, 'storeId'>>;

/** Per-store returns settings; a store that never set any gets the defaults. */
export class StoreSettingsService {
  constructor(private readonly orm: Orm) {}

  async get(storeId: string, em: EntityManager = this.orm.em.fork()): Promise<StoreSettings> {
    const [row] = await sql<StoreSettings>(
      em,
      `select store_id as "storeId", return_location_id as "returnLocationId", require_return_approval as "requireReturnApproval",
              return_address as "returnAddress", return_phone_number as "returnPhoneNumber" from store_settings where store_id = $1`,
      [storeId],
    );
    return row ?? { storeId, returnLocationId: null, requireReturnApproval: false, returnAddress: null, returnPhoneNumber: null };
  }

  /** Applies the fields given; omitted ones keep their value. */
  async update(storeId: string, patch: StoreSettingsPatch): Promise<StoreSettings> {
    const em = this.orm.em.fork();
    const current = await this.get(storeId, em);
    const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) } as StoreSettings;
    await sql(
      em,
      `insert into store_settings (store_id, return_location_id, require_return_approval, return_address, return_phone_number, updated_at)
       values ($1, $2, $3, $4, $5, now())
       on conflict (store_id) do update set return_location_id = excluded.return_location_id, require_return_approval = excluded.require_return_approval,
         return_address = excluded.return_address, return_phone_number = excluded.return_phone_number, updated_at = now()`,
      [storeId, next.returnLocationId, next.requireReturnApproval, next.returnAddress ? JSON.stringify(next.returnAddress) : null, next.returnPhoneNumber],
    );
    return next;
  }
}
