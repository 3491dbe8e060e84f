import { describe, expect, it } from 'vitest';
import { inboundPhone, maskAddress, mergedConsent, sendRefusal, signUnsubscribe, smsKeyword, verifyUnsubscribe } from '../../subgraphs/events/customers/consent.rules.js';
import { readSubscriptions } from '../../subgraphs/events/customers/consent.schemas.js';

/** Consent rules alone (decisions section 21): what a status allows, merges, SMS keywords, tokens, the body's checks. */

describe('consent rules', () => {
  it('marketing needs a subscribed consent; transactional only no opt-out; suppression stops both', () => {
    expect(sendRefusal('marketing', 'email', {}, null)).toBe('no email marketing consent (never_subscribed)');
    expect(sendRefusal('marketing', 'email', { marketing: 'subscribed' }, null)).toBeNull();
    expect(sendRefusal('marketing', 'sms', { marketing: 'confirmed' }, null)).toBeNull();
    expect(sendRefusal('marketing', 'sms', { marketing: 'unsubscribed', transactional: 'subscribed' }, null)).toBe('no SMS marketing consent (unsubscribed)');
    expect(sendRefusal('transactional', 'email', {}, null)).toBeNull();
    expect(sendRefusal('transactional', 'sms', { marketing: 'unsubscribed' }, null)).toBeNull();
    expect(sendRefusal('transactional', 'sms', { transactional: 'unsubscribed' }, null)).toBe('unsubscribed from transactional SMS');
    expect(sendRefusal('transactional', 'email', { marketing: 'subscribed' }, 'hard bounce')).toBe('email suppressed (hard bounce)');
  });

  it('a merge keeps the latest unsubscribe, else the latest consent', () => {
    const d = (s: string) => new Date(s);
    expect(mergedConsent([{ status: 'subscribed', changedAt: d('2026-05-01') }, { status: 'unsubscribed', changedAt: d('2026-01-01') }])).toEqual({ status: 'unsubscribed', changedAt: d('2026-01-01') });
    expect(mergedConsent([{ status: 'subscribed', changedAt: d('2026-01-01') }, { status: 'confirmed', changedAt: d('2026-02-01') }])).toEqual({ status: 'confirmed', changedAt: d('2026-02-01') });
    expect(mergedConsent([])).toBeNull();
  });

  it('reads carrier keywords alone, in any case, and senders as E.164', () => {
    expect(smsKeyword(' stop ')).toEqual({ action: 'stop', word: 'STOP' });
    expect(smsKeyword('Unsubscribe.')).toEqual({ action: 'stop', word: 'UNSUBSCRIBE' });
    expect(smsKeyword('START')).toEqual({ action: 'start', word: 'START' });
    expect(smsKeyword('please stop')).toBeNull();
    expect(smsKeyword('')).toBeNull();
    expect(inboundPhone('+1 (415) 555-0123')).toBe('+14155550123');
    expect(inboundPhone('14155550123')).toBe('+14155550123');
    expect(inboundPhone('0033612345678')).toBe('+33612345678');
    expect(inboundPhone('SHOPNAME')).toBeNull();
    expect(inboundPhone('12345')).toBeNull();
  });

  it('signs unsubscribe tokens that cannot be altered or verified with another key', () => {
    const key = Buffer.alloc(32, 7);
    const token = signUnsubscribe(key, { storeId: 'sto_1', customerId: 'cus_1', channel: 'email' });
    expect(verifyUnsubscribe(key, token)).toEqual({ storeId: 'sto_1', customerId: 'cus_1', channel: 'email' });
    expect(verifyUnsubscribe(Buffer.alloc(32, 8), token)).toBeNull();
    const [v, body, sig] = token.split('.') as [string, string, string];
    const other = Buffer.from(JSON.stringify(['sto_1', 'cus_2', 'email'])).toString('base64url');
    expect(verifyUnsubscribe(key, `${v}.${other}.${sig}`)).toBeNull();
    expect(verifyUnsubscribe(key, `${v}.${body}.${sig}A`)).toBeNull();
    expect(verifyUnsubscribe(key, `${v}.${body}`)).toBeNull();
    expect(verifyUnsubscribe(key, 'x'.repeat(600))).toBeNull();
    const badChannel = Buffer.from(JSON.stringify(['sto_1', 'cus_1', 'fax'])).toString('base64url');
    const forged = signUnsubscribe(key, { storeId: 'sto_1', customerId: 'cus_1', channel: 'email' }).replace(body, badChannel);
    expect(verifyUnsubscribe(key, forged)).toBeNull();
  });

  it('masks addresses shown on the unsubscribe page', () => {
    expect(maskAddress('jane@example.com')).toBe('j***@example.com');
    expect(maskAddress('+14155550123')).toBe('+1******0123');
    expect(maskAddress(null)).toBe('');
  });

  it('checks a customer-subscriptions body whole, with pointers', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    const ok = readSubscriptions({ email: { email: 'a@example.com', subscriptions: { marketing: { subscriptionStatus: 'subscribed', triggerAutomations: true } } } }, now);
    expect(ok).toMatchObject({ ok: true, value: { email: { address: 'a@example.com', changes: [{ channel: 'email', kind: 'marketing', status: 'subscribed', triggerAutomations: true }] } } });
    const bad = readSubscriptions({ email: { email: 'a@example.com', subscriptions: {} }, sms: { phoneNumber: '+15550000000', subscriptions: { marketing: { subscriptionStatus: 'confirmed', updatedAt: '2026-07-01T00:00:00Z' } } } }, now);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors.map((e) => e.pointer)).toEqual(['/email/subscriptions', '/sms/subscriptions/marketing/updatedAt']);
    const none = readSubscriptions({}, now);
    expect(!none.ok && none.errors).toEqual([{ pointer: '', detail: 'give email, sms or both' }]);
  });
});
