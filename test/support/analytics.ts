/** Hand computations of the analytics tests: which bucket a time falls in, named by Intl in the zone (independent of the service's arithmetic). */

export interface WindowArg {
  from: string;
  until: string;
  interval?: 'HOUR' | 'DAY' | 'WEEK' | 'MONTH';
  timeZone?: string;
}

/** The local hour (with its offset, so a repeated hour is two), date, Monday of the week, or month of `t` in the window's zone. */
export function bucketLabel(t: Date, window: WindowArg): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: window.timeZone ?? 'UTC', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', timeZoneName: 'longOffset' })
      .formatToParts(t)
      .map((p) => [p.type, p.value]),
  );
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  switch (window.interval ?? 'DAY') {
    case 'HOUR':
      return `${date} ${parts.hour} ${parts.timeZoneName}`;
    case 'MONTH':
      return `${parts.year}-${parts.month}`;
    case 'WEEK': {
      const d = new Date(`${date}T00:00:00Z`);
      d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
      return d.toISOString().slice(0, 10);
    }
    default:
      return date;
  }
}

export function inWindow(t: Date, window: WindowArg): boolean {
  return t.getTime() >= Date.parse(window.from) && t.getTime() < Date.parse(window.until);
}
