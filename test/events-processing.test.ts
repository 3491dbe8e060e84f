import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { OUTBOX_EVENTS, query } from './support/database.js';
import { accept, acceptedEvents, customersOf, drained, postEvent, storedEvents } from './support/events.js';
import { eventually } from './support/eventually.js';

describe('custom event processing', () => {
  const app = useTestApp();

  it('answers 202 with no body once queued, then stores the event and creates the customer', async () => {
    const account = await app.createAccount('Accepted');
    const res = await postEvent(app, account, { eventName: 'Placed Order', customer: { email: 'Ada@Example.com', firstName: 'Ada' }, value: 12.5, valueCurrency: 'EUR', data: { items: 2 } });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    expect(res.headers.get('ratelimit-policy')).toBe('"events";q=100;w=1');
    // The job is committed before the answer (queued, or already applied: processing deletes it as it stores the event).
    expect(await acceptedEvents(app.databaseUrl, account.storeId)).toBe(1);
    const [event] = await eventually(async () => ((await storedEvents(app.databaseUrl, account.storeId)).length ? storedEvents(app.databaseUrl, account.storeId) : undefined), 'the event');
    expect(event).toMatchObject({ event_name: 'Placed Order', data: { items: 2 } });
    const customers = await customersOf(app.databaseUrl, account.storeId);
    expect(customers).toHaveLength(1);
    expect(customers[0]).toMatchObject({ email: 'Ada@Example.com', first_name: 'Ada', id: event!.customer_id });

    const outbox = await eventually(async () => {
      const rows = await query<{ data: { type: string; data: { event: { id: string }; customer: { id: string } } } }>(
        app.databaseUrl,
        `select data from ${OUTBOX_EVENTS} where data->>'subjectId' = $1`,
        [event!.id],
      );
      return rows.length ? rows : undefined;
    }, 'the outbox event');
    expect(outbox).toHaveLength(1);
    expect(outbox[0]!.data).toMatchObject({ type: 'custom_event.created', data: { event: { id: event!.id }, customer: { id: event!.customer_id } } });
  });

  describe('identity resolution', () => {
    const account = useTestAccount(app, 'Resolution');

    it('resolves by id, then email, then phone; falls back when the id is unknown; creates when nothing matches', async () => {
      await accept(app, account, { eventName: 'A', customer: { email: 'one@example.com' } });
      await accept(app, account, { eventName: 'A', customer: { phoneNumber: '+15550000002' } });
      await drained(app.databaseUrl);
      const initial = await customersOf(app.databaseUrl, account.storeId);
      const one = initial.find((c) => c.email === 'one@example.com');
      const two = initial.find((c) => c.phone_number === '+15550000002');
      expect(one).toBeDefined();
      expect(two).toBeDefined();

      // id wins over email and phone of other customers; their identifiers are not stolen.
      await accept(app, account, { eventName: 'B', customer: { id: one!.id, email: 'other@example.com', phoneNumber: '+15550000002' } });
      // email wins over phone.
      await accept(app, account, { eventName: 'C', customer: { email: 'ONE@example.com', phoneNumber: '+15550000002' } });
      // An unknown id falls back to the phone.
      await accept(app, account, { eventName: 'D', customer: { id: 'cus_unknown', phoneNumber: '+15550000002' } });
      // Nothing matches: a new customer.
      await accept(app, account, { eventName: 'E', customer: { id: 'cus_unknown2', email: 'three@example.com' } });
      await drained(app.databaseUrl);

      const customers = await customersOf(app.databaseUrl, account.storeId);
      expect(customers).toHaveLength(3);
      expect(customers.find((c) => c.id === one!.id)).toMatchObject({ email: 'one@example.com', phone_number: null });
      const three = customers.find((c) => c.email === 'three@example.com');
      expect(three).toBeDefined();
      const byName = Object.fromEntries((await storedEvents(app.databaseUrl, account.storeId)).map((e) => [e.event_name, e.customer_id]));
      expect(byName).toMatchObject({ B: one!.id, C: one!.id, D: two!.id, E: three!.id });
    });

    it('adds identifiers the customer lacks when nobody else owns them', async () => {
      const own = await app.createAccount('Identifiers');
      await accept(app, own, { eventName: 'A', customer: { email: 'solo@example.com' } });
      await drained(app.databaseUrl);
      await accept(app, own, { eventName: 'B', customer: { email: 'solo@example.com', phoneNumber: '+4915100000001' } });
      await drained(app.databaseUrl);
      const customers = await customersOf(app.databaseUrl, own.storeId);
      expect(customers).toHaveLength(1);
      expect(customers[0]).toMatchObject({ email: 'solo@example.com', phone_number: '+4915100000001' });
    });

    it('creates exactly one customer for two concurrent first events of a new email', async () => {
      const own = await app.createAccount('Race');
      const bodies = Array.from({ length: 12 }, (_, i) => ({ eventName: 'First', customer: { email: i % 2 ? 'race@example.com' : 'RACE@example.com', firstName: `R${i}` } }));
      const responses = await Promise.all(bodies.map((b) => postEvent(app, own, b)));
      expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 202));
      await drained(app.databaseUrl);
      expect(await customersOf(app.databaseUrl, own.storeId)).toHaveLength(1);
      expect(await storedEvents(app.databaseUrl, own.storeId)).toHaveLength(12);
    });
  });

  it('patches names, location and custom fields; omitted values stay', async () => {
    const account = await app.createAccount('Patch');
    await accept(app, account, {
      eventName: 'A',
      customer: { email: 'p@example.com', firstName: 'Pat', lastName: 'Lee', location: { city: 'Paris', countryCode: 'FR' }, customFields: { tier: 'gold', points: 10 } },
    });
    await drained(app.databaseUrl);
    await accept(app, account, { eventName: 'B', customer: { email: 'p@example.com', lastName: 'Li', location: { city: 'Lyon' }, customFields: { points: 20 } } });
    await drained(app.databaseUrl);
    const [customer] = await customersOf(app.databaseUrl, account.storeId);
    expect(customer).toMatchObject({
      first_name: 'Pat',
      last_name: 'Li',
      location: { city: 'Lyon', countryCode: 'FR' },
      custom_fields: { tier: 'gold', points: 20 },
    });
  });

  it('moves updatedAt when an event changes the profile, and writes nothing when it repeats what is stored', async () => {
    const account = await app.createAccount('Unchanged');
    const profile = { email: 'same@example.com', firstName: 'Sam', location: { city: 'Oslo' }, customFields: { tier: 'gold' } };
    await accept(app, account, { eventName: 'A', customer: profile });
    await drained(app.databaseUrl);
    const row = async () => (await query<{ updated_at: Date; xmin: string }>(app.databaseUrl, 'select updated_at, xmin::text from events.customer where store_id = $1', [account.storeId]))[0]!;
    const first = await row();

    await accept(app, account, { eventName: 'B', customer: { ...profile, email: 'SAME@example.com' } });
    await drained(app.databaseUrl);
    // Not rewritten: same row version, same updatedAt.
    expect(await row()).toEqual(first);

    await accept(app, account, { eventName: 'C', customer: { email: 'same@example.com', customFields: { tier: 'silver' } } });
    await drained(app.databaseUrl);
    const changed = await row();
    expect(changed.updated_at.getTime()).toBeGreaterThan(first.updated_at.getTime());
    expect((await customersOf(app.databaseUrl, account.storeId))[0]).toMatchObject({ first_name: 'Sam', custom_fields: { tier: 'silver' } });
  });

  it('applies the data rules: 0, null and "" dropped at the top level, $extra verbatim, objects kept, dates typed', async () => {
    const account = await app.createAccount('Data');
    await accept(app, account, {
      eventName: 'Viewed',
      customer: { email: 'd@example.com', customFields: { birthday: '1990-04-01', nickname: 'dee' } },
      data: {
        zero: 0,
        nothing: null,
        empty: '',
        no: false,
        zeroString: '0',
        count: 3,
        name: 'shoe',
        at: '2026-03-01T10:00:00Z',
        day: '2026-03-02',
        nested: { a: 0, b: null },
        list: [0, ''],
        $extra: { keep: 0, also: null, empty: '', deep: { x: [1] } },
      },
    });
    await drained(app.databaseUrl);
    const [event] = await storedEvents(app.databaseUrl, account.storeId);
    expect(event!.data).toEqual({ no: false, zeroString: '0', count: 3, name: 'shoe', at: '2026-03-01T10:00:00Z', day: '2026-03-02', nested: { a: 0, b: null }, list: [0, ''] });
    expect(event!.extra).toEqual({ keep: 0, also: null, empty: '', deep: { x: [1] } });

    const catalogue = await app.graphql<{ eventProperties: { key: string; type: string; segmentable: boolean }[] }>(
      'query($s: ID!) { eventProperties(storeId: $s, eventName: "Viewed") { key type segmentable } }',
      { s: account.storeId },
    );
    expect(Object.fromEntries(catalogue.data!.eventProperties.map((p) => [p.key, [p.type, p.segmentable]]))).toEqual({
      no: ['boolean', true],
      zeroString: ['string', true],
      count: ['number', true],
      name: ['string', true],
      at: ['date', true],
      day: ['date', true],
      nested: ['object', false],
      list: ['array', false],
    });
    const [dates] = await query<{ data_dates: Record<string, number> }>(app.databaseUrl, 'select data_dates from events.custom_event where id = $1', [event!.id]);
    expect(dates!.data_dates).toEqual({ at: Date.UTC(2026, 2, 1, 10) / 1000, day: Date.UTC(2026, 2, 2) / 1000 });
    const [customer] = await query<{ custom_field_dates: Record<string, number> }>(app.databaseUrl, 'select custom_field_dates from events.customer where store_id = $1', [account.storeId]);
    expect(customer!.custom_field_dates).toEqual({ birthday: Date.UTC(1990, 3, 1) / 1000 });
  });

  it('keeps the first event of a uniqueId, also when duplicates arrive concurrently', async () => {
    const account = await app.createAccount('Dedup');
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postEvent(app, account, { eventName: 'Paid', uniqueId: 'order-1', customer: { email: `u${i}@example.com` } })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(202));
    await drained(app.databaseUrl);
    await accept(app, account, { eventName: 'Paid', uniqueId: 'order-1', customer: { email: 'late@example.com' } });
    await accept(app, account, { eventName: 'Paid', uniqueId: 'order-2', customer: { email: 'late@example.com' } });
    await drained(app.databaseUrl);
    const events = await storedEvents(app.databaseUrl, account.storeId);
    expect(events.filter((e) => e.unique_id === 'order-1')).toHaveLength(1);
    expect(events.filter((e) => e.unique_id === 'order-2')).toHaveLength(1);
    // The same uniqueId in another store is another event.
    const other = await app.createAccount('Dedup other');
    await accept(app, other, { eventName: 'Paid', uniqueId: 'order-1', customer: { email: 'x@example.com' } });
    await drained(app.databaseUrl);
    expect(await storedEvents(app.databaseUrl, other.storeId)).toHaveLength(1);
  });

  it('defaults eventTimestamp to the time of acceptance and keeps a given one', async () => {
    const account = await app.createAccount('Timestamps');
    const before = Date.now();
    await accept(app, account, { eventName: 'Now', customer: { email: 't@example.com' } });
    await accept(app, account, { eventName: 'Then', customer: { email: 't@example.com' }, eventTimestamp: '2020-01-02T03:04:05+02:00' });
    await drained(app.databaseUrl);
    const events = await storedEvents(app.databaseUrl, account.storeId);
    expect(events.find((e) => e.event_name === 'Then')!.event_timestamp.toISOString()).toBe('2020-01-02T01:04:05.000Z');
    expect(events.find((e) => e.event_name === 'Now')!.event_timestamp.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('accepts a bulk request with per-event results and processes the valid events', async () => {
    const account = await app.createAccount('Bulk');
    const res = await postEvent(
      app,
      account,
      { events: [{ eventName: 'A', customer: { email: 'b1@example.com' } }, { eventName: '', customer: {} }, { eventName: 'C', customer: { phoneNumber: '+33600000000' } }] },
      { path: '/bulk' },
    );
    expect(res.status).toBe(202);
    const body = (await res.json()) as { accepted: number; rejected: number; results: { index: number; status: string; error?: { errors: { pointer: string }[] } }[] };
    expect(body.accepted).toBe(2);
    expect(body.rejected).toBe(1);
    expect(body.results.map((r) => r.status)).toEqual(['queued', 'rejected', 'queued']);
    expect(body.results[0]).toEqual({ index: 0, status: 'queued' });
    expect(body.results[1]!.error!.errors.map((e) => e.pointer)).toEqual(expect.arrayContaining(['/events/1/eventName', '/events/1/customer']));
    await drained(app.databaseUrl);
    expect((await storedEvents(app.databaseUrl, account.storeId)).map((e) => e.event_name).sort()).toEqual(['A', 'C']);
  });

  it('shows a customer with their events in GraphQL, and the same mutation as REST', async () => {
    const account = await app.createAccount('GraphQL');
    const created = await app.graphql<{ createCustomEvent: { queued: boolean } }>(
      'mutation($s: ID!, $e: JSON!) { createCustomEvent(storeId: $s, event: $e) { queued } }',
      { s: account.storeId, e: { eventName: 'Signed Up', customer: { email: 'g@example.com', location: { city: 'Oslo' } }, data: { plan: 'pro' }, value: 9 } },
      account.apiSecret,
    );
    expect(created.data?.createCustomEvent.queued).toBe(true);
    const invalid = await app.graphql('mutation($s: ID!, $e: JSON!) { createCustomEvent(storeId: $s, event: $e) { queued } }', { s: account.storeId, e: { customer: {} } }, account.apiSecret);
    expect(invalid.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', problem: 'validation-failed' });
    await drained(app.databaseUrl);
    const result = await app.graphql<{ customer: { email: string; location: { city: string }; events: { edges: { node: { eventName: string; data: unknown; value: number } }[] } } }>(
      'query($s: ID!) { customer(storeId: $s, email: "G@example.com") { email location { city } events(first: 5) { edges { node { eventName data value } } } } }',
      { s: account.storeId },
      account.apiSecret,
    );
    expect(result.data!.customer).toEqual({ email: 'g@example.com', location: { city: 'Oslo' }, events: { edges: [{ node: { eventName: 'Signed Up', data: { plan: 'pro' }, value: 9 } }] } });
    const list = await app.graphql<{ customEvents: { edges: unknown[] }; customers: { totalCount: number } }>(
      'query($s: ID!) { customEvents(storeId: $s, eventName: "Signed Up", since: "2000-01-01T00:00:00Z") { edges { node { id } } } customers(storeId: $s) { totalCount } }',
      { s: account.storeId },
      account.apiSecret,
    );
    expect(list.data!.customEvents.edges).toHaveLength(1);
    expect(list.data!.customers.totalCount).toBe(1);

    // Customer.returns is resolved by the returns subgraph from the customer's storeId, email and phone (federation).
    const joined = await app.graphql<{ customer: { id: string; returns: { edges: unknown[] }; events: { edges: { node: { customer: { email: string } } }[] } } }>(
      'query($s: ID!) { customer(storeId: $s, email: "g@example.com") { id returns(first: 5) { edges { node { id } } } events(first: 1) { edges { node { customer { email } } } } } }',
      { s: account.storeId },
      account.apiSecret,
    );
    expect(joined.errors).toBeUndefined();
    expect(joined.data!.customer.returns.edges).toEqual([]);
    expect(joined.data!.customer.events.edges[0]!.node.customer.email).toBe('g@example.com');
  });
});
