import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { query } from '../support/database.js';
import { gqlOk } from '../support/flows.js';
import { contentEncoding, contentType, hostileValue, PROTOTYPE_KEYS, toJsonText } from './arbitraries.js';
import { FUZZ_RUNS, FUZZ_SEED, fuzzTimeout } from './harness.js';

/**
 * The routes customers and SMS providers reach without credentials: `GET`/`POST /u/{token}` and
 * `POST /sms/inbound/{storeId}`. Tokens made from a real one (its parts swapped, cut, flipped,
 * re-encoded, another customer's or store's claim under its signature), hostile path segments,
 * bodies of every shape and content type, wrong secrets: never a 5xx, never a change of consent,
 * and only the real token or the real secret is ever accepted.
 */
describe('fuzz: the unsubscribe link and the inbound SMS webhook', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Consent fuzz');

  const snapshot = async () =>
    JSON.stringify(await query(app.databaseUrl, 'select customer_id, channel, kind, status, changed_at from events.customer_consent order by 1, 2, 3'));

  it(
    'forged tokens and hostile requests change nothing and never fail',
    async () => {
      // A subscribed customer and a real token for them, as a marketing email would carry.
      const sub = await app.request(`/v2.2/stores/${acme.storeId}/customer-subscriptions`, {
        method: 'POST',
        token: acme.apiSecret,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: { email: 'fuzz@example.com', subscriptions: { marketing: { subscriptionStatus: 'subscribed' } } },
          sms: { phoneNumber: '+15550001234', subscriptions: { marketing: { subscriptionStatus: 'subscribed' } } },
        }),
      });
      expect(sub.status).toBe(200);
      const [customer] = await query<{ id: string }>(app.databaseUrl, 'select id from events.customer where store_id = $1', [acme.storeId]);
      const events = app.service.runtime.servicesOf((await import('../../subgraphs/events/index.js')).eventsSubgraph)!;
      const real = await events.consent.unsubscribeToken({ storeId: acme.storeId, customerId: customer!.id, channel: 'email' });
      const { rotateInboundSmsSecret } = await gqlOk<{ rotateInboundSmsSecret: { url: string } }>(app, 'mutation($s: ID!) { rotateInboundSmsSecret(storeId: $s) { url } }', { s: acme.storeId }, acme.apiSecret);
      const secret = new URL(rotateInboundSmsSecret.url).searchParams.get('secret')!;
      const before = await snapshot();

      const [version, body, sig] = real.split('.') as [string, string, string];
      const claim = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString('base64url');
      const forgedToken = fc.oneof(
        fc.constantFrom(
          `${version}.${claim([acme.storeId, 'cus_other', 'email'])}.${sig}`,
          `${version}.${claim(['sto_other', customer!.id, 'email'])}.${sig}`,
          `${version}.${claim([acme.storeId, customer!.id, 'sms'])}.${sig}`,
          `${version}.${claim([acme.storeId, customer!.id, 'email', 'x'])}.${sig}`,
          `${version}.${body}`,
          `${body}.${sig}`,
          `u2.${body}.${sig}`,
          `${version}.${body}.${sig}.${sig}`,
          encodeURIComponent(`${version}.${body}.${sig}=`),
          ...PROTOTYPE_KEYS,
        ),
        fc.tuple(fc.nat({ max: real.length - 1 }), fc.constantFrom('A', '_', '-', '.', '%00', '%FF', '%2F', 'é')).map(([i, c]) => {
          const s = `${real.slice(0, i)}${c}${real.slice(i + 1)}`;
          return s === real ? `${s}A` : s;
        }),
        fc.string({ maxLength: 600 }).map((s) => encodeURIComponent(s) || 'x'),
        fc.constantFrom('%00', '%FF', '%E0%A4%A', '%', 'x'.repeat(5000), '%ED%A0%80'),
      );
      const formBody = fc.oneof(
        fc.constantFrom('List-Unsubscribe=One-Click', 'confirm=yes', '', 'List-Unsubscribe=One-Click&List-Unsubscribe=One-Click', '%', '__proto__[x]=1'),
        fc.string({ maxLength: 300 }),
        hostileValue.map((v) => toJsonText(v)),
      );
      const inboundBody = fc.oneof(
        fc.record({ From: fc.oneof(fc.constant('+15550001234'), fc.string({ maxLength: 40 })), Body: fc.oneof(fc.constantFrom('STOP', 'START', 'stop ', ''), fc.string({ maxLength: 200 })) }).map((r) => new URLSearchParams(r).toString()),
        hostileValue.map((v) => toJsonText(v)),
        fc.string({ maxLength: 300 }),
      );
      const request = fc.oneof(
        fc.record({ kind: fc.constant('get' as const), token: forgedToken }),
        fc.record({ kind: fc.constant('post' as const), token: forgedToken, body: formBody, type: contentType, encoding: contentEncoding }),
        fc.record({
          kind: fc.constant('sms' as const),
          store: fc.constantFrom(acme.storeId, 'sto_other', '%00', '..', 'x'.repeat(300), ...PROTOTYPE_KEYS),
          secret: fc.oneof(fc.constantFrom('', `${secret}x`, secret.slice(0, -1), secret.toUpperCase(), '%00'), fc.string({ maxLength: 100 }).map(encodeURIComponent)),
          body: inboundBody,
          type: contentType,
          encoding: contentEncoding,
        }),
      );

      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          let res: Response;
          if (r.kind === 'get') res = await fetch(`${app.baseUrl}/u/${r.token}`);
          else if (r.kind === 'post') {
            res = await fetch(`${app.baseUrl}/u/${r.token}`, { method: 'POST', headers: { 'content-type': r.type, ...(r.encoding ? { 'content-encoding': r.encoding } : {}) }, body: r.body });
          } else {
            res = await fetch(`${app.baseUrl}/sms/inbound/${r.store}?secret=${r.secret}`, {
              method: 'POST',
              headers: { 'content-type': r.type, ...(r.encoding ? { 'content-encoding': r.encoding } : {}) },
              body: r.body,
            });
          }
          const text = await res.text();
          expect(res.status, `${r.kind} ${JSON.stringify(r).slice(0, 300)}: ${text.slice(0, 200)}`).toBeLessThan(500);
          expect(res.status).not.toBe(200);
          expect(text).not.toMatch(/at [\w.]+ \(|node_modules|stack/i);
        }),
        { numRuns: FUZZ_RUNS * 10, seed: FUZZ_SEED },
      );
      expect(await snapshot()).toBe(before);

      // The real token and the real secret still work.
      const ok = await fetch(`${app.baseUrl}/u/${real}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      expect(ok.status).toBe(200);
      const stop = await fetch(`${app.baseUrl}/sms/inbound/${acme.storeId}?secret=${encodeURIComponent(secret)}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'From=%2B15550001234&Body=STOP' });
      expect(stop.status).toBe(200);
      expect(await snapshot()).not.toBe(before);
    },
    fuzzTimeout(10),
  );
});
