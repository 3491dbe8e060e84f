import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api.ts';

/**
 * A typed client of the /v2.2 REST API: openapi-fetch over the types that
 * openapi-typescript generated from the OpenAPI document (`api.ts`). Paths,
 * parameters, bodies and answers are checked by the compiler:
 *
 *   const api = createReturnsClient({ baseUrl: 'http://localhost:4000', apiSecret: 'sk_...' });
 *   const { data, error } = await api.GET('/returns/{returnId}', { params: { path: { returnId } } });
 *
 * `error` is the problem details body of a 4xx/5xx answer.
 */
export type ReturnsClient = Client<paths>;

export function createReturnsClient(options: { baseUrl: string; apiSecret: string; fetch?: typeof fetch }): ReturnsClient {
  return createClient<paths>({
    baseUrl: `${options.baseUrl.replace(/\/$/, '')}/v2.2`,
    headers: { Authorization: `Bearer ${options.apiSecret}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** A problem details body (what `error` holds on failure). */
export type Problem = paths['/returns/{returnId}']['get']['responses'][404]['content']['application/problem+json'];

/** Fails with the problem's title and detail when a call did not succeed. */
export function expectOk<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  if (result.response.ok) return undefined as T;
  const problem = result.error as Problem | undefined;
  throw new Error(`${result.response.status} ${problem?.title ?? ''}: ${problem?.detail ?? ''}`.trim());
}

/**
 * Every page of a list, following `X-Page-Next` until the last page (pages
 * are read one after the other, as the API asks).
 */
export async function* pages<T>(fetchPage: (cursor: string | undefined) => Promise<{ data?: T; error?: unknown; response: Response }>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const result = await fetchPage(cursor);
    yield expectOk(result);
    cursor = result.response.headers.get('X-Page-Next') ?? undefined;
  } while (cursor);
}
