import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { compat, seedReturn, type CompatResponse } from '../support/compat.js';
import { axiosQuery, seedBulk, seedEveryState, type StateReturn } from '../support/clients.js';
import { eventually } from '../support/eventually.js';

/**
 * Replay of Pipedream's Loop Returns components (PipedreamHQ/pipedream,
 * components/loop_returns/): loop_returns.app.mjs sends every request through
 * the platform's axios with `X-Authorization` (params by axios' serializer);
 * its `returnId` prop lists options page by page with
 * `GET /warehouse/return/list` and its own params (`paginate`, `pageSize`,
 * no `from`/`to`) plus the `cursor` it read from the previous page's
 * `nextPageUrl`. actions/process-return, cancel-return and flag-return POST
 * `/warehouse/return/{returnId}/<action>` without a body and report success
 * on any 2xx (axios throws on the others). The instant sources register
 * webhooks, which the warehouse API does not serve: they must meet 401/403.
 */

type Rec = Record<string, unknown>;
const DEFAULT_LIMIT = 30;

const app = useTestApp();
const account = useTestAccount(app, 'Pipedream');

/** The platform's axios: status 2xx resolves with the data, anything else rejects. */
async function axios(method: 'GET' | 'POST', path: string, params: Record<string, string | number | boolean | null | undefined> = {}, key = account.compatKey): Promise<CompatResponse> {
  const query = axiosQuery(params);
  const res = await compat(app, key, method, `${app.baseUrl}/api/v1${path}${query ? `?${query}` : ''}`, undefined, { Accept: 'application/json, text/plain, */*', 'Content-Type': 'application/json' });
  if (res.status < 200 || res.status >= 300) throw Object.assign(new Error(`Request failed with status code ${res.status}`), { response: res });
  return res;
}

/** The `returnId` prop's options: one page per call, the next call carries the cursor in its context. */
async function returnIdOptions(prevContext: { cursor?: string | null }) {
  if (prevContext.cursor === null) return { options: [], context: { cursor: null } };
  const { body } = await axios('GET', '/warehouse/return/list', { paginate: true, pageSize: DEFAULT_LIMIT, cursor: prevContext.cursor });
  const page = body as { returns: Rec[]; nextPageUrl: string | null };
  return {
    options: page.returns.map((r) => ({ label: `${String(r.order_name)} (${String(r.state)})`, value: r.id as number })),
    context: { cursor: page.nextPageUrl ? new URL(page.nextPageUrl).searchParams.get('cursor') : null },
  };
}

/** An action's run(): the POST, then the summary it exports. */
async function runAction(action: 'process' | 'cancel' | 'flag', returnId: number): Promise<{ summary: string; response: unknown }> {
  const { body } = await axios('POST', `/warehouse/return/${returnId}/${action}`);
  const done = { process: 'processed', cancel: 'cancelled', flag: 'flagged' }[action];
  return { summary: `Successfully ${done} return with ID \`${returnId}\``, response: body };
}

let made: StateReturn[];
let bulk: string[];
beforeAll(async () => {
  made = await seedEveryState(app, account);
  // More than one page of options (30).
  bulk = await seedBulk(app, account, DEFAULT_LIMIT + 3);
});

describe('Pipedream Loop Returns components, unchanged', () => {
  it('the returnId prop loads every page of options with its own params and the cursor of nextPageUrl', async () => {
    const values: number[] = [];
    let context: { cursor?: string | null } = {};
    let pages = 0;
    do {
      const page = await returnIdOptions(context);
      values.push(...page.options.map((o) => o.value));
      context = page.context;
      pages++;
    } while (context.cursor);
    expect(pages).toBe(2);
    // Loop's default list: the open, closed and expired returns of the last 24 hours.
    const listed = [...made.filter((r) => r.state === 'open' || r.state === 'closed').map((r) => r.numericId)];
    expect(values.length).toBe(listed.length + bulk.length);
    expect(new Set(values).size).toBe(values.length);
    for (const id of listed) expect(values).toContain(id);
  });

  it('process-return, flag-return and cancel-return POST without a body and report success', async () => {
    const toProcess = await seedReturn(app, account);
    expect(await runAction('process', toProcess.numericId)).toEqual({ summary: `Successfully processed return with ID \`${toProcess.numericId}\``, response: true });
    await eventually(async () => ((await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${toProcess.numericId}`)).body.state === 'closed' ? true : undefined), 'the return to close');
    const toFlag = await seedReturn(app, account);
    expect((await runAction('flag', toFlag.numericId)).response).toBe(true);
    const toCancel = await seedReturn(app, account);
    expect((await runAction('cancel', toCancel.numericId)).response).toBe(true);
    // A refusal is a 200 with Loop's body: the action passes it on as its result.
    expect((await runAction('process', toFlag.numericId)).response).toEqual({ errors: { message: 'Return is review and therefore cannot be processed.', code: 'UNPROCESSABLE_FLAGGED_RETURN' } });
  });

  it('the instant sources\' webhook registration meets 403 with a valid key and 401 without one', async () => {
    const withKey = await compat(app, account.compatKey, 'POST', '/api/v1/webhooks', { url: 'https://example.com/hook', topic: 'return', trigger: 'return.created' });
    expect(withKey.status).toBe(403);
    expect(withKey.body).toEqual({ error: { code: '403', http_code: 'GEN-FORBIDDEN', message: 'Forbidden.' } });
    await expect(axios('GET', '/warehouse/return/list', {}, 'revoked-key')).rejects.toMatchObject({ response: { status: 401 } });
  });
});
