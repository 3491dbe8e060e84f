import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { quotePlus, seedBulk, seedEveryState, type StateReturn } from '../support/clients.js';
import { seedReturn } from '../support/compat.js';

/**
 * Replay of Gladly's Redo Returns app (gladly/app-platform-examples, redo_returns/):
 * data/pull/returns/request_url.gtpl sends one `GET
 * /v2.2/stores/{storeId}/returns?email={{urlquery .}}` per email address of
 * the customer, with authentication/headers/Authorization.gtpl's `Bearer`
 * token; data/pull/returns/response_transformation.gtpl stops on any status
 * but 200, else maps `rawData.returns` field by field into
 * data/data_schema.graphql's `RedoReturn`, whose non-null fields must be there.
 */

type Rec = Record<string, any>;

const app = useTestApp();
const account = useTestAccount(app, 'Gladly');

/** One pull: the request per email, and the stop or the transformed returns. */
async function pull(emailAddresses: string[]): Promise<{ stopped?: string; returns: Rec[] }> {
  const returns: Rec[] = [];
  for (const email of emailAddresses) {
    const res = await app.request(`/v2.2/stores/${account.storeId}/returns?email=${quotePlus(email)}`, { headers: { Authorization: `Bearer ${account.apiSecret}` } });
    const raw = (await res.json()) as Rec;
    if (res.status !== 200) return { stopped: raw.message ? `Redo API error: ${String(raw.message)}` : `Redo API returned status code ${res.status}`, returns };
    returns.push(...(raw.returns as Rec[]).map(transform));
  }
  return { returns };
}

const address = (a: Rec | undefined) => (a ? { line1: a.line1 ?? null, line2: a.line2 ?? null, city: a.city ?? null, state: a.state ?? null, postalCode: a.postalCode ?? null, country: a.country ?? null } : null);
const money = (m: Rec | undefined) => (m ? { amount: m.amount ?? null, currency: m.currency ?? null } : null);
const total = (t: Rec | undefined) => (t ? { amount: money(t.amount) } : null);
const named = (p: Rec | undefined) => (p ? { name: p.name ?? null, externalId: p.externalId ?? null } : null);
const shipment = (s: Rec) => ({ carrier: s.carrier ?? null, postageLabel: s.postageLabel ?? null, status: s.status ?? null, tracker: s.tracker ?? null, trackingUrl: s.trackingUrl ?? null });

/** The response transformation, field by field (what it does not read is dropped). */
function transform(r: Rec): Rec {
  return {
    id: r.id ?? null,
    createdAt: r.createdAt ?? null,
    updatedAt: r.updatedAt ?? null,
    status: r.status ?? null,
    type: r.type ?? null,
    source: r.source
      ? { name: r.source.name ? { given: r.source.name.given ?? null, surname: r.source.name.surname ?? null } : null, emailAddress: r.source.emailAddress ?? null, phoneNumber: r.source.phoneNumber ?? null, mailingAddress: address(r.source.mailingAddress) }
      : null,
    destination: r.destination ? { mailingAddress: address(r.destination.mailingAddress), phoneNumber: r.destination.phoneNumber ?? null } : null,
    order: r.order ? { id: r.order.id ?? null } : null,
    items: (r.items ?? []).map((i: Rec) => ({
      id: i.id ?? null,
      orderItem: i.orderItem ? { id: i.orderItem.id ?? null, line_item_id: i.orderItem.line_item_id ?? null } : null,
      quantity: i.quantity || 0,
      reason: i.reason ?? null,
      reasonCodes: i.reasonCodes || [],
      reasons: i.reasons || [],
      refund: i.refund ? { amount: money(i.refund.amount), type: i.refund.type ?? null } : null,
      sku: i.sku ?? null,
      status: i.status ?? null,
      exchangeItem: i.exchangeItem ? { product: named(i.exchangeItem.product), quantity: i.exchangeItem.quantity || 0, variant: named(i.exchangeItem.variant) } : null,
      assessments: (i.assessments ?? []).map((a: Rec) => ({ assignedUser: a.assignedUser ?? null, responses: a.responses ?? [] })),
      multipleChoiceQuestions: (i.multipleChoiceQuestions ?? []).map((q: Rec) => ({ question: q.question ?? null, answer: q.answer ?? null })),
    })),
    giftCards: (r.giftCards ?? []).map((g: Rec) => ({ amount: money(g.amount), code: g.code ?? null, externalId: g.externalId ?? null })),
    compensationMethods: r.compensationMethods || [],
    exchange: r.exchange
      ? {
          items: (r.exchange.items ?? []).map((x: Rec) => ({ id: x.id ?? null, quantity: x.quantity || 0, variant: x.variant ? { name: x.variant.name ?? null, externalId: x.variant.externalId ?? null, sku: x.variant.sku ?? null } : null, product: named(x.product) })),
          provision: r.exchange.provision ?? null,
          itemCount: r.exchange.itemCount || 0,
        }
      : null,
    externalOrderIds: r.externalOrderIds || [],
    notes: (r.notes ?? []).map((n: Rec) => ({ message: n.message ?? null, image: n.image ?? null })),
    shipment: r.shipment ? shipment(r.shipment) : null,
    shipments: (r.shipments ?? []).map(shipment),
    totals: r.totals ? { charge: total(r.totals.charge), exchange: total(r.totals.exchange), refund: total(r.totals.refund), storeCredit: total(r.totals.storeCredit) } : null,
  };
}

/** The data schema's non-null fields (`!`) that are null in a transformed return. */
function schemaViolations(r: Rec): string[] {
  const missing: string[] = [];
  const need = (value: unknown, path: string) => {
    if (value === null || value === undefined) missing.push(path);
  };
  const needAddress = (a: Rec | null, path: string) => a && ['line1', 'city', 'state', 'postalCode', 'country'].forEach((k) => need(a[k], `${path}.${k}`));
  const needMoney = (m: Rec | null, path: string) => m && ['amount', 'currency'].forEach((k) => need(m[k], `${path}.${k}`));
  need(r.id, 'id');
  need(r.status, 'status');
  if (Number.isNaN(Date.parse(r.createdAt))) missing.push('createdAt');
  if (r.source?.name) ['given', 'surname'].forEach((k) => need(r.source.name[k], `source.name.${k}`));
  needAddress(r.source?.mailingAddress ?? null, 'source.mailingAddress');
  needAddress(r.destination?.mailingAddress ?? null, 'destination.mailingAddress');
  r.items.forEach((i: Rec, n: number) => {
    need(i.id, `items.${n}.id`);
    needMoney(i.refund?.amount ?? null, `items.${n}.refund.amount`);
    if (i.exchangeItem) ['product', 'variant'].forEach((k) => i.exchangeItem[k] && need(i.exchangeItem[k].name, `items.${n}.exchangeItem.${k}.name`));
  });
  r.exchange?.items.forEach((x: Rec, n: number) => {
    if (x.variant) need(x.variant.name, `exchange.items.${n}.variant.name`);
    if (x.product) need(x.product.name, `exchange.items.${n}.product.name`);
  });
  for (const k of ['charge', 'exchange', 'refund', 'storeCredit']) needMoney(r.totals?.[k]?.amount ?? null, `totals.${k}.amount`);
  return missing;
}

let made: StateReturn[];
let plus: string;
beforeAll(async () => {
  made = await seedEveryState(app, account);
  // Another customer's returns, and an address with a plus sign.
  await seedBulk(app, account, 3);
  plus = (await seedReturn(app, account, { order: { customer: { email: 'ada+returns@example.com', firstName: 'Ada', lastName: 'Lovelace' } } })).id;
});

describe('Gladly Redo Returns app, unchanged', () => {
  it('pulls the returns of every email of the customer (any case, plus signs escaped), in every status, fitting its data schema', async () => {
    const { stopped, returns } = await pull(['ADA@Example.com', 'ada+returns@example.com', 'nobody@example.com']);
    expect(stopped).toBeUndefined();
    expect(returns.map((r) => r.id).sort()).toEqual([...made.map((r) => r.id), plus].sort());
    expect(new Set(returns.map((r) => r.status))).toEqual(new Set(made.map((r) => r.status)));
    for (const r of returns) expect(schemaViolations(r), r.id).toEqual([]);
    const exchange = returns.find((r) => r.id === made.find((m) => m.exchanged)!.id)!;
    expect(exchange.exchange.items).toHaveLength(1);
    expect(exchange.source).toMatchObject({ emailAddress: 'ada@example.com', name: { given: 'Ada', surname: 'Lovelace' } });
  });

  it('stops with the status when the request is refused (an email that is none is a known parameter with a bad value)', async () => {
    expect(await pull(['not an email'])).toEqual({ stopped: 'Redo API returned status code 400', returns: [] });
  });
});
