import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { acceptedEvents, postEvent } from './support/events.js';

interface Problem {
  type: string;
  status: number;
  errors?: { pointer: string; detail: string }[];
}

const valid = () => ({ eventName: 'Placed Order', customer: { email: 'v@example.com' } });

describe('custom event validation and limits', () => {
  const app = useTestApp();
  const account = useTestAccount(app, 'Validation');

  async function rejected(body: unknown): Promise<Problem> {
    const res = await postEvent(app, account, body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    return (await res.json()) as Problem;
  }

  async function pointers(body: unknown): Promise<string[]> {
    const problem = await rejected(body);
    expect(problem.type).toBe('/problems/validation-failed');
    return problem.errors!.map((e) => e.pointer);
  }

  const big = 'x'.repeat(100 * 1024 + 1);

  it.each<[string, Record<string, unknown>, string]>([
    ['missing eventName', { customer: { email: 'a@example.com' } }, '/eventName'],
    ['empty eventName', { eventName: '', customer: { email: 'a@example.com' } }, '/eventName'],
    ['non-string eventName', { eventName: 5, customer: { email: 'a@example.com' } }, '/eventName'],
    ['missing customer', { eventName: 'E' }, '/customer'],
    ['customer not an object', { eventName: 'E', customer: 'a@example.com' }, '/customer'],
    ['no customer identifier', { eventName: 'E', customer: { firstName: 'A' } }, '/customer'],
    ['unknown customer property', { eventName: 'E', customer: { email: 'a@example.com', nickname: 'x' } }, '/customer/nickname'],
    ['invalid email', { eventName: 'E', customer: { email: 'not-an-email' } }, '/customer/email'],
    ['phone not E.164', { eventName: 'E', customer: { phoneNumber: '555-1234' } }, '/customer/phoneNumber'],
    ['phone too long', { eventName: 'E', customer: { phoneNumber: '+1234567890123456' } }, '/customer/phoneNumber'],
    ['empty id', { eventName: 'E', customer: { id: '' } }, '/customer/id'],
    ['firstName not a string', { eventName: 'E', customer: { email: 'a@example.com', firstName: 1 } }, '/customer/firstName'],
    ['unknown location property', { eventName: 'E', customer: { email: 'a@example.com', location: { planet: 'Mars' } } }, '/customer/location/planet'],
    ['invalid countryCode', { eventName: 'E', customer: { email: 'a@example.com', location: { countryCode: 'XX' } } }, '/customer/location/countryCode'],
    ['invalid ianaTimeZoneName', { eventName: 'E', customer: { email: 'a@example.com', location: { ianaTimeZoneName: 'Mars/Olympus' } } }, '/customer/location/ianaTimeZoneName'],
    ['latitude out of range', { eventName: 'E', customer: { email: 'a@example.com', location: { latitude: 91 } } }, '/customer/location/latitude'],
    ['customField object value', { eventName: 'E', customer: { email: 'a@example.com', customFields: { a: { b: 1 } } } }, '/customer/customFields/a'],
    ['customField null value', { eventName: 'E', customer: { email: 'a@example.com', customFields: { a: null } } }, '/customer/customFields/a'],
    ['data not an object', { ...valid(), data: [1, 2] }, '/data'],
    ['more than 400 data properties', { ...valid(), data: Object.fromEntries(Array.from({ length: 401 }, (_, i) => [`k${i}`, i + 1])) }, '/data'],
    ['eventTimestamp not RFC 3339', { ...valid(), eventTimestamp: '2026-13-01T00:00:00Z' }, '/eventTimestamp'],
    ['eventTimestamp without offset', { ...valid(), eventTimestamp: '2026-01-01T00:00:00' }, '/eventTimestamp'],
    ['value not a number', { ...valid(), value: '12' }, '/value'],
    ['invalid valueCurrency', { ...valid(), valueCurrency: 'EURO' }, '/valueCurrency'],
    ['unknown valueCurrency', { ...valid(), valueCurrency: 'ABC' }, '/valueCurrency'],
    ['empty uniqueId', { ...valid(), uniqueId: '' }, '/uniqueId'],
    ['uniqueId over 255 characters', { ...valid(), uniqueId: 'u'.repeat(256) }, '/uniqueId'],
    ['a string over 100 KB in data', { ...valid(), data: { note: big } }, '/data/note'],
    ['a string over 100 KB in $extra', { ...valid(), data: { $extra: { deep: [big] } } }, '/data/$extra/deep/0'],
    ['a string over 100 KB in an unknown top-level property', { ...valid(), comment: big }, '/comment'],
  ])('%s is 400 with its pointer', async (_name, body, pointer) => {
    expect(await pointers(body)).toEqual([pointer]);
  });

  it('lists every violation at once', async () => {
    const list = await pointers({ eventName: '', customer: { email: 'x', phoneNumber: '1' }, value: 'a', uniqueId: '' });
    expect(list.sort()).toEqual(['/customer/email', '/customer/phoneNumber', '/eventName', '/uniqueId', '/value']);
  });

  it('accepts the boundaries: 400 data properties, 100 KB strings, 255-character uniqueId, extra top-level properties', async () => {
    const res = await postEvent(app, account, {
      ...valid(),
      data: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, i === 0 ? 'y'.repeat(100 * 1024) : i])),
      uniqueId: 'u'.repeat(255),
      value: 0,
      valueCurrency: 'USD',
      eventTimestamp: '2026-01-01T00:00:00.123+05:30',
      somethingElse: { allowed: true },
      customer: {
        email: 'ok@example.com',
        phoneNumber: '+4420123456',
        location: { city: 'London', countryCode: 'GB', ianaTimeZoneName: 'Europe/London', latitude: 51.5, longitude: -0.12 },
        customFields: { vip: true, score: 1.5, since: '2024-01-01' },
      },
    });
    expect(res.status, await res.clone().text()).toBe(202);
  });

  it('answers 413 for a body over 5 MB', async () => {
    const res = await postEvent(app, account, null, { raw: JSON.stringify({ ...valid(), data: { $extra: Array.from({ length: 60 }, () => 'z'.repeat(90 * 1024)) } }) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as Problem).type).toBe('/problems/payload-too-large');
  });

  it('answers 400 invalid-json for a malformed body and 415 for another content type', async () => {
    const res = await postEvent(app, account, null, { raw: '{"eventName": ' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Problem).type).toBe('/problems/invalid-json');
    const text = await app.request(`/v2.2/stores/${account.storeId}/events`, { method: 'POST', token: account.apiSecret, headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(text.status).toBe(415);
  });

  it('answers 404 for an unknown store and for another account\'s store, 401 without a secret, 403 without the scope', async () => {
    expect((await postEvent(app, account, valid(), { storeId: 'sto_unknown' })).status).toBe(404);
    const other = await app.createAccount('Other');
    const foreign = await postEvent(app, account, valid(), { storeId: other.storeId });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as Problem).type).toBe('/problems/store-not-found');
    expect((await postEvent(app, account, valid(), { token: 'sk_nope' })).status).toBe(401);

    const limited = await app.service.runtime.accounts.createSecret(account.accountId, ['customers_read']);
    const res = await postEvent(app, account, { not: 'even valid' }, { token: limited.apiSecret });
    expect(res.status).toBe(403);
    expect(((await res.json()) as Problem).type).toBe('/problems/scope-forbidden');
  });

  it('queues nothing for a rejected request', async () => {
    const own = await app.createAccount('Nothing queued');
    await postEvent(app, own, { eventName: 'E', customer: {} });
    expect(await acceptedEvents(app.databaseUrl, own.storeId)).toBe(0);
  });

  describe('bulk', () => {
    it.each<[string, unknown, string]>([
      ['no events array', { event: [] }, '/events'],
      ['an empty array', { events: [] }, '/events'],
      ['more than 100 events', { events: Array.from({ length: 101 }, valid) }, '/events'],
    ])('%s is 400', async (_name, body, pointer) => {
      const res = await postEvent(app, account, body, { path: '/bulk' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as Problem).errors!.map((e) => e.pointer)).toEqual([pointer]);
    });

    it('accepts 100 events', async () => {
      const res = await postEvent(app, account, { events: Array.from({ length: 100 }, valid) }, { path: '/bulk' });
      expect(res.status).toBe(202);
      expect(await res.json()).toMatchObject({ accepted: 100, rejected: 0 });
    });
  });
});
