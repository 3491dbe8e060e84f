import { firstInstantAtOrAfter, wallAt, wallMs } from '../../../platform/analytics/time-window.js';

/**
 * A store's rules for marketing sends (decisions section 21), pure: quiet hours (no marketing send
 * between two local times, in the customer's time zone, else the store's; the send waits until they
 * end) and smart sending (no second marketing message on a channel within N hours). The local-time
 * arithmetic is the analytics' (Intl's zone rules): daylight-saving correct. Unit-tested in
 * test/unit/messaging-rules.test.ts.
 */

/** Quiet hours as seconds of the local day: from `start` (inclusive) to `end` (exclusive), across midnight when end < start. */
export interface QuietHours {
  start: number;
  end: number;
}

const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;

/** `HH:MM` or `HH:MM:SS` (24-hour) as seconds of the day, or undefined when it is no such time. */
export function parseLocalTime(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^([01][0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9]))?$/.exec(text);
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0) : undefined;
}

/** Seconds of the day as `HH:MM` (or `HH:MM:SS` when it has seconds). */
export function formatLocalTime(seconds: number): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const text = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor((seconds % 3600) / 60))}`;
  return seconds % 60 ? `${text}:${pad(seconds % 60)}` : text;
}

/** The instant a local date (ms as if UTC, at midnight) reaches `seconds` of its day in `zone`: the first such instant, or the jump over it. */
function instantOf(dateMs: number, seconds: number, zone: string): number {
  return firstInstantAtOrAfter(dateMs + seconds * 1000, zone);
}

/**
 * When the quiet hours that hold instant `now` end (ms), or null when `now` is outside them. Each
 * night's quiet period runs from the first instant its start time is reached locally to the first
 * instant its end time is (a time skipped by a daylight-saving jump is reached at the jump; a time
 * that happens twice, the first time), so a period is never longer or shorter than the clocks say.
 */
export function quietUntil(now: number, quiet: QuietHours, zone: string): number | null {
  if (quiet.start === quiet.end) return null;
  const wall = wallAt(now, zone);
  const today = wallMs({ ...wall, hour: 0, minute: 0, second: 0 });
  const crosses = quiet.end < quiet.start;
  // The periods that can hold `now`: the one starting today, and (across midnight) the one that started yesterday.
  for (const day of crosses ? [today - DAY_MS, today] : [today]) {
    const from = instantOf(day, quiet.start, zone);
    const until = instantOf(crosses ? day + DAY_MS : day, quiet.end, zone);
    if (now >= from && now < until) return until;
  }
  return null;
}

/**
 * Smart sending: why a marketing message on a channel is skipped, given when the customer last got
 * one on it (null: never), or null when it may go. Elapsed hours, so clock changes do not matter.
 */
export function smartSendingRefusal(now: number, hours: number | null, lastMarketingAt: number | null, channel: 'email' | 'sms'): string | null {
  if (!hours || lastMarketingAt === null) return null;
  const since = now - lastMarketingAt;
  if (since >= hours * 3_600_000) return null;
  const minutes = Math.max(0, Math.floor(since / 60_000));
  return `smart sending: a marketing ${channel === 'email' ? 'email' : 'SMS'} went out ${minutes} min ago (window ${hours} h)`;
}
