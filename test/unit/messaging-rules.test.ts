import { describe, expect, it } from 'vitest';
import { formatLocalTime, parseLocalTime, quietUntil, smartSendingRefusal } from '../../subgraphs/events/flows/messaging-settings.rules.js';

/**
 * Quiet hours and smart sending alone (decisions section 21): local times in IANA zones across
 * both daylight-saving changes of Europe/Paris and America/New_York in 2026, no database.
 */

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const hours = (start: string, end: string) => ({ start: parseLocalTime(start)!, end: parseLocalTime(end)! });

describe('quiet hours', () => {
  const night = hours('21:00', '08:00');

  it('hold from the start time to the end time, across midnight, in the zone', () => {
    // 22:30 in Paris (winter, UTC+1): quiet until 08:00 the next morning.
    expect(iso(quietUntil(at('2026-01-10T21:30:00Z'), night, 'Europe/Paris'))).toBe('2026-01-11T07:00:00.000Z');
    // 06:00 in Paris: the night that started yesterday, until 08:00.
    expect(iso(quietUntil(at('2026-01-11T05:00:00Z'), night, 'Europe/Paris'))).toBe('2026-01-11T07:00:00.000Z');
    // 12:00 and exactly 08:00: outside; exactly 21:00: inside.
    expect(quietUntil(at('2026-01-11T11:00:00Z'), night, 'Europe/Paris')).toBeNull();
    expect(quietUntil(at('2026-01-11T07:00:00Z'), night, 'Europe/Paris')).toBeNull();
    expect(iso(quietUntil(at('2026-01-11T20:00:00Z'), night, 'Europe/Paris'))).toBe('2026-01-12T07:00:00.000Z');
    // The same instant is daytime in New York.
    expect(quietUntil(at('2026-01-10T21:30:00Z'), night, 'America/New_York')).toBeNull();
    // A window within one day.
    const lunch = hours('12:00', '13:30');
    expect(iso(quietUntil(at('2026-07-01T10:15:00Z'), lunch, 'Europe/Paris'))).toBe('2026-07-01T11:30:00.000Z');
    expect(quietUntil(at('2026-07-01T11:30:00Z'), lunch, 'Europe/Paris')).toBeNull();
  });

  it('follow the clocks on the night they spring forward (Paris, 29 March 2026: 02:00 becomes 03:00)', () => {
    // 00:30 CET: quiet until 08:00 CEST (UTC+2), a night one hour shorter, as the clocks say.
    expect(iso(quietUntil(at('2026-03-28T23:30:00Z'), night, 'Europe/Paris'))).toBe('2026-03-29T06:00:00.000Z');
    // The evening before started at 21:00 CET.
    expect(iso(quietUntil(at('2026-03-28T20:00:00Z'), night, 'Europe/Paris'))).toBe('2026-03-29T06:00:00.000Z');
    expect(quietUntil(at('2026-03-28T19:59:59Z'), night, 'Europe/Paris')).toBeNull();
    // A start time the clocks skip (02:30) is reached at the jump (03:00 CEST = 01:00Z).
    const skipped = hours('02:30', '05:00');
    expect(quietUntil(at('2026-03-29T00:59:00Z'), skipped, 'Europe/Paris')).toBeNull();
    expect(iso(quietUntil(at('2026-03-29T01:00:00Z'), skipped, 'Europe/Paris'))).toBe('2026-03-29T03:00:00.000Z');
  });

  it('follow the clocks on the night they fall back (Paris, 25 October 2026: 03:00 becomes 02:00)', () => {
    // 01:00 CEST: quiet until 08:00 CET (UTC+1), a night one hour longer.
    expect(iso(quietUntil(at('2026-10-24T23:00:00Z'), night, 'Europe/Paris'))).toBe('2026-10-25T07:00:00.000Z');
    expect(quietUntil(at('2026-10-25T07:00:00Z'), night, 'Europe/Paris')).toBeNull();
  });

  it('take a repeated local time the first time it happens (New York, 1 November 2026: 02:00 becomes 01:00)', () => {
    const repeated = hours('01:15', '01:45');
    // 01:20 EDT (05:20Z), the first time: quiet until 01:45 EDT.
    expect(iso(quietUntil(at('2026-11-01T05:20:00Z'), repeated, 'America/New_York'))).toBe('2026-11-01T05:45:00.000Z');
    // 01:20 EST (06:20Z), the second time: that night's quiet period is over.
    expect(quietUntil(at('2026-11-01T06:20:00Z'), repeated, 'America/New_York')).toBeNull();
    // New York's spring change (8 March 2026): 22:00 EST to 07:00 EDT.
    expect(iso(quietUntil(at('2026-03-08T06:30:00Z'), night, 'America/New_York'))).toBe('2026-03-08T12:00:00.000Z');
  });

  it('parse and print local times', () => {
    expect(parseLocalTime('08:00')).toBe(8 * 3600);
    expect(parseLocalTime('23:59:59')).toBe(86_399);
    for (const bad of ['24:00', '8:00', '08:60', '', 'noon', 800, null]) expect(parseLocalTime(bad)).toBeUndefined();
    expect(formatLocalTime(21 * 3600)).toBe('21:00');
    expect(formatLocalTime(3600 + 61)).toBe('01:01:01');
  });
});

describe('smart sending', () => {
  it('skips a second marketing message within the window, in elapsed hours', () => {
    const sent = at('2026-03-28T22:00:00Z');
    expect(smartSendingRefusal(sent + 3_600_000, 16, sent, 'email')).toBe('smart sending: a marketing email went out 60 min ago (window 16 h)');
    expect(smartSendingRefusal(sent + 16 * 3_600_000, 16, sent, 'email')).toBeNull();
    // Across the spring change in Paris: 15 elapsed hours are 16 on the wall clock, still within the window.
    expect(smartSendingRefusal(sent + 15 * 3_600_000, 16, sent, 'sms')).toMatch(/^smart sending: a marketing SMS went out 900 min ago/);
    expect(smartSendingRefusal(sent, null, sent, 'email')).toBeNull();
    expect(smartSendingRefusal(sent, 16, null, 'email')).toBeNull();
  });
});
