import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../platform/observability/logger.js';
import { DatabaseWatch } from '../platform/db/database-watch.js';
import { eventually } from './support/eventually.js';

/** A peer that accepts connections and never answers: a server too busy (or a network too broken) to reply. */
async function silentPeer(): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `postgres://watch:watch@127.0.0.1:${port}/watch`,
    server,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

/** A port nothing listens on: what a crashed server leaves. */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `postgres://watch:watch@127.0.0.1:${port}/watch`;
}

describe('database watch', () => {
  const watches: DatabaseWatch[] = [];
  const watch = (url: string) => {
    const w = new DatabaseWatch({ url, logger: createLogger('silent'), lostAfterMs: 0, onLost: () => undefined, intervalMs: 100 });
    watches.push(w);
    w.start();
    return w;
  };
  afterAll(async () => {
    for (const w of watches) await w.stop();
  });

  it('database-watch-refused: a refused connection (a crashed server) is "away" at once', async () => {
    const w = watch(await refusedUrl());
    await eventually(async () => !w.available, 'the watch reports the database away', { timeoutMs: 3_000 });
  });

  it('database-watch-slow: probes that only time out (a loaded machine) are not an outage until they have for 10 s', async () => {
    const peer = await silentPeer();
    try {
      const w = watch(peer.url);
      // Each probe times out after 2 s; three timeouts in a row (6 s and more) are still within the grace.
      await new Promise((resolve) => setTimeout(resolve, 6_500));
      expect(w.available).toBe(true);
      await eventually(async () => !w.available, 'the watch reports the database away after the grace', { timeoutMs: 20_000 });
    } finally {
      await peer.close();
    }
  });
});
