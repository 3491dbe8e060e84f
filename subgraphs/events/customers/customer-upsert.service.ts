import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { AppError } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import { check } from '../../../platform/validation/index.js';
import { customFieldDates } from '../custom-event.rules.js';
import type { CustomerSuppressions } from './customer-suppression.service.js';
import { CustomerUpsertSchema, type CustomerUpsertBody } from './customer.schemas.js';
import { customerColumns, type CustomerRow } from './customer.rows.js';

interface Profile extends CustomerRow {
  customFieldDates: Record<string, number> | null;
}

const COLUMNS = `${customerColumns()}, custom_field_dates as "customFieldDates"`;

/** Whether any given key holds another value than the stored one. */
const differs = (stored: Record<string, unknown> | null, given: Record<string, unknown>) => Object.entries(given).some(([key, value]) => stored?.[key] !== value);

/**
 * The real platform's customer upsert (`PUT /stores/{storeId}/customers`): the customer with the
 * email (any case) is patched as a custom event patches it (given fields replace, `location` and
 * `customFields` merge key by key, a phone is added when the customer has none and no other
 * customer of the store has it), else one is created, synchronously. An email or phone an erasure
 * suppressed is refused (409 `customer-erased`): a profile is never made again for an erased person.
 *
 * Runs beside event processing on the same rows: the store's erasure lock is taken shared (as
 * processing does), the profile row is locked, and a customer created meanwhile by an event is
 * found and patched instead (the unique email index decides).
 */
export class CustomerUpserts {
  constructor(
    private readonly orm: Orm,
    private readonly suppressions: CustomerSuppressions,
  ) {}

  async upsert(storeId: string, raw: unknown): Promise<{ customer: CustomerRow; created: boolean }> {
    const body = check(CustomerUpsertSchema, raw, { detail: 'The customer is invalid.' });
    // The suppression key lives in the platform's settings: read before the transaction.
    await this.suppressions.ready();
    return this.orm.em.fork().transactional(async (em) => {
      const erased = await this.suppressions.suppressedIdentifier(em, storeId, body);
      if (erased) {
        throw new AppError('conflict', 'customer-erased', 'The store erased this customer; no profile is made for them again.', { errors: [{ pointer: `/${erased}`, detail: 'names an erased customer' }] });
      }
      // A customer created meanwhile by an event's processing (with the email, or the phone) makes the
      // insert skip its row: read again, and patch that one (its commit is waited for by the insert).
      for (let attempt = 0; attempt < 3; attempt++) {
        const [existing] = await sql<Profile>(em, `select ${COLUMNS} from customer where store_id = $1 and lower(email) = lower($2) for update`, [storeId, body.email]);
        if (existing) return { customer: await this.patch(em, existing, body), created: false };
        const inserted = await this.insert(em, storeId, body);
        if (inserted) return { customer: inserted, created: true };
      }
      throw new Error(`customer ${body.email} kept changing while it was upserted`);
    });
  }

  private async phoneFree(em: EntityManager, storeId: string, phone: string | undefined, ownId?: string): Promise<boolean> {
    if (!phone) return false;
    const [owner] = await sql<{ id: string }>(em, 'select id from customer where store_id = $1 and phone_number = $2', [storeId, phone]);
    return !owner || owner.id === ownId;
  }

  private async insert(em: EntityManager, storeId: string, body: CustomerUpsertBody): Promise<CustomerRow | null> {
    const phone = (await this.phoneFree(em, storeId, body.phoneNumber)) ? body.phoneNumber! : null;
    const [row] = await sql<CustomerRow>(
      em,
      `insert into customer (id, store_id, email, phone_number, first_name, last_name, location, custom_fields, custom_field_dates)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict do nothing returning ${customerColumns()}`,
      [
        newId('customer'),
        storeId,
        body.email,
        phone,
        body.firstName ?? null,
        body.lastName ?? null,
        body.location ? JSON.stringify(body.location) : null,
        body.customFields ? JSON.stringify(body.customFields) : null,
        body.customFields ? JSON.stringify(customFieldDates(body.customFields)) : null,
      ],
    );
    return row ?? null;
  }

  private async patch(em: EntityManager, profile: Profile, body: CustomerUpsertBody): Promise<CustomerRow> {
    let changed = false;
    if (body.phoneNumber && !profile.phoneNumber && (await this.phoneFree(em, profile.storeId, body.phoneNumber, profile.id))) {
      profile.phoneNumber = body.phoneNumber;
      changed = true;
    }
    if (body.firstName !== undefined && body.firstName !== profile.firstName) {
      profile.firstName = body.firstName;
      changed = true;
    }
    if (body.lastName !== undefined && body.lastName !== profile.lastName) {
      profile.lastName = body.lastName;
      changed = true;
    }
    if (body.location && differs(profile.location, body.location)) {
      profile.location = { ...(profile.location ?? {}), ...body.location };
      changed = true;
    }
    if (body.customFields && differs(profile.customFields, body.customFields)) {
      const dates = { ...(profile.customFieldDates ?? {}) };
      for (const key of Object.keys(body.customFields)) delete dates[key];
      profile.customFields = { ...(profile.customFields ?? {}), ...body.customFields };
      profile.customFieldDates = { ...dates, ...customFieldDates(body.customFields) };
      changed = true;
    }
    const { customFieldDates: _dates, ...row } = profile;
    if (!changed) return row;
    const [updated] = await sql<CustomerRow>(
      em,
      `update customer set phone_number = $2, first_name = $3, last_name = $4, location = $5, custom_fields = $6, custom_field_dates = $7, updated_at = now()
        where id = $1 returning ${customerColumns()}`,
      [
        profile.id,
        profile.phoneNumber,
        profile.firstName,
        profile.lastName,
        profile.location ? JSON.stringify(profile.location) : null,
        profile.customFields ? JSON.stringify(profile.customFields) : null,
        profile.customFieldDates ? JSON.stringify(profile.customFieldDates) : null,
      ],
    );
    return updated!;
  }
}
