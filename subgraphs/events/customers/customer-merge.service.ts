import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { invalid, type FieldError } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import { customFieldDates } from '../custom-event.rules.js';
import { lockMessagingOf } from './consent.service.js';
import { mergedConsent, type ConsentChannel, type ConsentKind, type StoredStatus } from './consent.rules.js';
import { lockStoreExclusive } from './customer-suppression.service.js';
import { customerColumns, type CustomerRow } from './customer.rows.js';

/** The history's words for a consent a merge set (merged ids are named nowhere once merged). */
const mergeDetail = (status: StoredStatus) => (status === 'unsubscribed' ? 'merged profiles: an unsubscribe is kept' : 'merged profiles: the latest consent is kept');

/** At most this many profiles are merged into one at once. */
const MAX_MERGED = 50;

interface Profile extends CustomerRow {
  customFieldDates: Record<string, number> | null;
}

/**
 * The surviving profile's fields: its own where it has them; an identifier or a name it lacks from
 * the first merged profile that has one; location and custom fields key by key, its own keys first.
 */
function mergedProfile(into: Profile, from: readonly Profile[]): Profile {
  const first = <K extends keyof Profile>(k: K) => into[k] ?? from.find((p) => p[k] !== null)?.[k] ?? null;
  const objects = (k: 'location' | 'customFields') => {
    const all = [...from].reverse().concat(into);
    const merged = Object.assign({}, ...all.map((p) => p[k] ?? {})) as Record<string, unknown>;
    return Object.keys(merged).length ? merged : null;
  };
  const customFields = objects('customFields');
  return {
    ...into,
    email: first('email'),
    phoneNumber: first('phoneNumber'),
    firstName: first('firstName'),
    lastName: first('lastName'),
    location: objects('location'),
    customFields,
    customFieldDates: customFields ? customFieldDates(customFields as Record<string, string | number | boolean>) : null,
  };
}

/**
 * `mergeCustomers`: duplicate profiles of one person (first seen by phone, later by email) become
 * one. In one transaction, under the store's erasure lock (so no event of the store is applied
 * meanwhile): the merged profiles' events, flow runs, messages, consent (an unsubscribe is never
 * undone), its history and channel suppressions move to the surviving profile, which fills in the
 * fields it lacks; their ids are kept as aliases that answer as the survivor. Orders and returns
 * are linked by email and phone: the survivor takes the identifiers it lacked (docs/consent.md#merging-profiles).
 */
export class CustomerMerges {
  constructor(private readonly orm: Orm) {}

  async merge(storeId: string, intoId: string, fromIds: readonly string[], actor: string): Promise<CustomerRow> {
    const errors: FieldError[] = [];
    if (!fromIds.length) errors.push({ pointer: '/from', detail: 'give at least one profile to merge' });
    if (fromIds.length > MAX_MERGED) errors.push({ pointer: '/from', detail: `at most ${MAX_MERGED} profiles at once` });
    fromIds.forEach((id, i) => {
      if (fromIds.indexOf(id) !== i) errors.push({ pointer: `/from/${i}`, detail: `${id} is listed twice` });
    });
    if (errors.length) throw invalid('validation-failed', 'The merge is invalid.', errors);

    return this.orm.em.fork().transactional(async (em) => {
      await lockStoreExclusive(em, storeId);
      const aliases = new Map(
        (await sql<{ mergedId: string; intoId: string }>(em, 'select merged_id as "mergedId", into_id as "intoId" from customer_merge where store_id = $1 and merged_id = any($2)', [storeId, [intoId, ...fromIds]])).map(
          (a) => [a.mergedId, a.intoId],
        ),
      );
      const survivorId = aliases.get(intoId) ?? intoId;
      const ids = [survivorId, ...fromIds];
      const profiles = new Map(
        (
          await sql<Profile>(em, `select ${customerColumns()}, custom_field_dates as "customFieldDates" from customer where store_id = $1 and id = any($2) order by id for update`, [storeId, ids])
        ).map((p) => [p.id, p]),
      );
      if (!profiles.has(survivorId)) errors.push({ pointer: '/into', detail: `no customer ${intoId} in this store` });
      fromIds.forEach((id, i) => {
        const merged = aliases.get(id);
        if (merged) errors.push({ pointer: `/from/${i}`, detail: `${id} was already merged into ${merged}` });
        else if (id === survivorId) errors.push({ pointer: `/from/${i}`, detail: `${id} is the surviving profile` });
        else if (!profiles.has(id)) errors.push({ pointer: `/from/${i}`, detail: `no customer ${id} in this store` });
      });
      if (errors.length) throw invalid('validation-failed', 'The merge is invalid.', errors);

      const into = profiles.get(survivorId)!;
      const from = fromIds.map((id) => profiles.get(id)!);
      // Runs first (a flow batch holding one commits before), then the messaging locks: the order flow batches take them in.
      await sql(em, 'update flow_run set customer_id = $1 where customer_id = any($2)', [survivorId, fromIds]);
      await lockMessagingOf(em, ids);
      await sql(em, 'update custom_event set customer_id = $1 where store_id = $2 and customer_id = any($3)', [survivorId, storeId, fromIds]);
      await sql(em, 'update message set customer_id = $1 where customer_id = any($2)', [survivorId, fromIds]);
      await this.mergeConsent(em, storeId, survivorId, fromIds, actor);
      await sql(
        em,
        `insert into customer_channel_suppression (customer_id, store_id, channel, reason, created_at)
           select $1, store_id, channel, reason, created_at from customer_channel_suppression where customer_id = any($2)
         on conflict (customer_id, channel) do nothing`,
        [survivorId, fromIds],
      );
      await sql(em, 'delete from customer_channel_suppression where customer_id = any($1)', [fromIds]);
      // Earlier merges into a merged profile now answer as the survivor too.
      await sql(em, 'update customer_merge set into_id = $1 where into_id = any($2)', [survivorId, fromIds]);
      await sql(em, 'insert into customer_merge (merged_id, store_id, into_id) select unnest($3::text[]), $2, $1', [survivorId, storeId, fromIds]);

      const result = mergedProfile(into, from);
      // The merged rows go first: the survivor may take their email or phone (unique per store).
      await sql(em, 'delete from customer where id = any($1)', [fromIds]);
      const [row] = await sql<CustomerRow>(
        em,
        `update customer set email = $2, phone_number = $3, first_name = $4, last_name = $5, location = $6, custom_fields = $7, custom_field_dates = $8, updated_at = now()
          where id = $1 returning ${customerColumns()}`,
        [survivorId, result.email, result.phoneNumber, result.firstName, result.lastName, result.location, result.customFields, result.customFieldDates],
      );
      return row!;
    });
  }

  /**
   * Per channel and kind, the survivor keeps the merged consent (an unsubscribe of any profile
   * wins, else the latest); the change is in its history (method MERGE), with the merged profiles'
   * histories, which move to it.
   */
  private async mergeConsent(em: EntityManager, storeId: string, survivorId: string, fromIds: readonly string[], actor: string): Promise<void> {
    const rows = await sql<{ customerId: string; channel: ConsentChannel; kind: ConsentKind; status: StoredStatus; changedAt: Date }>(
      em,
      `select customer_id as "customerId", channel, kind, status, changed_at as "changedAt" from customer_consent where customer_id = any($1) order by 1, 2, 3 for update`,
      [[survivorId, ...fromIds]],
    );
    await sql(em, 'update consent_change set customer_id = $1 where customer_id = any($2)', [survivorId, fromIds]);
    const pairs = new Map<string, typeof rows>();
    for (const r of rows) pairs.set(`${r.channel}:${r.kind}`, [...(pairs.get(`${r.channel}:${r.kind}`) ?? []), r]);
    for (const group of pairs.values()) {
      const own = group.find((r) => r.customerId === survivorId);
      const kept = mergedConsent(group)!;
      if (own && own.status === kept.status) continue;
      const { channel, kind } = group[0]!;
      await sql(
        em,
        `insert into customer_consent (customer_id, store_id, channel, kind, status, method, changed_at) values ($1, $2, $3, $4, $5, 'MERGE', $6)
         on conflict (customer_id, channel, kind) do update set status = excluded.status, method = excluded.method, changed_at = excluded.changed_at, recorded_at = clock_timestamp()`,
        [survivorId, storeId, channel, kind, kept.status, kept.changedAt],
      );
      await sql(
        em,
        `insert into consent_change (id, store_id, customer_id, channel, kind, status, previous_status, method, actor, detail, changed_at)
         values ($1, $2, $3, $4, $5, $6, $7, 'MERGE', $8, $9, $10)`,
        [newId('consentChange'), storeId, survivorId, channel, kind, kept.status, own?.status ?? null, actor, mergeDetail(kept.status), kept.changedAt],
      );
    }
    await sql(em, 'delete from customer_consent where customer_id = any($1)', [fromIds]);
  }
}
