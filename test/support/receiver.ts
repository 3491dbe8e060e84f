import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers one request: a status (and headers), or nothing at all (hang until the sender gives up). */
type Answer = { status: number; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Replaces how the next requests are answered (default: 204). */
  answer(fn: (req: ReceivedRequest) => Answer | Promise<Answer>): void;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that records every request it gets, in arrival order. */
export async function startReceiver(): Promise<Receiver> {
  let answerFn: (req: ReceivedRequest) => Answer | Promise<Answer> = () => ({ status: 204 });
  const received: ReceivedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const entry = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(entry);
      const answer = await answerFn(entry);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, answer.headers).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    answer(fn) {
      answerFn = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
