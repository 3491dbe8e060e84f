import { AsyncLocalStorage } from 'node:async_hooks';

interface Wait {
  what: string;
  since: number;
}

/**
 * What one request is waiting on right now (a pool's connection, a statement, a subgraph), so a
 * request that misses its deadline can be logged with the step it was stuck in.
 */
export class Waits {
  readonly pending = new Set<Wait>();

  /** One line per wait (a statement's text shortened to its start), with how long it has lasted. */
  describe(now = Date.now()): { what: string; ms: number }[] {
    return [...this.pending].map((w) => ({ what: w.what.replace(/\s+/g, ' ').slice(0, 160), ms: now - w.since }));
  }
}

const current = new AsyncLocalStorage<Waits>();

/** Runs `fn` (and everything it starts) as the work of one request. */
export function trackWaits<T>(waits: Waits, fn: () => T): T {
  return current.run(waits, fn);
}

/** Records `work` as a step the current request waits on until it settles (outside a request: nothing). */
export async function waitingOn<T>(what: string, work: Promise<T>): Promise<T> {
  const waits = current.getStore();
  if (!waits) return work;
  const wait = { what, since: Date.now() };
  waits.pending.add(wait);
  try {
    return await work;
  } finally {
    waits.pending.delete(wait);
  }
}
