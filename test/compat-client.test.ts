import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { seedReturn, setReturnState } from './support/compat.js';
import { eventually } from './support/eventually.js';
import { seedReturns } from './support/returns.js';

/**
 * A client written the way public Loop warehouse integrations are: it
 * follows `nextPageUrl` until null without parsing it, decides success from
 * the body (not the HTTP status), treats `true` as success, and reads every
 * error envelope Loop documents. Pointed at this service by changing only
 * the base URL and the key.
 */
type Outcome = { ok: true } | { ok: false; message: string; code?: string };

class LoopWarehouseClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  private async call(method: string, url: string, body?: unknown): Promise<unknown> {
    const res = await fetch(url.startsWith('http') ? url : `${this.baseUrl}/api/v1${url}`, {
      method,
      headers: { 'X-Authorization': this.apiKey, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  }

  /** Every envelope Loop answers with, read into one outcome. */
  static outcome(body: unknown): Outcome {
    if (body === true) return { ok: true };
    if (body === false) return { ok: false, message: 'false' };
    const b = body as Record<string, any>;
    if (b?.errors?.message) return { ok: false, message: b.errors.message, code: b.errors.code };
    if (b?.error?.message) return { ok: false, message: b.error.message, code: b.error.http_code };
    if (typeof b?.content === 'string') return { ok: false, message: b.content };
    if (typeof b?.message === 'string') return { ok: false, message: b.message, code: b.errors ? Object.keys(b.errors).join(',') : undefined };
    throw new Error(`unexpected envelope: ${JSON.stringify(body)}`);
  }

  async allReturns(params: string): Promise<Record<string, any>[]> {
    const returns: Record<string, any>[] = [];
    let next: string | null = `${this.baseUrl}/api/v1/warehouse/return/list?paginate=true&${params}`;
    while (next) {
      const page = (await this.call('GET', next)) as { returns?: Record<string, any>[]; nextPageUrl?: string | null };
      if (!Array.isArray(page.returns)) throw new Error(LoopWarehouseClient.outcome(page).ok ? 'no page' : JSON.stringify(page));
      returns.push(...page.returns);
      next = page.nextPageUrl ?? null;
    }
    return returns;
  }

  async details(returnId: number): Promise<Record<string, any> | Outcome> {
    const body = (await this.call('GET', `/warehouse/return/details?return_id=${returnId}`)) as Record<string, any>;
    return 'id' in body ? body : LoopWarehouseClient.outcome(body);
  }

  async action(returnId: number, action: string, body?: unknown, query = ''): Promise<Outcome> {
    return LoopWarehouseClient.outcome(await this.call('POST', `/warehouse/return/${returnId}/${action}${query}`, body));
  }

  async notes(returnId: number): Promise<{ id: number; content: string }[] | Outcome> {
    const body = await this.call('GET', `/warehouse/return/${returnId}/notes`);
    return Array.isArray(body) ? body : LoopWarehouseClient.outcome(body);
  }
}

const app = useTestApp();
const account = useTestAccount(app, 'Integrator');
let client: LoopWarehouseClient;
beforeAll(async () => {
  client = new LoopWarehouseClient(app.baseUrl, account.compatKey);
});

describe('an unchanged Loop warehouse integration', () => {
  it('pulls every open return page by page and processes each one', async () => {
    const { returnIds } = await seedReturns(app, account, 12);
    const open = await client.allReturns('pageSize=5&state=open');
    expect(open.map((r) => r.service_id).sort()).toEqual([...returnIds].sort());
    for (const ret of open) expect(await client.action(ret.id, 'process', { processed_by: 'wms' })).toEqual({ ok: true });
    // Once the completion ran, the return reads closed and processing again is refused in the body, with a 200.
    await eventually(async () => (((await client.details(open[0]!.id)) as Record<string, any>).state === 'closed' ? true : undefined), 'the return to close');
    const again = await client.action(open[0]!.id, 'process');
    expect(again).toEqual({ ok: false, message: 'Return is closed and therefore cannot be processed.', code: 'UNPROCESSABLE_RETURN' });
  });

  it('reads every refusal and error envelope it may meet', async () => {
    const flagged = await seedReturn(app, account);
    const expired = await seedReturn(app, account);
    const cancelled = await seedReturn(app, account);
    await setReturnState(app, expired.id, { createdDaysAgo: 30 });
    expect(await client.action(flagged.numericId, 'flag')).toEqual({ ok: true });
    expect(await client.action(flagged.numericId, 'process')).toEqual({ ok: false, message: 'Return is review and therefore cannot be processed.', code: 'UNPROCESSABLE_FLAGGED_RETURN' });
    expect(await client.action(flagged.numericId, 'cancel')).toEqual({ ok: false, message: 'Return is flagged and cannot be processed.' });
    expect(await client.action(expired.numericId, 'cancel')).toEqual({ ok: false, message: 'Return is expired and cannot be processed.' });
    expect(await client.action(cancelled.numericId, 'cancel')).toEqual({ ok: true });
    expect(await client.action(cancelled.numericId, 'close')).toEqual({ ok: false, message: 'Return is cancelled and therefore cannot be processed.' });
    expect(await client.action(999_999, 'process')).toEqual({ ok: false, message: 'No return found with this ID.' });
    expect(await client.details(999_999)).toEqual({ ok: false, message: 'No return found with this ID.' });
    expect(await client.action(flagged.numericId, 'remove')).toEqual({ ok: false, message: 'The line item id field is required.' });
    expect(await client.action(flagged.numericId, 'remove', undefined, '?line_item_id=1')).toEqual({ ok: false, message: 'Return cannot be modified.' });
    expect(await client.action(flagged.numericId, 'note', { content: '' })).toEqual({ ok: false, message: 'Content is required and must be less than 255 characters.' });
    expect(await client.notes(flagged.numericId)).toEqual({ ok: false, message: 'false' });
    expect(await client.action(flagged.numericId, 'note', { content: 'Box crushed' })).toEqual({ ok: true });
    expect(await client.notes(flagged.numericId)).toEqual([expect.objectContaining({ content: 'Box crushed' })]);
    await expect(client.allReturns('pageSize=751')).rejects.toThrow('The page size field must not be greater than 750.');
    const stranger = new LoopWarehouseClient(app.baseUrl, 'not-a-key');
    expect(await stranger.action(flagged.numericId, 'process')).toEqual({ ok: false, message: 'Unauthorized.', code: 'GEN-UNAUTHORIZED' });
  });

  it('reads the details of a return it listed, with the same ids', async () => {
    const ret = await seedReturn(app, account);
    const listed = (await client.allReturns('pageSize=100')).find((r) => r.service_id === ret.id)!;
    const details = (await client.details(listed.id)) as Record<string, any>;
    expect(details.id).toBe(listed.id);
    expect(details.order_id).toBe(listed.order_id);
    expect(details.line_items.map((l: { line_item_id: number }) => l.line_item_id)).toEqual(listed.line_items.map((l: { line_item_id: number }) => l.line_item_id));
  });
});
