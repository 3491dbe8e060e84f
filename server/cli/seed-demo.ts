import { createServer } from 'node:http';
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

export const SEED_DEMO_USAGE = `  seed-demo --store ID [--orders N --returns N --events N --inventory N --days N --end YYYY-MM-DD] [--url URL]
      fills a store with demo data through the API of the service at URL (default http://127.0.0.1:$PORT),
      or of one started in this process when none answers there, spread over the --days before --end
      (default: today) with a weekly and seasonal shape; safe to run again (with the same --end)`;

export interface SeedCounts {
  orders: number;
  returns: number;
  events: number;
  /** Products with stock (spread over the locations). */
  inventory: number;
  /** The span the orders, returns and events are spread over, ending at `SeedOptions.end`. */
  days: number;
}

export const DEFAULT_COUNTS: SeedCounts = { orders: 40, returns: 30, events: 300, inventory: 24, days: 90 };

/** Orders per return when only --returns is given: about a quarter of orders come back, as in apparel. */
export const ORDERS_PER_RETURN = 4;

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
  /** The end of the span (default: today's UTC midnight); the same end makes the same data. */
  end?: Date;
  /**
   * Dates the returns: the API dates a return when it is made, so the command sets each one's
   * creation time in the database afterwards (without it, returns keep the time they were made).
   */
  dateReturns?: (dates: { returnId: string; createdAt: Date }[]) => Promise<void>;
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
  days: number;
  /** The demo webhook subscription and its deliveries of this run (null when the service refused its callback). */
  webhook?: { subscriptionId: string; received: number; succeeded: number; failed: number; pending: number } | null;
}

// Deterministic "random" choices: the same run always makes the same data.
function pick<T>(list: readonly T[], i: number, salt = 0): T {
  return list[(i * 7919 + salt * 104729) % list.length]!;
}

/** A number in [0, 1) fixed by (i, salt): the same run draws the same ones. */
function unit(i: number, salt: number): number {
  let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

const DAY_MS = 86_400_000;

/**
 * When things happen: each day of the span weighted by its weekday (shoppers more at the weekend),
 * its season (a peak in late November and December, a lull in February) and slow growth, each hour by
 * a daily curve (evenings, in US time). `at(u, v)` turns two draws into an instant of the span.
 */
class Shape {
  private readonly cumulative: number[] = [];
  private readonly start: number;

  constructor(end: Date, days: number, weekday: readonly number[]) {
    this.start = end.getTime() - days * DAY_MS;
    let total = 0;
    for (let d = 0; d < days; d++) {
      const date = new Date(this.start + d * DAY_MS);
      const dayOfYear = (date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 1)) / DAY_MS;
      const season = 1 + 0.35 * Math.cos(((dayOfYear - 350) / 365) * 2 * Math.PI) + (dayOfYear >= 326 && dayOfYear <= 358 ? 0.6 : 0);
      total += weekday[date.getUTCDay()]! * season * (1 + (0.4 * d) / days);
      this.cumulative.push(total);
    }
  }

  at(u: number, v: number): Date {
    const target = u * this.cumulative[this.cumulative.length - 1]!;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    // Evenings in US time (UTC 23:00 - 04:00) busiest, nights quietest.
    const hour = (17 + Math.floor(Math.asin(2 * v - 1) * (12 / Math.PI) + 12 * v)) % 24;
    return new Date(this.start + lo * DAY_MS + hour * 3_600_000 + Math.floor(unit(lo, hour) * 3_600_000));
  }
}

/** Runs `work` for 0..count-1, `width` at a time (the service handles requests in parallel, the seeding waits on none alone). */
async function inParallel(count: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
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

/**
 * Fills the store; returns what it holds afterwards. A webhook subscription is made first (see
 * `seedWebhook`), so the orders and returns made after it are delivered to the command's receiver.
 */
export async function seedDemo(options: SeedOptions): Promise<SeedSummary> {
  const api = new Api(options);
  // Fails early with the service's own answer when the store is unknown.
  await api.rest('GET', `/stores/${options.storeId}/returns?page-size=1`);
  const hook = await seedWebhook(api, options.storeId, options.progress);
  try {
    const summary = await fillStore(api, options);
    if (hook) summary.webhook = await hook.settled();
    return summary;
  } finally {
    await hook?.close();
  }
}

/** The subscription seed-demo keeps, found again by this externalId (a second run updates it, adds none). */
const DEMO_WEBHOOK_EXTERNAL_ID = 'seed-demo-receiver';

/**
 * The webhook panel's data: a receiver on 127.0.0.1 that this command runs for as long as it runs
 * (answering 204 to every delivery), and the subscription to the store's returns and orders that
 * points at it, made before the orders and returns so their deliveries show as successes. The
 * service must allow the address (`WEBHOOK_ALLOWED_HOSTS` holding `127.0.0.1`: a callback on a
 * loopback address is refused otherwise, as for any subscriber); when it does not, the
 * subscription is left out and the command says why. After the command, nothing answers there:
 * deliveries of later changes fail until the subscription is pointed elsewhere (PUT).
 */
async function seedWebhook(api: Api, storeId: string, progress: Progress): Promise<{ settled(): Promise<NonNullable<SeedSummary['webhook']>>; close(): Promise<void> } | null> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const port = (server.address() as { port: number }).port;
  const since = new Date();
  const made = await api
    .rest<{ webhook: { id: string } }>('POST', `/stores/${storeId}/webhooks`, {
      webhook: { callback: { url: `http://127.0.0.1:${port}/seed-demo`, auth: null }, topics: ['return', 'order'], externalId: DEMO_WEBHOOK_EXTERNAL_ID },
    })
    .catch((err: unknown) => err as Error);
  if (made instanceof Error) {
    await close();
    // The body is fixed but for the callback: a 400 is the service refusing a loopback callback.
    if (!made.message.includes(`/webhooks: 400 `)) throw made;
    const phase = progress.phase('webhook subscription: left out, the service refuses http://127.0.0.1 callbacks (add 127.0.0.1 to its WEBHOOK_ALLOWED_HOSTS)', 1);
    phase.done();
    return null;
  }
  const subscriptionId = made.body.webhook.id;
  return {
    close,
    // Waits (up to a minute) for the deliveries owed to the receiver, so they are counted as delivered before it stops.
    async settled() {
      const window = { from: new Date(since.getTime() - 3_600_000).toISOString(), until: new Date(Date.now() + 3_600_000).toISOString(), interval: 'DAY' };
      let totals = { succeeded: 0, failed: 0, pending: 0 };
      for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((r) => setTimeout(r, 250))) {
        const { webhookStats } = await api.graphql<{ webhookStats: { subscriptions: { webhookId: string; measures: typeof totals }[] } }>(
          'query($s: ID!, $w: TimeWindowInput!) { webhookStats(storeId: $s, window: $w) { subscriptions { webhookId measures { succeeded failed pending } } } }',
          { s: storeId, w: window },
        );
        totals = webhookStats.subscriptions.find((x) => x.webhookId === subscriptionId)?.measures ?? totals;
        if (!totals.pending) break;
      }
      return { subscriptionId, received, ...totals };
    },
  };
}

async function fillStore(api: Api, options: SeedOptions): Promise<SeedSummary> {
  const { storeId, counts, progress } = options;
  const store = `/stores/${storeId}`;

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

  // Two flows, made before the orders, returns and events so those start runs and record messages
  // (sent when SMTP is configured): a thank-you after an order, and an email when a return is
  // rejected. Found again by name on a second run.
  await seedFlows(api, storeId);

  // Customers and orders (upserted by external id: a second run rewrites the same orders).
  const end = options.end ?? new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
  const orderShape = new Shape(end, counts.days, [1.25, 0.95, 0.9, 0.9, 0.95, 1.05, 1.2]);
  const customerCount = Math.max(8, Math.ceil(counts.orders / 2), Math.ceil(counts.events / 25));
  const customers = Array.from({ length: customerCount }, (_, i) => {
    const first = pick(FIRST, i);
    const last = pick(LAST, i, 1);
    return { email: `${first}.${last}.${i + 1}@example.com`.toLowerCase(), firstName: first, lastName: last, phoneNumber: `+1415${String(5550000 + i).slice(-7)}`, place: pick(CITIES, i) };
  });
  phase = progress.phase('orders', counts.orders);
  const orders: { externalId: string; name: string; createdAt: Date; lines: { id: string; quantity: number }[] }[] = [];
  await inParallel(counts.orders, 6, async (i) => {
    const customer = customers[i % customerCount]!;
    const lineCount = 1 + (i % 3);
    const lines = Array.from({ length: lineCount }, (_, k) => {
      const item = pick(skus, i + k * 5, k);
      return { item, id: `demo-${1001 + i}-${k + 1}`, quantity: 1 + ((i + k) % 3) };
    });
    const uniqueLines = [...new Map(lines.map((l) => [l.item.sku, l])).values()];
    const createdAt = orderShape.at(unit(i, 1), unit(i, 2));
    const order = {
      id: `demo-${1001 + i}`,
      name: `#D${1001 + i}`,
      currency: 'USD',
      createdAt: createdAt.toISOString(),
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
    orders[i] = { externalId: order.id, name: order.name, createdAt, lines: uniqueLines.map((l) => ({ id: l.id, quantity: l.quantity })) };
    phase.tick();
  });
  phase.done();

  // Returns: the first ten in every status, the rest as a store's returns look (most of the older
  // ones complete, the recent ones on their way); each found again by its order, else created; then
  // moved along to its status, and dated a few days to three weeks after its order. Only orders
  // whose return would fall before --end are returned, as in a real store, where the last weeks'
  // orders are still coming back: none is moved to the last day (which drew a spike and a return
  // rate far above one at the right edge of every chart).
  // A store with few orders for its returns (a small seed) takes the later orders too, each return
  // dated between its order and --end, spread, never piled on the last day.
  const latest = end.getTime() - 60_000;
  const usual = (j: number) => orders[j]!.createdAt.getTime() + (3 + unit(j, 3) * 18) * DAY_MS;
  const returnable = orders.map((_, j) => j).filter((j) => usual(j) < latest);
  const chosen = [...returnable, ...orders.map((_, j) => j).filter((j) => usual(j) >= latest)];
  const returnedAt = (j: number) => (usual(j) < latest ? usual(j) : orders[j]!.createdAt.getTime() + unit(j, 3) * Math.max(latest - orders[j]!.createdAt.getTime(), 0));
  const returnCount = Math.min(counts.returns, counts.orders);
  phase = progress.phase('returns', returnCount);
  const byOrder = new Map<string, RestReturn>();
  for (const r of await api.all<RestReturn>(`${store}/returns`, 'returns')) if (r.status !== 'deleted' || !byOrder.has(r.order.name)) byOrder.set(r.order.name, r);
  const statuses: Record<string, number> = {};
  const dates: { returnId: string; createdAt: Date }[] = [];
  let approval = storeSettings.requireReturnApproval;
  const setApproval = async (value: boolean) => {
    if (value === approval) return;
    await api.graphql('mutation($s: ID!, $i: StoreSettingsInput!) { updateStoreSettings(storeId: $s, input: $i) { storeId } }', { s: storeId, i: { requireReturnApproval: value } });
    approval = value;
  };
  const makeReturn = async (i: number) => {
    const order = orders[chosen[i]!]!;
    const createdAt = new Date(returnedAt(chosen[i]!));
    const target = i < RETURN_PLAN.length ? RETURN_PLAN[i]! : statusByAge(end.getTime() - createdAt.getTime(), unit(i, 4));
    let ret = byOrder.get(order.name);
    if (!ret) {
      // A return starts in pre_shipment only while the store requires approval: switched on for those alone (the first ten, one at a time).
      if (i < RETURN_PLAN.length) await setApproval(target === 'pre_shipment');
      const [reason, reasonCode] = i < RETURN_PLAN.length ? pick(REASONS, i) : REASONS[Math.floor(unit(i, 5) ** 1.6 * REASONS.length)]!;
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
    dates.push({ returnId: ret.id, createdAt });
    statuses[target] = (statuses[target] ?? 0) + 1;
    phase.tick();
  };
  for (let i = 0; i < Math.min(returnCount, RETURN_PLAN.length); i++) await makeReturn(i);
  await setApproval(storeSettings.requireReturnApproval);
  await inParallel(Math.max(returnCount - RETURN_PLAN.length, 0), 6, (i) => makeReturn(i + RETURN_PLAN.length));
  await options.dateReturns?.(dates);
  phase.done();

  // Event histories: shopping sessions of a few events each, in bulk requests of up to 100, each
  // event with a uniqueId the service deduplicates.
  phase = progress.phase('custom events', counts.events);
  const sessions = eventSessions(new Shape(end, counts.days, [1.3, 0.9, 0.85, 0.9, 0.95, 1.1, 1.35]), counts.events, customerCount);
  await inParallel(Math.ceil(counts.events / 100), 4, async () => {
    const events = [];
    // next() by hand: a for-of loop left with break would close the generator the other senders share.
    while (events.length < 100) {
      const next = sessions.next();
      if (next.done) break;
      const { n, customerIndex, name, at } = next.value;
      const customer = customers[customerIndex]!;
      const item = pick(skus, n, 2);
      events.push({
        eventName: name,
        uniqueId: `demo-event-${n + 1}`,
        eventTimestamp: at.toISOString(),
        customer: {
          email: customer.email,
          firstName: customer.firstName,
          lastName: customer.lastName,
          location: { city: customer.place.city, stateCode: customer.place.state, postalCode: customer.place.postalCode, countryCode: 'US' },
          customFields: { tier: pick(['bronze', 'silver', 'gold'], customerIndex), newsletter: customerIndex % 2 === 0 },
        },
        data: { sku: item.sku, product: item.title, price: Number(item.price), ...(name === 'Placed Order' ? { items: 1 + (n % 3) } : {}) },
        ...(name === 'Placed Order' ? { value: Number(item.price), valueCurrency: 'USD' } : {}),
      });
    }
    const { body } = await api.rest<{ rejected: number; results: { error?: { detail: string } }[] }>('POST', `${store}/events/bulk`, { events });
    if (body.rejected) throw new Error(`custom events refused: ${JSON.stringify(body.results.find((r) => r.error))}`);
    events.forEach(() => phase.tick());
  });
  phase.done();

  return {
    storeId,
    locations: LOCATIONS.length,
    products: skus.length,
    orders: counts.orders,
    returns: statuses,
    inboundShipments: shipmentCount,
    customers: Math.min(customerCount, counts.events),
    days: counts.days,
    events: counts.events,
  };
}

/** Event names by how often shoppers do them. */
const EVENT_MIX: readonly [string, number][] = [
  ['Viewed Product', 0.55],
  ['Added to Cart', 0.18],
  ['Started Checkout', 0.09],
  ['Placed Order', 0.08],
  ['Opened Email', 0.07],
  ['Clicked Email', 0.03],
];

/** The events in order: sessions of one to seven events minutes apart; every customer has one, then a few are far busier than most. */
function* eventSessions(shape: Shape, count: number, customers: number): Generator<{ n: number; customerIndex: number; name: string; at: Date }> {
  let n = 0;
  for (let s = 0; n < count; s++) {
    const customerIndex = s < customers ? s : Math.floor(unit(s, 11) ** 2 * customers);
    const start = shape.at(unit(s, 12), unit(s, 13)).getTime();
    const size = 1 + Math.floor(unit(s, 14) ** 2 * 7);
    for (let j = 0; j < size && n < count; j++, n++) {
      let u = unit(n, 15);
      const name = EVENT_MIX.find(([, share]) => (u -= share) < 0)?.[0] ?? EVENT_MIX[0]![0];
      yield { n, customerIndex, name, at: new Date(start + j * Math.floor(60_000 + unit(n, 16) * 420_000)) };
    }
  }
}

/** Where a return stands, by its age: recent ones on their way, older ones mostly complete. */
function statusByAge(ageMs: number, u: number): (typeof RETURN_PLAN)[number] {
  const mix: [(typeof RETURN_PLAN)[number], number][] =
    ageMs < 14 * DAY_MS
      ? [['open', 0.3], ['in_transit', 0.3], ['delivered', 0.18], ['needs_review', 0.1], ['complete', 0.12]]
      : [['complete', 0.74], ['rejected', 0.08], ['deleted', 0.03], ['flagged', 0.02], ['needs_review', 0.03], ['in_review', 0.02], ['delivered', 0.04], ['in_transit', 0.02], ['open', 0.02]];
  for (const [status, share] of mix) if ((u -= share) < 0) return status;
  return mix[0]![0];
}

/** How many steps towards `target` a return already in `current` has taken. */
function stepsDone(current: string, target: (typeof RETURN_PLAN)[number]): number {
  const steps = STEPS[target];
  const reached = steps.findIndex((step) => (step.startsWith('ship:') ? step.slice(5) : step) === current);
  if (reached >= 0) return reached + 1;
  // pre_shipment is before every step (approval moves it to open).
  return ORDER_OF_STATUS.indexOf(current) <= 1 ? 0 : steps.length;
}

/** The demo's templates and flows, each made once (found by name). */
async function seedFlows(api: { graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> }, storeId: string): Promise<void> {
  const { flows } = await api.graphql<{ flows: { edges: { node: { name: string } }[] } }>('query($s: ID!) { flows(storeId: $s, first: 100) { edges { node { name } } } }', { s: storeId });
  const existing = new Set(flows.edges.map((e) => e.node.name));
  const template = async (input: Record<string, unknown>) =>
    (await api.graphql<{ createTemplate: { id: string } }>('mutation($s: ID!, $i: CreateTemplateInput!) { createTemplate(storeId: $s, input: $i) { id } }', { s: storeId, i: input })).createTemplate.id;
  const flow = async (input: Record<string, unknown>) => {
    await api.graphql('mutation($s: ID!, $i: FlowInput!) { createFlow(storeId: $s, input: $i) { id } }', { s: storeId, i: input });
  };
  if (!existing.has('Thank you for your order')) {
    const thanks = await template({ name: 'Thank you', channel: 'EMAIL', subject: 'Thank you, {{ customer.firstName }}', body: 'Your {{ event.data.product }} is on its way.' });
    await flow({ name: 'Thank you for your order', trigger: { eventName: 'Placed Order' }, steps: [{ wait: { seconds: 60 } }, { sendEmail: { templateId: thanks, kind: 'transactional' } }] });
  }
  if (!existing.has('Return rejected')) {
    const rejected = await template({ name: 'Return rejected', channel: 'EMAIL', subject: 'About your return for {{ event.data.orderName }}', body: 'Hi {{ customer.firstName }}, we could not accept your return ({{ event.data.reason }}). Reply to this email and we will help.' });
    await flow({
      name: 'Return rejected',
      trigger: { eventName: 'return.statusChanged', where: [{ key: 'status', operator: 'EQUALS', value: 'rejected' }] },
      steps: [{ sendEmail: { templateId: rejected } }],
    });
  }
}
