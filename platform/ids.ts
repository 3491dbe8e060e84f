import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID: 48 bits of milliseconds then 80 random bits, Crockford base32.
 * Ids sort by creation time, which keeps B-tree inserts local.
 */
export function ulid(now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomChunk();
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i]! % 32];
  return time + rand;
}

// Random bytes are drawn 4 KB at a time: one system call per 256 ids instead of one per id
// (ids are minted on every request and event, and system calls are the expensive part).
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = POOL_SIZE;

function randomChunk(): Buffer {
  if (offset + 16 > pool.length) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const chunk = pool.subarray(offset, offset + 16);
  offset += 16;
  return chunk;
}

/** Public ids carry a prefix naming their kind (`ret_...`, `acc_...`), so a misplaced id is obvious. */
const ID_PREFIX = {
  account: 'acc',
  store: 'sto',
  secret: 'sec',
  compatKey: 'cpk',
  order: 'ord',
  orderItem: 'oli',
  fulfillment: 'ful',
  fulfillmentEvent: 'fev',
  return: 'ret',
  returnItem: 'rti',
  comment: 'cmt',
  returnTag: 'rtg',
  timelineEntry: 'rtl',
  customer: 'cus',
  event: 'evt',
  segment: 'seg',
  location: 'loc',
  product: 'prd',
  inventoryItem: 'inv',
  inventoryLevel: 'ivl',
  inboundShipment: 'inb',
  inboundShipmentItem: 'ini',
  webhook: 'whk',
  webhookMessage: 'msg',
  webhookAttempt: 'dlv',
  template: 'tpl',
  flow: 'flw',
  flowRun: 'frn',
  flowMessage: 'fms',
  consentChange: 'ccg',
  erasure: 'era',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${ulid()}`;
}
