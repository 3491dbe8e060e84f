import { Field, InputType, registerEnumType } from 'type-graphql';
import type { AccountsService } from '../accounts/accounts.service.js';
import { invalid } from '../errors.js';
import { memoize, type GraphQLContext } from '../graphql/context.js';
import { isTimeZone } from '../validation/rules.js';
import { bucketStarts, MAX_BUCKETS, TooManyBuckets, type Window } from './time-window.js';

export enum TimeInterval {
  HOUR = 'HOUR',
  DAY = 'DAY',
  WEEK = 'WEEK',
  MONTH = 'MONTH',
}
registerEnumType(TimeInterval, { name: 'TimeInterval', description: 'Bucket length of an analytics series; weeks start on Monday.' });

/** The window every analytics query takes (decisions section 18), the same input in every subgraph. */
@InputType('TimeWindowInput')
export class TimeWindowInput {
  @Field(() => Date, { description: 'Inclusive.' })
  from!: Date;

  @Field(() => Date, { description: 'Exclusive.' })
  until!: Date;

  @Field(() => TimeInterval, { nullable: true, defaultValue: TimeInterval.DAY })
  interval?: TimeInterval | null;

  @Field(() => String, { nullable: true, description: "An IANA time zone; default: the store's time zone, else UTC." })
  timeZone?: string | null;
}

/** Checks a window and cuts it into buckets; `BAD_USER_INPUT` names the part at fault. */
export function resolveWindow(input: TimeWindowInput, defaultZone: string | null, argument = 'window'): Window {
  const fail = (field: string, detail: string, message: string) => invalid('validation-failed', message, [{ pointer: `/${argument}${field}`, detail }]);
  const timeZone = input.timeZone ?? defaultZone ?? 'UTC';
  if (!isTimeZone(timeZone)) throw fail('/timeZone', 'must be an IANA time zone name, e.g. Europe/Berlin', `${argument}.timeZone "${timeZone}" is not a known IANA time zone.`);
  const from = input.from.getTime();
  const until = input.until.getTime();
  if (from >= until) throw fail('/until', 'must be after from', `${argument}.until must be after ${argument}.from.`);
  const interval = input.interval ?? TimeInterval.DAY;
  try {
    const starts = bucketStarts(from, until, interval, timeZone);
    return { from, until, interval, timeZone, starts, edges: [...starts, until] };
  } catch (err) {
    if (!(err instanceof TooManyBuckets)) throw err;
    throw fail('', `holds more than ${MAX_BUCKETS} buckets of ${interval}`, `${argument} holds more than ${MAX_BUCKETS} buckets of ${interval}: choose a longer interval or a shorter window.`);
  }
}

/** The window of a store-scoped query, in the store's time zone unless it names one (the zone read once per request). */
export async function storeWindow(ctx: GraphQLContext, accounts: AccountsService, storeId: string, input: TimeWindowInput): Promise<Window> {
  const zone = input.timeZone ? null : await memoize(ctx, `store-time-zone:${storeId}`, () => accounts.storeTimeZone(storeId));
  return resolveWindow(input, zone);
}
