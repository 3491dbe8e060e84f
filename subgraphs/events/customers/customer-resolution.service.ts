import { sql, type EntityManager } from '../../../platform/db/orm.js';
import { newId } from '../../../platform/ids.js';
import { customerColumns, type CustomerRow } from './customer.rows.js';
import { customFieldDates } from '../custom-event.rules.js';
import type { EventCustomer } from '../custom-event.schemas.js';

/** Another transaction created a customer with one of the identifiers meanwhile: resolve again. */
export class CustomerRaceError extends Error {
  constructor() {
    super('a customer with the same email or phone was created concurrently');
  }
}

interface Profile extends CustomerRow {
  customFieldDates: Record<string, number> | null;
}

const COLUMNS = `${customerColumns('c')}, c.custom_field_dates as "customFieldDates"`;

/**
 * Every customer an event could match, locked in id order ($1..$4: store ids, and the events'
 * ids, lower-cased emails and phones). One index lookup per identifier (primary key, the email
 * and phone unique indexes), forced by the lateral union: a single join on "id or email or phone"
 * could use none of them and read every customer of the stores involved, per batch.
 */
export const MATCHING_CUSTOMERS = `select ${COLUMNS} from customer c
  where c.id = any(array(
    select x.id from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as k(store_id, id, email, phone),
      lateral (select m.id from customer m where m.id = k.id and m.store_id = k.store_id
               union all
               select a.into_id from customer_merge a where a.merged_id = k.id and a.store_id = k.store_id
               union all
               select m.id from customer m where m.store_id = k.store_id and lower(m.email) = k.email and m.email is not null
               union all
               select m.id from customer m where m.store_id = k.store_id and m.phone_number = k.phone and m.phone_number is not null) as x))
  order by c.id for update of c`;

const emailKey = (storeId: string, email: string) => `${storeId}\u0000${email.toLowerCase()}`;
const phoneKey = (storeId: string, phone: string) => `${storeId}\u0000${phone}`;

/** Whether any given key holds another value than the stored one. */
const differs = (stored: Record<string, unknown> | null, given: Record<string, unknown>) => Object.entries(given).some(([key, value]) => stored?.[key] !== value);

/**
 * Applies an event's customer fields to a profile (patch semantics: omitted fields stay, given ones
 * replace, an identifier is added when the profile lacks it and no other customer holds it).
 * Returns whether anything changed.
 */
function patch(profile: Profile, given: EventCustomer, emailOwner: Profile | undefined, phoneOwner: Profile | undefined): boolean {
  let changed = false;
  if (given.email && !profile.email && !emailOwner) {
    profile.email = given.email;
    changed = true;
  }
  if (given.phoneNumber && !profile.phoneNumber && !phoneOwner) {
    profile.phoneNumber = given.phoneNumber;
    changed = true;
  }
  if (given.firstName !== undefined && given.firstName !== profile.firstName) {
    profile.firstName = given.firstName;
    changed = true;
  }
  if (given.lastName !== undefined && given.lastName !== profile.lastName) {
    profile.lastName = given.lastName;
    changed = true;
  }
  if (given.location && differs(profile.location, given.location)) {
    profile.location = { ...(profile.location ?? {}), ...given.location };
    changed = true;
  }
  if (given.customFields && differs(profile.customFields, given.customFields)) {
    const dates = { ...(profile.customFieldDates ?? {}) };
    for (const key of Object.keys(given.customFields)) delete dates[key];
    profile.customFields = { ...(profile.customFields ?? {}), ...given.customFields };
    profile.customFieldDates = { ...dates, ...customFieldDates(given.customFields) };
    changed = true;
  }
  return changed;
}

/**
 * Identity resolution for a batch of events, in event order: id, then email
 * (case-insensitive), then phone; an unknown id falls back to the others; no
 * match creates the customer. Fields are patched (omitted ones kept) and an
 * identifier the customer lacks is added when no other customer holds it.
 *
 * One locking read fetches every customer any event of the batch could match
 * (in id order, so concurrent batches lock in the same order), the rules run
 * in memory, and one insert plus one update write the result. A customer
 * created by another transaction in between makes the insert skip a row:
 * `CustomerRaceError`, and the caller retries.
 */
export async function resolveCustomers(em: EntityManager, events: { storeId: string; customer: EventCustomer }[], now: Date): Promise<CustomerRow[]> {
  const found = await sql<Profile>(
    em,
    MATCHING_CUSTOMERS,
    [
      events.map((e) => e.storeId),
      events.map((e) => e.customer.id ?? null),
      events.map((e) => e.customer.email?.toLowerCase() ?? null),
      events.map((e) => e.customer.phoneNumber ?? null),
    ],
  );
  const byId = new Map<string, Profile>();
  const byEmail = new Map<string, Profile>();
  const byPhone = new Map<string, Profile>();
  const index = (p: Profile) => {
    byId.set(p.id, p);
    if (p.email) byEmail.set(emailKey(p.storeId, p.email), p);
    if (p.phoneNumber) byPhone.set(phoneKey(p.storeId, p.phoneNumber), p);
  };
  found.forEach(index);
  // A merged profile's id answers as the profile it was merged into (only looked up for ids not found as such).
  const unknownIds = [...new Set(events.flatMap((e) => (e.customer.id && !byId.has(e.customer.id) ? [e.customer.id] : [])))];
  const aliases = unknownIds.length
    ? new Map((await sql<{ mergedId: string; intoId: string }>(em, 'select merged_id as "mergedId", into_id as "intoId" from customer_merge where merged_id = any($1)', [unknownIds])).map((a) => [a.mergedId, a.intoId]))
    : undefined;

  const created = new Set<string>();
  const changed = new Set<string>();
  const snapshots: CustomerRow[] = [];
  for (const { storeId, customer: given } of events) {
    const idMatch = given.id ? (byId.get(given.id) ?? byId.get(aliases?.get(given.id) ?? '')) : undefined;
    const emailOwner = given.email ? byEmail.get(emailKey(storeId, given.email)) : undefined;
    const phoneOwner = given.phoneNumber ? byPhone.get(phoneKey(storeId, given.phoneNumber)) : undefined;
    let profile = (idMatch?.storeId === storeId ? idMatch : undefined) ?? emailOwner ?? phoneOwner;
    if (!profile) {
      profile = {
        id: newId('customer'),
        storeId,
        email: null,
        phoneNumber: null,
        firstName: null,
        lastName: null,
        location: null,
        customFields: null,
        customFieldDates: null,
        createdAt: now,
        updatedAt: now,
      };
      created.add(profile.id);
    }
    // updatedAt moves when an event changes the profile; an event repeating what is stored writes nothing.
    if (patch(profile, given, emailOwner, phoneOwner) || created.has(profile.id)) {
      profile.updatedAt = now;
      if (!created.has(profile.id)) changed.add(profile.id);
    }
    index(profile);
    const { customFieldDates: _dates, ...snapshot } = profile;
    snapshots.push(structuredClone(snapshot));
  }

  const record = (p: Profile) => ({
    id: p.id,
    store_id: p.storeId,
    email: p.email,
    phone_number: p.phoneNumber,
    first_name: p.firstName,
    last_name: p.lastName,
    location: p.location,
    custom_fields: p.customFields,
    custom_field_dates: p.customFieldDates,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  });
  const recordset = `jsonb_to_recordset($1::jsonb) as v(id text, store_id text, email text, phone_number text, first_name text, last_name text,
    location jsonb, custom_fields jsonb, custom_field_dates jsonb, created_at timestamptz, updated_at timestamptz)`;
  if (created.size) {
    const rows = [...created].map((id) => record(byId.get(id)!));
    const inserted = await sql(
      em,
      `insert into customer (id, store_id, email, phone_number, first_name, last_name, location, custom_fields, custom_field_dates, created_at, updated_at)
       select * from ${recordset} on conflict do nothing returning id`,
      [JSON.stringify(rows)],
    );
    if (inserted.length !== rows.length) throw new CustomerRaceError();
  }
  if (changed.size) {
    await sql(
      em,
      `update customer c set email = v.email, phone_number = v.phone_number, first_name = v.first_name, last_name = v.last_name,
              location = v.location, custom_fields = v.custom_fields, custom_field_dates = v.custom_field_dates, updated_at = v.updated_at
         from ${recordset} where c.id = v.id`,
      [JSON.stringify([...changed].map((id) => record(byId.get(id)!)))],
    );
  }
  return snapshots;
}
