import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { accept, customersOf, drained } from './support/events.js';

const MEMBERS = `query($s: ID!, $d: SegmentDefinitionInput!, $first: Int, $after: String) {
  segmentMembers(storeId: $s, definition: $d, first: $first, after: $after) { totalCount edges { node { email } } pageInfo { hasNextPage endCursor } }
}`;

interface Members {
  segmentMembers: { totalCount: number; edges: { node: { email: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();

describe('segments', () => {
  const app = useTestApp();
  const account = useTestAccount(app, 'Segments');

  beforeAll(async () => {
    const customer = (name: string, extra: Record<string, unknown> = {}) => ({ email: `${name}@example.com`, ...extra });
    // ann: two big recent orders, gold tier, Paris
    await accept(app, account, { eventName: 'Ordered', customer: customer('ann', { firstName: 'Ann', location: { city: 'Paris' }, customFields: { tier: 'gold', points: 150, joined: '2024-01-15' } }), eventTimestamp: daysAgo(2), data: { total: 120, coupon: 'SUMMER-SALE', shippedAt: daysAgo(1), gift: true } });
    await accept(app, account, { eventName: 'Ordered', customer: customer('ann'), eventTimestamp: daysAgo(3), data: { total: 80.5, coupon: 'WELCOME' } });
    // bob: one small old order, silver tier, Berlin
    await accept(app, account, { eventName: 'Ordered', customer: customer('bob', { location: { city: 'Berlin' }, customFields: { tier: 'silver', points: 20, joined: '2025-06-01' } }), eventTimestamp: daysAgo(40), data: { total: 9, shippedAt: daysAgo(39), gift: false } });
    // cid: no orders, only a view; phone and no tier
    await accept(app, account, { eventName: 'Viewed', customer: customer('cid', { phoneNumber: '+15550001111', customFields: { points: 5 } }), eventTimestamp: daysAgo(1), data: { total: 1000 } });
    // "10" > "9" as numbers but not as strings: number typing matters.
    await accept(app, account, { eventName: 'Ordered', customer: customer('dan'), eventTimestamp: daysAgo(5), data: { total: 10 } });
    await drained(app.databaseUrl);
    expect(await customersOf(app.databaseUrl, account.storeId)).toHaveLength(4);
  });

  async function members(definition: unknown, first = 50): Promise<string[]> {
    const result = await app.graphql<Members>(MEMBERS, { s: account.storeId, d: definition, first }, account.apiSecret);
    expect(result.errors).toBeUndefined();
    const names = result.data!.segmentMembers.edges.map((e) => e.node.email.split('@')[0]!).sort();
    expect(result.data!.segmentMembers.totalCount).toBe(names.length);
    return names;
  }

  const ordered = (where: unknown[] = [], extra: Record<string, unknown> = {}) => ({ all: [{ event: { eventName: 'Ordered', where, ...extra } }] });

  it('segment-min-count-zero: minCount 0 without maxCount is everyone, those who never did it included', async () => {
    expect(await members({ all: [{ event: { eventName: 'Ordered', minCount: 0 } }] })).toEqual(['ann', 'bob', 'cid', 'dan']);
    expect(await members({ all: [{ event: { eventName: 'Ordered', minCount: 0, where: [{ key: 'total', operator: 'GREATER_THAN', value: 100 }] } }] })).toEqual(['ann', 'bob', 'cid', 'dan']);
  });

  it.each<[string, string, unknown]>([
    ['IS_SET on an object', 'box', undefined],
    ['IS_SET on an array', 'skus', undefined],
    ['NOT_EQUALS on an object', 'box', 'L'],
    ['NOT_EQUALS on an array', 'skus', 'A1'],
    ['EQUALS on an object', 'box', 'L'],
    ['CONTAINS on an array', 'skus', 'A1'],
    ['GREATER_THAN on an object', 'box', 1],
  ])('segment-object-array-properties: %s matches nobody (objects and arrays are never segmentable)', async (name, key, value) => {
    // A store of its own: one customer whose only event has an object and an array property.
    const store = await app.createAccount(`Objects ${name}`);
    await accept(app, store, { eventName: 'Packed', customer: { email: 'eve@example.com' }, data: { box: { size: 'L' }, skus: ['A1', 'B2'] } });
    await drained(app.databaseUrl);
    const operator = name.split(' ')[0]!;
    const where = [{ key, operator, ...(value === undefined ? {} : { value }) }];
    const result = await app.graphql<Members>(MEMBERS, { s: store.storeId, d: { all: [{ event: { eventName: 'Packed', where } }] } }, store.apiSecret);
    expect(result.errors).toBeUndefined();
    expect(result.data!.segmentMembers.totalCount).toBe(0);
  });

  it.each<[string, unknown, string[]]>([
    ['performed the event (minCount 1 default)', ordered(), ['ann', 'bob', 'dan']],
    ['at least twice', ordered([], { minCount: 2 }), ['ann']],
    ['at most once, never included', ordered([], { minCount: 0, maxCount: 1 }), ['bob', 'cid', 'dan']],
    ['within the last 7 days', ordered([], { withinLastDays: 7 }), ['ann', 'dan']],
    ['since (inclusive) and until (exclusive)', ordered([], { since: daysAgo(41), until: daysAgo(6) }), ['bob']],
    ['EQUALS a number', ordered([{ key: 'total', operator: 'EQUALS', value: 120 }]), ['ann']],
    ['EQUALS a string', ordered([{ key: 'coupon', operator: 'EQUALS', value: 'WELCOME' }]), ['ann']],
    ['EQUALS a boolean', ordered([{ key: 'gift', operator: 'EQUALS', value: false }]), ['bob']],
    ['NOT_EQUALS (unset values do not match)', ordered([{ key: 'coupon', operator: 'NOT_EQUALS', value: 'WELCOME' }]), ['ann']],
    ['CONTAINS, case-insensitive', ordered([{ key: 'coupon', operator: 'CONTAINS', value: 'sale' }]), ['ann']],
    ['GREATER_THAN compares numbers as numbers', ordered([{ key: 'total', operator: 'GREATER_THAN', value: 9.5 }]), ['ann', 'dan']],
    ['LESS_THAN', ordered([{ key: 'total', operator: 'LESS_THAN', value: 10 }]), ['bob']],
    ['AFTER compares dates as dates', ordered([{ key: 'shippedAt', operator: 'AFTER', value: daysAgo(10) }]), ['ann']],
    ['BEFORE', ordered([{ key: 'shippedAt', operator: 'BEFORE', value: daysAgo(10).slice(0, 10) }]), ['bob']],
    ['GREATER_THAN with a date', ordered([{ key: 'shippedAt', operator: 'GREATER_THAN', value: daysAgo(10) }]), ['ann']],
    ['WITHIN_LAST_DAYS on a date property', ordered([{ key: 'shippedAt', operator: 'WITHIN_LAST_DAYS', value: 3 }]), ['ann']],
    ['IS_SET', ordered([{ key: 'coupon', operator: 'IS_SET' }]), ['ann']],
    ['IS_NOT_SET (some order without a coupon)', ordered([{ key: 'coupon', operator: 'IS_NOT_SET' }]), ['bob', 'dan']],
    ['several property conditions on the same event', ordered([{ key: 'total', operator: 'GREATER_THAN', value: 50 }, { key: 'coupon', operator: 'EQUALS', value: 'WELCOME' }]), ['ann']],
    ['profile EQUALS, email case-insensitive', { all: [{ profile: { field: 'email', operator: 'EQUALS', value: 'BOB@example.com' } }] }, ['bob']],
    ['profile firstName IS_SET', { all: [{ profile: { field: 'firstName', operator: 'IS_SET' } }] }, ['ann']],
    ['profile phoneNumber IS_NOT_SET', { all: [{ profile: { field: 'phoneNumber', operator: 'IS_NOT_SET' } }] }, ['ann', 'bob', 'dan']],
    ['location field CONTAINS', { all: [{ profile: { field: 'location.city', operator: 'CONTAINS', value: 'par' } }] }, ['ann']],
    ['custom field NOT_EQUALS (unset does not match)', { all: [{ profile: { field: 'customFields.tier', operator: 'NOT_EQUALS', value: 'gold' } }] }, ['bob']],
    ['custom field GREATER_THAN as a number', { all: [{ profile: { field: 'customFields.points', operator: 'GREATER_THAN', value: 19 } }] }, ['ann', 'bob']],
    ['custom field date BEFORE', { all: [{ profile: { field: 'customFields.joined', operator: 'BEFORE', value: '2025-01-01' } }] }, ['ann']],
    ['custom field date AFTER', { all: [{ profile: { field: 'customFields.joined', operator: 'AFTER', value: '2025-01-01T00:00:00Z' } }] }, ['bob']],
    ['custom field IS_NOT_SET', { all: [{ profile: { field: 'customFields.tier', operator: 'IS_NOT_SET' } }] }, ['cid', 'dan']],
    ['createdAt WITHIN_LAST_DAYS', { all: [{ profile: { field: 'createdAt', operator: 'WITHIN_LAST_DAYS', value: 1 } }] }, ['ann', 'bob', 'cid', 'dan']],
    ['any: one of the conditions', { any: [{ profile: { field: 'customFields.tier', operator: 'EQUALS', value: 'silver' } }, { event: { eventName: 'Viewed' } }] }, ['bob', 'cid']],
    [
      'all and any: every all condition and at least one any condition',
      { all: [{ event: { eventName: 'Ordered' } }], any: [{ profile: { field: 'location.city', operator: 'EQUALS', value: 'Berlin' } }, { profile: { field: 'customFields.points', operator: 'GREATER_THAN', value: 100 } }] },
      ['ann', 'bob'],
    ],
  ])('%s', async (_name, definition, expected) => {
    expect(await members(definition)).toEqual(expected);
  });

  it('pages the members with a cursor bound to the definition', async () => {
    const definition = ordered();
    const first = await app.graphql<Members>(MEMBERS, { s: account.storeId, d: definition, first: 2 }, account.apiSecret);
    expect(first.data!.segmentMembers.edges).toHaveLength(2);
    expect(first.data!.segmentMembers.pageInfo.hasNextPage).toBe(true);
    const after = first.data!.segmentMembers.pageInfo.endCursor;
    const second = await app.graphql<Members>(MEMBERS, { s: account.storeId, d: definition, first: 2, after }, account.apiSecret);
    expect(second.data!.segmentMembers.edges).toHaveLength(1);
    const all = [...first.data!.segmentMembers.edges, ...second.data!.segmentMembers.edges].map((e) => e.node.email).sort();
    expect(all).toEqual(['ann@example.com', 'bob@example.com', 'dan@example.com']);
    const mismatched = await app.graphql(MEMBERS, { s: account.storeId, d: ordered([], { minCount: 2 }), first: 2, after }, account.apiSecret);
    expect(mismatched.errors![0]!.extensions).toMatchObject({ problem: 'invalid-cursor' });
  });

  it('refuses an invalid definition, listing every problem', async () => {
    const result = await app.graphql(
      MEMBERS,
      {
        s: account.storeId,
        d: { all: [{ event: { eventName: 'Ordered', where: [{ key: 'total', operator: 'GREATER_THAN', value: 'big' }] } }, { profile: { field: 'shoeSize', operator: 'EQUALS', value: 1 } }, {}] },
      },
      account.apiSecret,
    );
    expect(result.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', problem: 'validation-failed' });
    const pointers = (result.errors![0]!.extensions!.errors as { pointer: string }[]).map((e) => e.pointer);
    expect(pointers).toEqual(['/definition/all/0/event/where/0/value', '/definition/all/1/profile/field', '/definition/all/2']);
  });

  it('saves segments and lists them with their member count', async () => {
    const created = await app.graphql<{ createSegment: { id: string; name: string } }>(
      'mutation($s: ID!, $i: CreateSegmentInput!) { createSegment(storeId: $s, input: $i) { id name } }',
      { s: account.storeId, i: { name: 'Big spenders', definition: ordered([{ key: 'total', operator: 'GREATER_THAN', value: 50 }], { since: daysAgo(30) }) } },
      account.apiSecret,
    );
    expect(created.data!.createSegment.name).toBe('Big spenders');
    const listed = await app.graphql<{ segments: { id: string; name: string; memberCount: number; members: { edges: { node: { email: string } }[] } }[] }>(
      'query($s: ID!) { segments(storeId: $s) { id name memberCount members(first: 5) { edges { node { email } } } } }',
      { s: account.storeId },
      account.apiSecret,
    );
    expect(listed.data!.segments).toEqual([{ id: created.data!.createSegment.id, name: 'Big spenders', memberCount: 1, members: { edges: [{ node: { email: 'ann@example.com' } }] } }]);
  });

  it("keeps other accounts' stores out of reach", async () => {
    const other = await app.createAccount('Segments other');
    const result = await app.graphql(MEMBERS, { s: account.storeId, d: ordered() }, other.apiSecret);
    expect(result.errors![0]!.extensions).toMatchObject({ problem: 'store-not-found' });
  });
});
