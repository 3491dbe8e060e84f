import type { PageRequest, Page } from '../../../platform/api/pagination.js';
import { sql, type Orm } from '../../../platform/db/orm.js';
import type { CustomEventRow } from '../custom-event.rows.js';
import type { CustomEventService } from '../custom-event.service.js';
import { MESSAGE_COLUMNS, type MessageRow } from '../flows/flow.service.js';
import { RETURN_STATUS_CHANGED } from '../flows/return-trigger.js';
import { timelinePage } from './timeline.rows.js';
import { TimelineEntryKind } from './timeline.type.js';

/** One entry as the resolver hands it out: the row it is about, loaded with the page's others. */
export interface TimelineEntryView {
  id: string;
  at: Date;
  kind: TimelineEntryKind;
  event: CustomEventRow | null;
  return: { id: string } | null;
  status: string | null;
  previousStatus: string | null;
  message: MessageRow | null;
}

/** A customer's timeline: one page of its lines (timeline.rows.ts), then the page's events and messages in one query each. */
export class TimelineReads {
  constructor(
    private readonly orm: Orm,
    private readonly events: Pick<CustomEventService, 'findByIds'>,
  ) {}

  async page(customerId: string, bounds: { since?: Date; until?: Date; messages: boolean }, page: PageRequest): Promise<Page<TimelineEntryView>> {
    const listed = await timelinePage(this.orm, customerId, bounds, page);
    const eventIds = listed.items.filter((i) => i.source === 'E').map((i) => i.id);
    const messageIds = listed.items.filter((i) => i.source === 'M').map((i) => i.id);
    const [events, messages] = await Promise.all([
      eventIds.length ? this.events.findByIds(eventIds) : Promise.resolve([]),
      messageIds.length ? sql<MessageRow>(this.orm.em.fork(), `select ${MESSAGE_COLUMNS} from message where id = any($1::text[])`, [messageIds]) : Promise.resolve([]),
    ]);
    const eventById = new Map(events.map((e) => [e.id, e]));
    const messageById = new Map(messages.map((m) => [m.id, m]));
    const items = listed.items.flatMap((item): TimelineEntryView[] => {
      if (item.source === 'M') {
        const message = messageById.get(item.id);
        return message ? [{ id: item.id, at: message.createdAt, kind: TimelineEntryKind.MESSAGE, event: null, return: null, status: null, previousStatus: null, message }] : [];
      }
      const event = eventById.get(item.id);
      if (!event) return [];
      const data = (event.data ?? {}) as Record<string, unknown>;
      const returnId = event.eventName === RETURN_STATUS_CHANGED && typeof data.returnId === 'string' ? data.returnId : null;
      return [
        {
          id: item.id,
          at: event.eventTimestamp,
          kind: returnId ? TimelineEntryKind.RETURN_STATUS_CHANGE : TimelineEntryKind.EVENT,
          event,
          return: returnId ? { id: returnId } : null,
          status: returnId && typeof data.status === 'string' ? data.status : null,
          previousStatus: returnId && typeof data.previousStatus === 'string' ? data.previousStatus : null,
          message: null,
        },
      ];
    });
    return { ...listed, items };
  }
}
