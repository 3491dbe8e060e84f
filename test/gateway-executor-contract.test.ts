import type { ApolloGateway } from '@apollo/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, apolloLogger } from '../gateway/gateway.js';
import type { SubgraphName } from '../platform/config.js';
import { RequestContext } from '../platform/graphql/context.js';
import { appErrorFromGraphQL, executorRequest, operation, type GatewayRequestContext } from '../rest-facade/gateway-client.js';
import { RequestLocals } from '../rest-facade/pipeline/request-locals.js';
import { useTestAccount, useTestApp } from './support/app.js';

/**
 * The REST facade hands its operations straight to `ApolloGateway.executor`
 * with a request context it builds itself (rest-facade/gateway-client.ts).
 * These tests pin what that contract relies on, so that a gateway upgrade
 * that changes it fails here rather than in production.
 */
describe('the gateway executor contract the facade relies on', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Contract');
  let gateway: ApolloGateway;

  beforeAll(async () => {
    gateway = createGateway({ kind: 'local', schemas: app.service.runtime.schemas as Record<SubgraphName, never> });
    await gateway.load();
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  const context = () => new RequestContext({ kind: 'admin' }, {}, new RequestLocals('req-contract', app.service.runtime.logger));
  const request = (op: ReturnType<typeof operation>, variables: Record<string, unknown>) => executorRequest(op, variables, context(), gateway.schema!, apolloLogger(app.service.runtime.logger));

  /** Records every property the executor reads of the request context (and of `request`). */
  function recording(ctx: GatewayRequestContext): { proxy: GatewayRequestContext; read: Set<string> } {
    const read = new Set<string>();
    const watch = <T extends object>(target: T, prefix: string): T =>
      new Proxy(target, {
        get(t, key, receiver) {
          if (typeof key === 'string') read.add(prefix + key);
          const value = Reflect.get(t, key, receiver) as unknown;
          return key === 'request' && value && typeof value === 'object' ? watch(value, 'request.') : value;
        },
      });
    return { proxy: watch(ctx, ''), read };
  }

  it('plans from `document`, runs with `context`, and reads nothing the facade does not provide', async () => {
    const op = operation('query Settings($s: ID!) { storeSettings(storeId: $s) { storeId requireReturnApproval } }');
    const ctx = request(op, { s: acme.storeId });
    const { proxy, read } = recording(ctx);
    const result = await gateway.executor(proxy);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ storeSettings: { storeId: acme.storeId, requireReturnApproval: false } });
    const provided = new Set([...Object.keys(ctx), ...Object.keys(ctx.request).map((k) => `request.${k}`)]);
    const unknown = [...read].filter((key) => !provided.has(key) && !['then', 'toJSON', 'constructor'].includes(key));
    expect(unknown).toEqual([]);
    expect(read).toContain('document');
    expect(read).toContain('queryHash');
    expect(read).toContain('context');
  });

  it('caches plans under `queryHash` (with the operation name): each operation needs a hash of its own', async () => {
    const first = operation('query Same($s: ID!) { storeSettings(storeId: $s) { storeId } }');
    const second = operation('query Same($s: ID!) { storeSettings(storeId: $s) { requireReturnApproval } }');
    expect(second.queryHash).not.toBe(first.queryHash);
    await gateway.executor(request(first, { s: acme.storeId }));
    const collided = await gateway.executor({ ...request(second, { s: acme.storeId }), queryHash: first.queryHash });
    const own = await gateway.executor(request(second, { s: acme.storeId }));
    expect(own.data).toEqual({ storeSettings: { requireReturnApproval: false } });
    // Under the first operation's hash, the first operation's plan ran (and fetched no requireReturnApproval):
    // proof the cache key is queryHash, not the document.
    expect(collided.data).not.toEqual(own.data);
  });

  it('returns a domain error with the type and problem it carries, which the facade turns back into the same AppError', async () => {
    const op = operation('mutation Status($id: ID!) { updateReturnStatus(returnId: $id, status: open) { id } }');
    const result = await gateway.executor(request(op, { id: 'ret_missing' }));
    expect(result.errors?.[0]?.extensions).toMatchObject({ type: 'not_found', problem: 'return-not-found', code: 'NOT_FOUND' });
    const appError = appErrorFromGraphQL(result.errors![0]!);
    expect({ type: appError.type, slug: appError.slug, status: appError.status }).toEqual({ type: 'not_found', slug: 'return-not-found', status: 404 });
  });

  it('checks the variables against the operation before planning', async () => {
    const op = operation('query Settings($s: ID!) { storeSettings(storeId: $s) { storeId } }');
    const result = await gateway.executor(request(op, {}));
    expect(result.data).toBeUndefined();
    expect(result.errors?.[0]?.message).toMatch(/\$s/);
  });
});
