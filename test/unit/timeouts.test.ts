import { describe, expect, it } from 'vitest';
import { settlesWithin } from '../../platform/timeouts.js';

describe('settlesWithin', () => {
  it('is true for work that fulfils in time', async () => {
    expect(await settlesWithin(Promise.resolve('done'), 1_000)).toBe(true);
  });

  it('is false for work still pending at the bound', async () => {
    expect(await settlesWithin(new Promise(() => undefined), 10)).toBe(false);
  });

  it('rejects with the rejection of work that fails in time', async () => {
    await expect(settlesWithin(Promise.reject(new Error('closed')), 1_000)).rejects.toThrow('closed');
  });
});
