import { createHash, randomInt } from 'node:crypto';
import { onTestFailed } from 'vitest';

/**
 * Random choices a failing test can make again: call inside a test; the seed
 * comes from `TEST_SEED` (to replay) or is drawn fresh, and a failing test
 * prints it. Returns numbers in [0, 1), like Math.random. Replaying gives the
 * same sequence of choices; what races with them (timers, other processes)
 * may still differ.
 */
export function seededRandom(): () => number {
  const seed = seedFrom('TEST_SEED', () => randomInt(2 ** 32));
  onTestFailed(() => console.error(`random seed ${seed}: replay with TEST_SEED=${seed}`));
  return randomFrom(seed);
}

/** The sequence of one seed, for data made outside a test (a `beforeAll` that seeds a fixed data set). */
export function randomFrom(seed: number): () => number {
  let counter = 0;
  // The first 4 bytes of SHA-256(seed:counter): slower than a dedicated generator, but obviously
  // deterministic and evenly spread, and tests draw a few thousand numbers at most.
  return () => createHash('sha256').update(`${seed}:${counter++}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** The seed given in the environment variable `name`, else `fallback()`; a typo fails loudly rather than running unseeded. */
export function seedFrom(name: string, fallback: () => number): number {
  const given = process.env[name];
  const seed = given ? Number(given) : fallback();
  if (!Number.isSafeInteger(seed)) throw new Error(`${name} must be a whole number, got ${given}`);
  return seed;
}
