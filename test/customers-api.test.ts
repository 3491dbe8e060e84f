import { describe, expect, it } from 'vitest';
import { gql } from './inventory-fixtures.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { accept, customersOf, drained } from './support/events.js';
import { v22 } from './support/orders.js';
import { erasureCompleted, requestErasure } from './support/privacy.js';

/** The real platform's customer operations: GET and PUT /stores/{storeId}/customers. */
describe('customers', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Customers');
  const other = useTestAccount(app, 'Other customers');

  const put = (body: unknown, account = acme) => v22(app, account, 'PUT', `/stores/${account.storeId}/customers`, body);
  const get = (email: string, account = acme) => v22(app, account, 'GET', `/stores/${account.storeId}/customers?email=${encodeURIComponent(email)}`);

  it('upserts by email, any case, with the patch semantics of custom events', async () => {
    const created = await put({ email: 'Mia@Example.com', firstName: 'Mia', location: { city: 'Oslo', countryCode: 'NO' }, customFields: { tier: 'gold', points: 10 } });
    expect(created.status).toBe(201);
    const updated = await put({ email: 'mia@example.com', lastName: 'Berg', location: { postalCode: '0150' }, customFields: { points: 12, joined: '2026-02-24T12:15:00.000Z' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ id: created.body.id, email: 'Mia@Example.com', created: false });
    const read = await get('MIA@example.com');
    expect(read.body).toEqual({
      id: created.body.id,
      email: 'Mia@Example.com',
      firstName: 'Mia',
      lastName: 'Berg',
      location: { city: 'Oslo', countryCode: 'NO', postalCode: '0150' },
      customFields: { tier: 'gold', points: 12, joined: '2026-02-24T12:15:00.000Z' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // A date-time custom field is typed as a date: segments compare it as one.
    const segment = await gql<{ segmentMembers: { totalCount: number } }>(
      app,
      'query($s: ID!, $d: SegmentDefinitionInput!) { segmentMembers(storeId: $s, definition: $d, first: 5) { totalCount } }',
      { s: acme.storeId, d: { all: [{ profile: { field: 'customFields.joined', operator: 'AFTER', value: '2026-01-01' } }] } },
    );
    expect(segment.segmentMembers.totalCount).toBe(1);
    // The same email is another person in another store.
    expect((await put({ email: 'mia@example.com' }, other)).status).toBe(201);
  });

  it("adds a phone only to a customer without one, when no other customer of the store has it", async () => {
    await put({ email: 'first@example.com', phoneNumber: '+4712345678' });
    const second = await put({ email: 'second@example.com', phoneNumber: '+4712345678' });
    expect(second.status).toBe(201);
    expect((await get('second@example.com')).body.phoneNumber).toBeUndefined();
    await put({ email: 'second@example.com', phoneNumber: '+4787654321' });
    await put({ email: 'second@example.com', phoneNumber: '+4700000000' });
    expect((await get('second@example.com')).body.phoneNumber).toBe('+4787654321');
  });

  it('is the profile custom events patch: an event of the email lands on it, and an upsert racing a first event makes one customer', async () => {
    const { body } = await put({ email: 'evt@example.com', firstName: 'Eve' });
    await accept(app, acme, { eventName: 'Viewed', customer: { email: 'EVT@example.com', lastName: 'Ng' } });
    await drained(app.databaseUrl);
    expect(await get('evt@example.com').then((r) => r.body)).toMatchObject({ id: body.id, firstName: 'Eve', lastName: 'Ng' });
    await Promise.all([accept(app, acme, { eventName: 'Viewed', customer: { email: 'race@example.com' } }), put({ email: 'race@example.com', firstName: 'Rae' })]);
    await drained(app.databaseUrl);
    expect((await customersOf(app.databaseUrl, acme.storeId)).filter((c) => c.email?.toLowerCase() === 'race@example.com')).toHaveLength(1);
    expect((await get('race@example.com')).body.firstName).toBe('Rae');
  });

  it('refuses every invalid field with its pointer, and an erased person, changing nothing', async () => {
    const res = await put({ email: 'bad', phoneNumber: '0612', location: { countryCode: 'XX' }, customFields: { nested: { a: 1 } }, nickname: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/customFields/nested', '/email', '/location/countryCode', '/nickname', '/phoneNumber']);
    expect((await v22(app, acme, 'GET', `/stores/${acme.storeId}/customers`)).status).toBe(400);
    expect((await get('not-an-email')).body.errors[0].pointer).toBe('query#email');
    expect((await get('nobody@example.com')).status).toBe(404);

    await put({ email: 'gone@example.com', firstName: 'Gone' });
    await erasureCompleted(app, acme, await requestErasure(app, acme, { email: 'gone@example.com', suppression: 'DROP' }));
    const again = await put({ email: 'Gone@example.com', firstName: 'Back' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ type: '/problems/customer-erased', errors: [{ pointer: '/email' }] });
    expect((await get('gone@example.com')).status).toBe(404);
  });

  it('needs customers_read to read and customers_write to write', async () => {
    const reader = await app.service.runtime.accounts.createSecret(acme.accountId, ['customers_read']);
    const token = { ...acme, apiSecret: reader.apiSecret };
    expect((await get('mia@example.com', token)).status).toBe(200);
    expect((await put({ email: 'mia@example.com' }, token)).status).toBe(403);
  });
});
