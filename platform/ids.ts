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
  const bytes = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i]! % 32];
  return time + rand;
}

/** Public ids carry a prefix naming their kind (`ret_...`, `acc_...`), so a misplaced id is obvious. */
export const ID_PREFIX = {
  account: 'acc',
  store: 'sto',
  secret: 'sec',
  compatKey: 'cpk',
  order: 'ord',
  orderItem: 'oli',
  return: 'ret',
  returnItem: 'rti',
  comment: 'cmt',
  customer: 'cus',
  event: 'evt',
  segment: 'seg',
  location: 'loc',
  product: 'prd',
  inventoryItem: 'inv',
  inboundShipment: 'inb',
  inboundShipmentItem: 'ini',
  webhook: 'whk',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${ulid()}`;
}

export function hasPrefix(id: string, kind: IdKind): boolean {
  return id.startsWith(`${ID_PREFIX[kind]}_`);
}
