import { SingleBar, Presets } from 'cli-progress';

/**
 * Fills a store with realistic demo data through the service's own API, the
 * way an integration would: orders and returns over REST `/v2.2`, custom
 * events over the bulk endpoint, inventory and the review workflow over the
 * GraphQL mutations internal tools use. Every step first reads what is
 * already there and only adds what is missing (orders are upserted by
 * external id, returns found by their order, stock set to a target, events
 * deduplicated by `uniqueId`), so an interrupted run can be resumed and a
 * second run changes nothing.
 */

export const SEED_DEMO_USAGE = `  seed-demo --store ID [--orders N --returns N --events N --inventory N] [--url URL]
      fills a store with demo data through the API of the service at URL (default http://127.0.0.1:$PORT),
      or of one started in this process when none answers there; safe to run again`;

export interface SeedCounts {
  orders: number;
  returns: number;
  events: number;
  /** Products with stock (spread over the locations). */
  inventory: number;
}

export const DEFAULT_COUNTS: SeedCounts = { orders: 40, returns: 30, events: 300, inventory: 24 };

/** Progress of one phase: a bar on a terminal, a few plain lines otherwise. */
export interface Progress {
  phase(name: string, total: number): { tick(): void; done(): void };
}

export function terminalProgress(stream: NodeJS.WriteStream | { write(text: string): unknown; isTTY?: boolean } = process.stderr): Progress {
  if (stream.isTTY) {
    return {
      phase(name, total) {
        const bar = new SingleBar({ format: `${name.padEnd(18)} {bar} {value}/{total}`, stream: stream as NodeJS.WriteStream, hideCursor: true, clearOnComplete: false }, Presets.shades_classic);
        bar.start(total, 0);
        return { tick: () => bar.increment(), done: () => bar.stop() };
      },
    };
  }
  return {
    phase(name, total) {
      let done = 0;
      let shown = -1;
      const show = () => {
        const tenth = total ? Math.floor((done / total) * 10) : 10;
        if (tenth !== shown) stream.write(`seed-demo: ${name} ${done}/${total}\n`);
        shown = tenth;
      };
      show();
      return {
        tick: () => {
          done++;
          show();
        },
        done: () => {
          if (done < total) stream.write(`seed-demo: ${name} ${done}/${total}\n`);
        },
      };
    },
  };
}

export interface SeedOptions {
  /** The service, e.g. http://localhost:4000. */
  baseUrl: string;
  /** The admin token (REST and GraphQL accept it for every store). */
  token: string;
  storeId: string;
  counts: SeedCounts;
  progress: Progress;
}

export interface SeedSummary {
  storeId: string;
  locations: number;
  products: number;
  orders: number;
  returns: Record<string, number>;
  inboundShipments: number;
  customers: number;
  events: number;
}

// Deterministic "random" choices: the same run always makes the same data.
function pick<T>(list: readonly T[], i: number, salt = 0): T {
  return list[(i * 7919 + salt * 104729) % list.length]!;
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Radia', 'Tim', 'Frances', 'Niklaus', 'Hedy', 'John', 'Katherine', 'Linus'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Hamilton', 'Thompson', 'Perlman', 'Berners-Lee', 'Allen', 'Wirth', 'Lamarr', 'Backus', 'Johnson', 'Torvalds'];
const CITIES = [
  { city: 'Portland', state: 'OR', postalCode: '97201' },
  { city: 'Austin', state: 'TX', postalCode: '78701' },
  { city: 'Chicago', state: 'IL', postalCode: '60601' },
  { city: 'Denver', state: 'CO', postalCode: '80202' },
  { city: 'Boston', state: 'MA', postalCode: '02108' },
];
const PRODUCTS = [
  { title: 'Merino Tee', price: '38.00', variants: ['S', 'M', 'L'] },
  { title: 'Canvas Tote', price: '24.00', variants: [null] },
  { title: 'Trail Runner', price: '129.00', variants: ['40', '42', '44'] },
  { title: 'Rain Shell', price: '189.00', variants: ['M', 'L'] },
  { title: 'Wool Beanie', price: '29.00', variants: [null] },
  { title: 'Chino Short', price: '58.00', variants: ['30', '32', '34'] },
  { title: 'Linen Shirt', price: '74.00', variants: ['S', 'M', 'L'] },
  { title: 'Daypack 20L', price: '96.00', variants: [null] },
] as const;
const REASONS = [
  ['Too small', 'size_too_small'],
  ['Too large', 'size_too_large'],
  ['Arrived damaged', 'damaged'],
  ['Not as described', 'not_as_described'],
  ['Changed my mind', 'changed_mind'],
] as const;
const EVENT_NAMES = ['Viewed Product', 'Added to Cart', 'Started Checkout', 'Placed Order', 'Opened Email', 'Clicked Email'];
const LOCATIONS = ['Main warehouse', 'East coast DC', 'Returns'];
/** The statuses the returns cycle through, so the store shows every one of them. */
const RETURN_PLAN = ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged', 'complete', 'rejected', 'deleted', 'pre_shipment'] as const;
/** How each status is reached from `open` (pre_shipment is how a return starts when approval is required). */
const STEPS: Record<(typeof RETURN_PLAN)[number], string[]> = {
  pre_shipment: [],
  open: [],
  in_transit: ['ship:in_transit'],
  delivered: ['ship:in_transit', 'ship:delivered'],
  needs_review: ['ship:in_transit', 'ship:delivered', 'needs_review'],
  in_review: ['ship:in_transit', 'ship:delivered', 'needs_review', 'in_review'],
  flagged: ['flagged'],
  complete: ['ship:in_transit', 'ship:delivered', 'complete'],
  rejected: ['rejected'],
  deleted: ['deleted'],
};
const ORDER_OF_STATUS = ['pre_shipment', 'open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged', 'complete', 'rejected', 'deleted'];

interface Sku {
  sku: string;
  title: string;
  variantTitle: string | null;
  price: string;
}

function catalogue(count: number): Sku[] {
  const all: Sku[] = PRODUCTS.flatMap((p, i) =>
    p.variants.map((v) => ({ sku: `DEMO-${String(i + 1).padStart(2, '0')}${v ? `-${v}` : ''}`, title: p.title, variantTitle: v, price: p.price })),
  );
  return Array.from({ length: Math.max(count, 1) }, (_, i) => (i < all.length ? all[i]! : { ...all[i % all.length]!, sku: `${all[i % all.length]!.sku}-${Math.floor(i / all.length)}` }));
}

class Api {
  constructor(private readonly options: SeedOptions) {}

  async rest<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T; next: string | null }> {
    const res = await fetch(`${this.options.baseUrl}/v2.2${path}`, {
      method,
      headers: { authorization: `Bearer ${this.options.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const parsed = (text ? JSON.parse(text) : undefined) as T;
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${(parsed as { detail?: string } | undefined)?.detail ?? text}`);
    return { status: res.status, body: parsed, next: res.headers.get('x-page-next') };
  }

  async graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    const res = await fetch(`${this.options.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const result = (await res.json()) as { data?: T; errors?: { message: string }[] };
    if (result.errors?.length || !result.data) throw new Error(`GraphQL: ${result.errors?.map((e) => e.message).join('; ') ?? res.status}`);
    return result.data;
  }

  /** Every row of a REST list, page after page. */
  async all<T>(path: string, key: string): Promise<T[]> {
    const rows: T[] = [];
    let cursor: string | null = null;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const page: { body: Record<string, T[]>; next: string | null } = await this.rest<Record<string, T[]>>(
        'GET',
        `${path}${sep}page-size=500${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`,
      );
      rows.push(...page.body[key]!);
      cursor = page.next;
    } while (cursor);
    return rows;
  }
}

interface RestReturn {
  id: string;
  status: string;
  order: { name: string };
}

/** Fills the store; returns what it holds afterwards. */
export async function seedDemo(options: SeedOptions): Promise<SeedSummary> {
  const api = new Api(options);
  const { storeId, counts, progress } = options;
  const store = `/stores/${storeId}`;
  // Fails early with the service's own answer when the store is unknown.
  await api.rest('GET', `${store}/returns?page-size=1`);

  // Locations and products.
  let phase = progress.phase('locations', LOCATIONS.length);
  const { locations } = await api.graphql<{ locations: { id: string; name: string }[] }>('query($s: ID!) { locations(storeId: $s) { id name } }', { s: storeId });
  const locationIds: Record<string, string> = {};
  for (const name of LOCATIONS) {
    locationIds[name] =
      locations.find((l) => l.name === name)?.id ??
      (await api.graphql<{ createLocation: { id: string } }>('mutation($s: ID!, $i: CreateLocationInput!) { createLocation(storeId: $s, input: $i) { id } }', { s: storeId, i: { name, externalId: `demo-${name.toLowerCase().replace(/\W+/g, '-')}` } }))
        .createLocation.id;
    phase.tick();
  }
  phase.done();
  const { storeSettings } = await api.graphql<{ storeSettings: { returnLocationId: string | null; requireReturnApproval: boolean } }>(
    'query($s: ID!) { storeSettings(storeId: $s) { returnLocationId requireReturnApproval } }',
    { s: storeId },
  );
  if (!storeSettings.returnLocationId) {
    await api.graphql('mutation($s: ID!, $i: StoreSettingsInput!) { updateStoreSettings(storeId: $s, input: $i) { storeId } }', { s: storeId, i: { returnLocationId: locationIds.Returns } });
  }

  const skus = catalogue(counts.inventory);
  phase = progress.phase('products & stock', skus.length);
  const productIds: Record<string, string> = {};
  for (const [i, item] of skus.entries()) {
    const { upsertProduct } = await api.graphql<{ upsertProduct: { id: string } }>('mutation($s: ID!, $i: UpsertProductInput!) { upsertProduct(storeId: $s, input: $i) { id } }', {
      s: storeId,
      i: { sku: item.sku, title: item.title, variantTitle: item.variantTitle },
    });
    productIds[item.sku] = upsertProduct.id;
    // Opening stock per location, only where the item has none yet: a second run adds nothing, and
    // never undoes what receipts or returns added since.
    for (const [j, location] of ['Main warehouse', 'East coast DC'].entries()) {
      const listed = await api.rest<{ inventory_items: { quantity: number }[] }>(
        'GET',
        `${store}/inventory-items?sku=${encodeURIComponent(item.sku)}&location_id=${locationIds[location]}&kind=PRODUCT`,
      );
      if (listed.body.inventory_items.length) continue;
      await api.graphql('mutation($s: ID!, $i: AdjustInventoryInput!) { adjustInventory(storeId: $s, input: $i) { id } }', {
        s: storeId,
        i: { sku: item.sku, locationId: locationIds[location], kind: 'PRODUCT', delta: ((i * 13 + j * 29) % 60) + (j === 0 ? 20 : 1) },
      });
    }
    phase.tick();
  }
  phase.done();

  // Inbound shipments in every status, found again by their shipment id.
  const shipmentCount = Math.max(4, Math.ceil(counts.inventory / 4));
  phase = progress.phase('inbound shipments', shipmentCount);
  const existing = new Map((await api.all<{ id: string; shipment_id: string | null; status: string }>(`${store}/inbound-shipments`, 'inbound_shipments')).map((s) => [s.shipment_id, s]));
  const SHIPMENT_STATUSES = ['PENDING', 'IN_TRANSIT', 'PARTIALLY_RECEIVED', 'RECEIVED'];
  for (let i = 0; i < shipmentCount; i++) {
    const shipmentId = `DEMO-ASN-${String(i + 1).padStart(4, '0')}`;
    const target = SHIPMENT_STATUSES[i % 4]!;
    let shipment = existing.get(shipmentId);
    let lines: { id: string; quantity: number }[] = [];
    if (!shipment) {
      const items = [0, 1, 2].map((k) => ({ productId: productIds[pick(skus, i + k * 3).sku]!, quantity: 12 + ((i + k) % 5) * 6 }));
      const unique = [...new Map(items.map((it) => [it.productId, it])).values()];
      const created = await api.graphql<{ createInboundShipment: { id: string; status: string; items: { id: string; quantity: number }[] } }>(
        'mutation($s: ID!, $i: CreateInboundShipmentInput!) { createInboundShipment(storeId: $s, input: $i) { id status items { id quantity } } }',
        {
          s: storeId,
          i: {
            locationId: locationIds[i % 2 ? 'East coast DC' : 'Main warehouse'],
            shipmentId,
            carrier: pick(['UPS', 'FedEx', 'DHL', 'Maersk'], i),
            trackingNumber: `1Z${String(100000 + i * 7331).padStart(10, '0')}`,
            estimatedArrivalDate: new Date(Date.UTC(2026, 11, 1 + (i % 27))).toISOString().slice(0, 10),
            freightType: pick(['parcel', 'LTL', 'FCL'], i),
            paymentTerms: 'NET30',
            freightCost: { amount: `${120 + i * 15}.50`, currency: 'USD' },
            dutyCost: { amount: `${20 + i * 3}.00`, currency: 'USD' },
            items: unique,
          },
        },
      );
      shipment = { id: created.createInboundShipment.id, shipment_id: shipmentId, status: created.createInboundShipment.status };
      lines = created.createInboundShipment.items;
    }
    const rank = (s: string) => SHIPMENT_STATUSES.indexOf(s);
    if (rank(shipment.status) < rank('IN_TRANSIT') && rank(target) >= rank('IN_TRANSIT')) {
      await api.graphql('mutation($id: ID!) { markInboundShipmentInTransit(id: $id) { id } }', { id: shipment.id });
    }
    if (rank(shipment.status) < rank('PARTIALLY_RECEIVED') && rank(target) >= rank('PARTIALLY_RECEIVED')) {
      if (!lines.length) {
        const { inboundShipment } = await api.rest<{ inbound_shipment: { items: { id: string; quantity: number }[] } }>('GET', `${store}/inbound-shipments/${shipment.id}`).then((r) => ({
          inboundShipment: r.body.inbound_shipment,
        }));
        lines = inboundShipment.items;
      }
      const receipt =
        target === 'RECEIVED'
          ? lines.map((l, k) => ({ itemId: l.id, receivedQuantity: l.quantity - (k === 0 ? 2 : 0), damagedQuantity: k === 0 ? 1 : 0, missingQuantity: k === 0 ? 1 : 0 }))
          : lines.slice(0, 1).map((l) => ({ itemId: l.id, receivedQuantity: Math.floor(l.quantity / 2) }));
      await api.graphql('mutation($id: ID!, $items: [ReceiveInboundShipmentItemInput!]!) { receiveInboundShipment(id: $id, items: $items) { id } }', { id: shipment.id, items: receipt });
    }
    phase.tick();
  }
  phase.done();

  // Customers and orders (upserted by external id: a second run rewrites the same orders).
  const customerCount = Math.max(8, Math.ceil(counts.orders / 2));
  const customers = Array.from({ length: customerCount }, (_, i) => {
    const first = pick(FIRST, i);
    const last = pick(LAST, i, 1);
    return { email: `${first}.${last}.${i + 1}@example.com`.toLowerCase(), firstName: first, lastName: last, phoneNumber: `+1415555${String(1000 + i).slice(-4)}`, place: pick(CITIES, i) };
  });
  phase = progress.phase('orders', counts.orders);
  const orders: { externalId: string; name: string; lines: { id: string; quantity: number }[] }[] = [];
  for (let i = 0; i < counts.orders; i++) {
    const customer = customers[i % customerCount]!;
    const lineCount = 1 + (i % 3);
    const lines = Array.from({ length: lineCount }, (_, k) => {
      const item = pick(skus, i + k * 5, k);
      return { item, id: `demo-${1001 + i}-${k + 1}`, quantity: 1 + ((i + k) % 3) };
    });
    const uniqueLines = [...new Map(lines.map((l) => [l.item.sku, l])).values()];
    const order = {
      id: `demo-${1001 + i}`,
      name: `#D${1001 + i}`,
      currency: 'USD',
      createdAt: new Date(Date.UTC(2026, 9, 1) + i * 86_400_000 * 0.9).toISOString(),
      customer: { email: customer.email, firstName: customer.firstName, lastName: customer.lastName, phoneNumber: customer.phoneNumber },
      lineItems: uniqueLines.map((l) => ({
        id: l.id,
        productId: productIds[l.item.sku],
        sku: l.item.sku,
        title: l.item.title,
        variantTitle: l.item.variantTitle,
        quantity: l.quantity,
        price: l.item.price,
        tax: (Number(l.item.price) * l.quantity * 0.08).toFixed(2),
        discount: i % 4 === 0 ? (Number(l.item.price) * l.quantity * 0.1).toFixed(2) : '0.00',
      })),
      shippingCost: i % 3 === 0 ? '0.00' : '7.95',
      shippingAddress: { line1: `${100 + i} Market St`, line2: null, city: customer.place.city, state: customer.place.state, postalCode: customer.place.postalCode, country: 'US' },
      fulfillmentLocationId: locationIds[i % 2 ? 'East coast DC' : 'Main warehouse'],
    };
    await api.rest('POST', `${store}/custom/orders`, order);
    orders.push({ externalId: order.id, name: order.name, lines: uniqueLines.map((l) => ({ id: l.id, quantity: l.quantity })) });
    phase.tick();
  }
  phase.done();

  // Returns in every status: each found again by its order, else created; then moved along to its status.
  const returnCount = Math.min(counts.returns, counts.orders);
  phase = progress.phase('returns', returnCount);
  const byOrder = new Map<string, RestReturn>();
  for (const r of await api.all<RestReturn>(`${store}/returns`, 'returns')) if (r.status !== 'deleted' || !byOrder.has(r.order.name)) byOrder.set(r.order.name, r);
  const statuses: Record<string, number> = {};
  let approval = storeSettings.requireReturnApproval;
  const setApproval = async (value: boolean) => {
    if (value === approval) return;
    await api.graphql('mutation($s: ID!, $i: StoreSettingsInput!) { updateStoreSettings(storeId: $s, input: $i) { storeId } }', { s: storeId, i: { requireReturnApproval: value } });
    approval = value;
  };
  for (let i = 0; i < returnCount; i++) {
    const order = orders[i]!;
    const target = RETURN_PLAN[i % RETURN_PLAN.length]!;
    let ret = byOrder.get(order.name);
    if (!ret) {
      // A return starts in pre_shipment only while the store requires approval: switched on for those alone.
      await setApproval(target === 'pre_shipment');
      const [reason, reasonCode] = pick(REASONS, i);
      const created = await api.rest<{ return: RestReturn }>(
        'POST',
        `${store}/returns`,
        {
          data: {
            provider: 'custom',
            externalOrderId: order.externalId,
            items: order.lines.slice(0, 1 + (i % 2)).map((l, k) => ({ lineItemId: l.id, quantity: l.quantity, reason, reasonCode, compensation: pick(['refund', 'refund', 'store_credit', 'exchange'], i + k) })),
            notes: i % 3 === 0 ? 'Customer asked for a prepaid label.' : null,
          },
          options: { createExternalRMAs: false },
        },
        { 'Idempotency-Key': `demo-return-${order.externalId}` },
      );
      ret = created.body.return;
      if (i % 2 === 0) await api.rest('POST', `/returns/${ret.id}/comments`, { comment: { message: pick(['Label emailed to the customer.', 'Customer called about the refund.', 'Checked photos: the seam is torn.'], i) } });
    }
    if (ret.status !== target && ret.status !== 'deleted') {
      for (const step of STEPS[target].slice(stepsDone(ret.status, target))) {
        if (step.startsWith('ship:')) {
          await api.graphql('mutation($id: ID!, $i: ShipmentEventInput!) { recordReturnShipmentEvent(returnId: $id, input: $i) { id } }', {
            id: ret.id,
            i: { status: step.slice(5), carrier: pick(['UPS', 'USPS', 'FedEx'], i), trackingNumber: `9400${String(110000 + i * 977).padStart(12, '0')}` },
          });
        } else {
          await api.graphql('mutation($id: ID!, $s: ReturnStatus!) { updateReturnStatus(returnId: $id, status: $s) { id } }', { id: ret.id, s: step });
        }
      }
    }
    statuses[target] = (statuses[target] ?? 0) + 1;
    phase.tick();
  }
  await setApproval(storeSettings.requireReturnApproval);
  phase.done();

  // Event histories: bulk requests of up to 100, each event with a uniqueId the service deduplicates.
  phase = progress.phase('custom events', counts.events);
  for (let start = 0; start < counts.events; start += 100) {
    const events = Array.from({ length: Math.min(100, counts.events - start) }, (_, k) => {
      const n = start + k;
      const customer = customers[n % customerCount]!;
      const name = pick(EVENT_NAMES, n);
      const item = pick(skus, n, 2);
      return {
        eventName: name,
        uniqueId: `demo-event-${n + 1}`,
        eventTimestamp: new Date(Date.UTC(2026, 9, 1) + n * 3_600_000 * 5).toISOString(),
        customer: {
          email: customer.email,
          firstName: customer.firstName,
          lastName: customer.lastName,
          location: { city: customer.place.city, stateCode: customer.place.state, postalCode: customer.place.postalCode, countryCode: 'US' },
          customFields: { tier: pick(['bronze', 'silver', 'gold'], n % customerCount), newsletter: n % customerCount % 2 === 0 },
        },
        data: { sku: item.sku, product: item.title, price: Number(item.price), ...(name === 'Placed Order' ? { items: 1 + (n % 3) } : {}) },
        ...(name === 'Placed Order' ? { value: Number(item.price), valueCurrency: 'USD' } : {}),
      };
    });
    const { body } = await api.rest<{ rejected: number; results: { error?: { detail: string } }[] }>('POST', `${store}/events/bulk`, { events });
    if (body.rejected) throw new Error(`custom events refused: ${JSON.stringify(body.results.find((r) => r.error))}`);
    events.forEach(() => phase.tick());
  }
  phase.done();

  return {
    storeId,
    locations: LOCATIONS.length,
    products: skus.length,
    orders: counts.orders,
    returns: statuses,
    inboundShipments: shipmentCount,
    customers: Math.min(customerCount, counts.events),
    events: counts.events,
  };
}

/** How many steps towards `target` a return already in `current` has taken. */
function stepsDone(current: string, target: (typeof RETURN_PLAN)[number]): number {
  const steps = STEPS[target];
  const reached = steps.findIndex((step) => (step.startsWith('ship:') ? step.slice(5) : step) === current);
  if (reached >= 0) return reached + 1;
  // pre_shipment is before every step (approval moves it to open).
  return ORDER_OF_STATUS.indexOf(current) <= 1 ? 0 : steps.length;
}
