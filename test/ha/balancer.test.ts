import { createServer, type Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, httpBalancer, type HttpBalancer } from '../../scripts/ha/balancer.ts';
import { isAlive, portOpen } from '../../scripts/ha/processes.ts';
import { eventually } from './support.ts';

/** httpBalancer: HAProxy in front of local HTTP processes (the service as two API processes, later). */

interface Backend {
  port: number;
  ready: boolean;
  server: Server;
}

async function backend(name: string): Promise<Backend> {
  const port = await freePort();
  const b: Backend = { port, ready: true, server: createServer() };
  b.server.on('request', (req, res) => {
    if (req.url === '/readyz') {
      res.writeHead(b.ready ? 200 : 503).end(b.ready ? 'ready' : 'not ready');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end(name);
  });
  await new Promise<void>((resolve) => b.server.listen(port, '127.0.0.1', resolve));
  return b;
}

const backends: Backend[] = [];
let balancer: HttpBalancer | undefined;

afterAll(async () => {
  await balancer?.stop();
  for (const b of backends) await new Promise((resolve) => b.server.close(resolve));
});

async function who(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return response.text();
}

describe('httpBalancer', () => {
  it('round robin over ready processes, none to one that is not ready, stop leaves nothing', async () => {
    backends.push(await backend('a'), await backend('b'));
    balancer = await httpBalancer(backends.map((b) => b.port));
    expect(balancer.url).toBe(`http://127.0.0.1:${balancer.port}`);

    // Both are checked and up after the first round of health checks.
    await eventually(async () => {
      const seen = new Set<string>();
      for (let i = 0; i < 4; i++) seen.add(await who(balancer!.url));
      return seen.size === 2;
    }, 'requests reaching both processes', 15_000);

    // One says it is not ready: after two failed checks (1 s apart) it gets no more requests.
    backends[1].ready = false;
    await eventually(async () => {
      for (let i = 0; i < 6; i++) if ((await who(balancer!.url)) !== 'a') return false;
      return true;
    }, 'only the ready process serving', 15_000);

    // It comes back after one good check.
    backends[1].ready = true;
    await eventually(async () => {
      const seen = new Set<string>();
      for (let i = 0; i < 4; i++) seen.add(await who(balancer!.url));
      return seen.size === 2;
    }, 'both processes serving again', 15_000);

    // A process that is gone (connection refused) is skipped for requests already in flight too.
    await new Promise((resolve) => backends[0].server.close(resolve));
    backends[0].server.closeAllConnections();
    for (let i = 0; i < 6; i++) expect(await who(balancer.url)).toBe('b');

    const { pid, port } = balancer;
    await balancer.stop();
    expect(isAlive(pid)).toBe(false);
    expect(await portOpen(port)).toBe(false);
    await balancer.stop();
  });
});
