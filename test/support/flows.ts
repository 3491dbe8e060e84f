import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { TestAccount, TestApp } from './app.js';
import { CONSUMED, jobRows, query } from './database.js';
import { eventually } from './eventually.js';

/** GraphQL of the flows (decisions section 16), as the tests and dashboards call it. */
export const FLOWS_GQL = {
  createTemplate: `mutation($s: ID!, $i: CreateTemplateInput!) { createTemplate(storeId: $s, input: $i) { id name channel subject body createdAt updatedAt } }`,
  updateTemplate: `mutation($id: ID!, $i: UpdateTemplateInput!) { updateTemplate(id: $id, input: $i) { id channel subject body } }`,
  templates: `query($s: ID!, $first: Int, $after: String) { templates(storeId: $s, first: $first, after: $after) { totalCount edges { node { id name } } pageInfo { hasNextPage endCursor } } }`,
  preview: `query($s: ID!, $i: TemplatePreviewInput!, $e: ID, $c: ID) { previewTemplate(storeId: $s, input: $i, eventId: $e, customerId: $c) { subject body } }`,
  createFlow: `mutation($s: ID!, $i: FlowInput!) { createFlow(storeId: $s, input: $i) { id name status version signingSecret trigger { eventName where } audience steps } }`,
  updateFlow: `mutation($id: ID!, $i: FlowInput!) { updateFlow(id: $id, input: $i) { id version status steps } }`,
  setFlowStatus: `mutation($id: ID!, $st: FlowStatus!) { setFlowStatus(id: $id, status: $st) { id status } }`,
  flow: `query($id: ID!) { flow(id: $id) { id name status version } }`,
  flows: `query($s: ID!) { flows(storeId: $s) { totalCount edges { node { id name status } } } }`,
  flowRuns: `query($f: ID!, $first: Int) { flowRuns(flowId: $f, first: $first) { totalCount edges { node { id eventId version status startedAt finishedAt customer { email } flow { id } steps { path type status at detail } } } } }`,
  messages: `query($s: ID!, $c: ID, $f: ID) { messages(storeId: $s, customerId: $c, flowId: $f, first: 100) { totalCount edges { node { id channel to subject body status provider error flowId flowRunId createdAt } } } }`,
};

interface RunStep {
  path: string;
  type: string;
  status: string;
  at: string;
  detail: string | null;
}

export interface Run {
  id: string;
  eventId: string;
  version: number;
  status: string;
  customer: { email: string | null } | null;
  steps: RunStep[];
}

export interface Message {
  id: string;
  channel: string;
  to: string;
  subject: string | null;
  body: string;
  status: string;
  provider: string;
  error: string | null;
  flowId: string;
  flowRunId: string;
}

/** A GraphQL call that must succeed. */
export async function gqlOk<T>(app: TestApp, query: string, variables: Record<string, unknown>, token?: string): Promise<T> {
  const result = await app.graphql<T>(query, variables, token);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return result.data!;
}

export async function createTemplate(app: TestApp, account: TestAccount, input: Record<string, unknown>): Promise<string> {
  const data = await gqlOk<{ createTemplate: { id: string } }>(app, FLOWS_GQL.createTemplate, { s: account.storeId, i: input }, account.apiSecret);
  return data.createTemplate.id;
}

export async function createFlow(app: TestApp, account: TestAccount, input: Record<string, unknown>): Promise<{ id: string; signingSecret: string }> {
  const data = await gqlOk<{ createFlow: { id: string; signingSecret: string } }>(app, FLOWS_GQL.createFlow, { s: account.storeId, i: input }, account.apiSecret);
  return data.createFlow;
}

export async function runsOf(app: TestApp, account: TestAccount, flowId: string): Promise<Run[]> {
  const data = await gqlOk<{ flowRuns: { edges: { node: Run }[] } }>(app, FLOWS_GQL.flowRuns, { f: flowId, first: 100 }, account.apiSecret);
  return data.flowRuns.edges.map((e) => e.node);
}

export async function messagesOf(app: TestApp, account: TestAccount, filters: { customerId?: string; flowId?: string } = {}): Promise<Message[]> {
  const data = await gqlOk<{ messages: { edges: { node: Message }[] } }>(app, FLOWS_GQL.messages, { s: account.storeId, c: filters.customerId, f: filters.flowId }, account.apiSecret);
  return data.messages.edges.map((e) => e.node);
}

/** Polls the flow's runs until `done` holds for them (bounded; never asserts on time). */
export async function runsWhen(app: TestApp, account: TestAccount, flowId: string, done: (runs: Run[]) => boolean, what: string): Promise<Run[]> {
  return eventually(async () => {
    const runs = await runsOf(app, account, flowId);
    return done(runs) ? runs : undefined;
  }, what);
}

export const finished = (run: Run) => ['COMPLETED', 'FAILED', 'EXITED'].includes(run.status);

/**
 * Waits until no event waits for processing, the flows have read every processed event from the
 * outbox, and no flow job (trigger or step) is waiting, running or due for a retry, delayed ones included.
 */
export async function flowsIdle(databaseUrl: string): Promise<void> {
  await eventually(async () => {
    const [row] = await query<{ n: number }>(
      databaseUrl,
      `select (select count(*) from events.event_inbox)
            + (select count(*) from platform.outbox_event e, platform.outbox_consumer c where c.name = 'flow-triggers' and e.type = 'custom_event.created' and not ${CONSUMED}) as n`,
    );
    const jobs = await jobRows(databaseUrl, { names: ['flow-triggers', 'flow-steps'], unfinished: true });
    return Number(row!.n) + jobs.length === 0 ? true : undefined;
  }, 'the flows to be idle');
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1: records each request and answers with `status.next()` (changeable; 0 never answers). */
export async function startReceiver(): Promise<{ url: string; received: Received[]; status: { next: (r: Received) => number }; close: () => Promise<void> }> {
  const received: Received[] = [];
  const status = { next: (_r: Received) => 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const code = status.next(r);
      // 0: never answer (a sender stuck waiting, e.g. to be killed meanwhile); the socket closes with the server.
      if (code === 0) return;
      res.statusCode = code;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    status,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string | false;
  /** Each header as sent (lower-case name, the raw value after the colon, unfolded). */
  headers: Record<string, string>;
}

/**
 * A real SMTP server on 127.0.0.1 (smtp-server): each mail is parsed with
 * mailparser. `reject` makes it refuse recipients (a provider failure).
 */
export async function startSmtpServer(): Promise<{ url: string; mails: ReceivedMail[]; reject: { next: boolean }; close: () => Promise<void> }> {
  const { SMTPServer } = await import('smtp-server');
  const { simpleParser } = await import('mailparser');
  const mails: ReceivedMail[] = [];
  const reject = { next: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (reject.next) {
        const err = new Error(`mailbox ${address.address} unavailable`) as Error & { responseCode: number };
        err.responseCode = 550;
        callback(err);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: parsed.html ?? false,
            headers: Object.fromEntries(parsed.headerLines.map((h) => [h.key, h.line.slice(h.line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim()])),
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, mails, reject, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
