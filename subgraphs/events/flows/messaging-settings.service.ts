import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { invalid, type FieldError } from '../../../platform/errors.js';
import { parseLocalTime, type QuietHours } from './messaging-settings.rules.js';

/** A store's rules for marketing sends (decisions section 21): none by default. */
export interface MessagingSettings {
  storeId: string;
  quietHours: QuietHours | null;
  smartSendingHours: number | null;
  /** Whether the store has an inbound SMS secret (its URL takes STOP and START replies). */
  inboundSms: boolean;
}

export interface MessagingSettingsChange {
  /** `{start, end}` as `HH:MM` (or `HH:MM:SS`) local times; null clears them; absent keeps them. */
  quietHours?: { start: string; end: string } | null;
  /** 1 to 720; null turns smart sending off; absent keeps it. */
  smartSendingHours?: number | null;
}

const MAX_SMART_SENDING_HOURS = 720;

const COLUMNS = `store_id as "storeId", quiet_hours_start as "start", quiet_hours_end as "end", smart_sending_hours as "smartSendingHours", inbound_sms_secret_hash is not null as "inboundSms"`;

interface Row {
  storeId: string;
  start: number | null;
  end: number | null;
  smartSendingHours: number | null;
  inboundSms: boolean;
}

const settingsOf = (storeId: string, row: Row | undefined): MessagingSettings => ({
  storeId,
  quietHours: row && row.start !== null && row.end !== null ? { start: row.start, end: row.end } : null,
  smartSendingHours: row?.smartSendingHours ?? null,
  inboundSms: row?.inboundSms ?? false,
});

/** The stores' messaging settings (events schema, `messaging_settings`). */
export class MessagingSettingsService {
  constructor(private readonly orm: Orm) {}

  async get(storeId: string): Promise<MessagingSettings> {
    return (await this.forStores(this.orm.em.fork(), [storeId])).get(storeId)!;
  }

  /** Settings of several stores at once (a batch of flow runs), in the caller's transaction. */
  async forStores(em: EntityManager, storeIds: readonly string[]): Promise<Map<string, MessagingSettings>> {
    const rows = storeIds.length ? await sql<Row>(em, `select ${COLUMNS} from messaging_settings where store_id = any($1)`, [storeIds]) : [];
    const byStore = new Map(rows.map((r) => [r.storeId, r]));
    return new Map(storeIds.map((id) => [id, settingsOf(id, byStore.get(id))]));
  }

  /** Changes the given settings (every problem listed with its pointer, nothing changed when any). */
  async update(storeId: string, change: MessagingSettingsChange): Promise<MessagingSettings> {
    const errors: FieldError[] = [];
    let start: number | null | undefined;
    let end: number | null | undefined;
    if (change.quietHours === null) start = end = null;
    else if (change.quietHours !== undefined) {
      start = parseLocalTime(change.quietHours.start);
      end = parseLocalTime(change.quietHours.end);
      if (start === undefined) errors.push({ pointer: '/input/quietHours/start', detail: 'must be a local time HH:MM (or HH:MM:SS), 00:00 to 23:59' });
      if (end === undefined) errors.push({ pointer: '/input/quietHours/end', detail: 'must be a local time HH:MM (or HH:MM:SS), 00:00 to 23:59' });
      if (start !== undefined && start === end) errors.push({ pointer: '/input/quietHours/end', detail: 'must differ from start' });
    }
    const hours = change.smartSendingHours;
    if (hours !== undefined && hours !== null && (!Number.isInteger(hours) || hours < 1 || hours > MAX_SMART_SENDING_HOURS)) {
      errors.push({ pointer: '/input/smartSendingHours', detail: `must be a whole number of hours from 1 to ${MAX_SMART_SENDING_HOURS}, or null (off)` });
    }
    if (errors.length) throw invalid('validation-failed', 'The messaging settings are invalid.', errors);
    const [row] = await sql<Row>(
      this.orm.em.fork(),
      `insert into messaging_settings as m (store_id, quiet_hours_start, quiet_hours_end, smart_sending_hours) values ($1, $3, $4, $6)
       on conflict (store_id) do update set
         quiet_hours_start = case when $2 then excluded.quiet_hours_start else m.quiet_hours_start end,
         quiet_hours_end = case when $2 then excluded.quiet_hours_end else m.quiet_hours_end end,
         smart_sending_hours = case when $5 then excluded.smart_sending_hours else m.smart_sending_hours end,
         updated_at = now()
       returning ${COLUMNS}`,
      [storeId, start !== undefined, start ?? null, end ?? null, hours !== undefined, hours ?? null],
    );
    return settingsOf(storeId, row);
  }
}
