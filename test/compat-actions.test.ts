import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { compat, seedReturn, setReturnState, statusOf, type SeededReturn } from './support/compat.js';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';

/**
 * The action/state table of decisions section 14, cell by cell: every action
 * from every reachable state (each service status behind a Loop state, and
 * expired), with the exact status and body, and the return's status after.
 */
const app = useTestApp();
const account = useTestAccount(app, 'Warehouse');

type Setup = { status: string; shipmentRecorded?: boolean; createdDaysAgo?: number };

/** Every reachable state: the Loop state and one service state behind it. */
const STATES: { name: string; loop: string; setup: Setup }[] = [
  { name: 'open (pre_shipment)', loop: 'open', setup: { status: 'pre_shipment' } },
  { name: 'open (open)', loop: 'open', setup: { status: 'open' } },
  { name: 'open (open, shipped, 40 days old)', loop: 'open', setup: { status: 'open', shipmentRecorded: true, createdDaysAgo: 40 } },
  { name: 'open (in_transit)', loop: 'open', setup: { status: 'in_transit', shipmentRecorded: true } },
  { name: 'open (delivered)', loop: 'open', setup: { status: 'delivered', shipmentRecorded: true } },
  { name: 'review (needs_review)', loop: 'review', setup: { status: 'needs_review' } },
  { name: 'review (in_review)', loop: 'review', setup: { status: 'in_review' } },
  { name: 'review (flagged)', loop: 'review', setup: { status: 'flagged' } },
  { name: 'closed (complete)', loop: 'closed', setup: { status: 'complete' } },
  { name: 'closed (rejected)', loop: 'closed', setup: { status: 'rejected' } },
  { name: 'cancelled (deleted)', loop: 'cancelled', setup: { status: 'deleted' } },
  { name: 'expired (open, never shipped, 29 days old)', loop: 'expired', setup: { status: 'open', shipmentRecorded: false, createdDaysAgo: 29 } },
];

const unprocessable = (state: string, code = 'UNPROCESSABLE_RETURN') => ({ errors: { message: `Return is ${state} and therefore cannot be processed.`, code } });
const cancelledMessage = { message: 'Return is cancelled and therefore cannot be processed.' };

/** What each action answers from each Loop state, and the service status it leads to (`same`: unchanged). */
const TABLE: Record<string, Record<string, { status: number; body: unknown; after: string }>> = {
  process: {
    open: { status: 200, body: true, after: 'complete' },
    review: { status: 200, body: unprocessable('review', 'UNPROCESSABLE_FLAGGED_RETURN'), after: 'same' },
    closed: { status: 200, body: unprocessable('closed'), after: 'same' },
    expired: { status: 200, body: unprocessable('expired'), after: 'same' },
    cancelled: { status: 200, body: cancelledMessage, after: 'same' },
  },
  flag: {
    open: { status: 200, body: true, after: 'flagged' },
    review: { status: 200, body: unprocessable('review'), after: 'same' },
    closed: { status: 200, body: unprocessable('closed'), after: 'same' },
    expired: { status: 200, body: unprocessable('expired'), after: 'same' },
    cancelled: { status: 200, body: unprocessable('cancelled'), after: 'same' },
  },
  close: {
    open: { status: 200, body: true, after: 'rejected' },
    review: { status: 200, body: true, after: 'rejected' },
    closed: { status: 200, body: unprocessable('closed'), after: 'same' },
    expired: { status: 200, body: unprocessable('expired'), after: 'same' },
    cancelled: { status: 200, body: cancelledMessage, after: 'same' },
  },
  cancel: {
    open: { status: 200, body: true, after: 'deleted' },
    review: { status: 200, body: { content: 'Return is flagged and cannot be processed.' }, after: 'same' },
    closed: { status: 200, body: unprocessable('closed'), after: 'same' },
    expired: { status: 200, body: { content: 'Return is expired and cannot be processed.' }, after: 'same' },
    cancelled: { status: 200, body: unprocessable('cancelled'), after: 'same' },
  },
  remove: {
    open: { status: 200, body: true, after: 'complete' },
    review: { status: 422, body: { message: 'Return cannot be modified.' }, after: 'same' },
    closed: { status: 422, body: { message: 'Return cannot be modified.' }, after: 'same' },
    expired: { status: 422, body: { message: 'Return cannot be modified.' }, after: 'same' },
    cancelled: { status: 422, body: { message: 'Return cannot be modified.' }, after: 'same' },
  },
  note: {
    open: { status: 200, body: true, after: 'same' },
    review: { status: 200, body: true, after: 'same' },
    closed: { status: 200, body: true, after: 'same' },
    expired: { status: 200, body: true, after: 'same' },
    cancelled: { status: 200, body: true, after: 'same' },
  },
};

async function perform(action: string, ret: SeededReturn) {
  const base = `/api/v1/warehouse/return/${ret.numericId}/${action}`;
  if (action === 'remove') return compat(app, account.compatKey, 'POST', `${base}?line_item_id=${ret.lines['li-1']}`);
  if (action === 'note') return compat(app, account.compatKey, 'POST', base, { content: 'Checked at the dock' });
  return compat(app, account.compatKey, 'POST', base);
}

/** Waits for a queued completion to run (the state reads closed), bounded. */
async function completed(returnId: string): Promise<string> {
  return eventually(async () => {
    const status = await statusOf(app, returnId);
    return status === 'complete' ? status : undefined;
  }, `return ${returnId} to complete`);
}

describe('the action/state table', () => {
  for (const action of Object.keys(TABLE)) {
    for (const state of STATES) {
      const expected = TABLE[action]![state.loop]!;
      it(`${action} from ${state.name}: ${expected.status} ${JSON.stringify(expected.body)}`, async () => {
        const ret = await seedReturn(app, account);
        await setReturnState(app, ret.id, state.setup);
        const details = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${ret.numericId}`);
        expect(details.body.state).toBe(state.loop);

        const res = await perform(action, ret);
        expect(res.status).toBe(expected.status);
        expect(res.body).toEqual(expected.body);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const after = expected.after === 'same' ? state.setup.status : expected.after;
        if (after === 'complete') expect(await completed(ret.id)).toBe('complete');
        else expect(await statusOf(app, ret.id)).toBe(after);
      });
    }
  }
});

describe('process', () => {
  it('answers true once queued, the state reads closed when the job has run, and the free body is kept on the timeline', async () => {
    const ret = await seedReturn(app, account);
    const res = await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/process`, { warehouse: 'DC-1', bins: [1, 2] });
    expect(res.status).toBe(200);
    expect(res.text).toBe('true');
    await completed(ret.id);
    const details = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${ret.numericId}`);
    expect(details.body.state).toBe('closed');
    const timeline = await query<{ kind: string; detail: unknown }>(app.databaseUrl, 'select kind, detail from returns.return_timeline where return_id = $1 order by created_at, id', [ret.id]);
    expect(timeline).toEqual([
      { kind: 'completion_queued', detail: { warehouse: 'DC-1', bins: [1, 2] } },
      { kind: 'completed', detail: null },
    ]);
  });

  it('a completion queued twice completes the return once', async () => {
    const twice = await seedReturn(app, account);
    const [a, b] = await Promise.all([
      compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${twice.numericId}/process`),
      compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${twice.numericId}/process`),
    ]);
    // The second may find the first one's completion already applied.
    expect(a.body).toBe(true);
    expect([true, { errors: { message: 'Return is closed and therefore cannot be processed.', code: 'UNPROCESSABLE_RETURN' } }]).toContainEqual(b.body);
    await completed(twice.id);
    const queued = b.body === true ? 2 : 1;
    await eventually(async () => {
      const jobs = await app.service.runtime.boss.findJobs('returns-completion', { data: { returnId: twice.id } });
      return jobs.filter((j) => j.state === 'completed').length === queued ? true : undefined;
    }, 'the completion jobs to run');
    const completions = await query(app.databaseUrl, `select 1 from returns.return_timeline where return_id = $1 and kind = 'completed'`, [twice.id]);
    expect(completions).toHaveLength(1);
  });

  it('a queued completion overtaken by a cancellation leaves the return cancelled', async () => {
    const ret = await seedReturn(app, account);
    expect((await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/cancel`)).body).toBe(true);
    // The job of a completion queued just before the cancellation committed.
    const jobId = await app.service.runtime.boss.send('returns-completion', { returnId: ret.id });
    await eventually(async () => {
      const job = await app.service.runtime.boss.getJobById('returns-completion', jobId!);
      return job?.state === 'completed' ? true : undefined;
    }, 'the completion job to run');
    expect(await statusOf(app, ret.id)).toBe('deleted');
  });
});

describe('remove', () => {
  it('removes the named items at once, then processes the return', async () => {
    const ret = await seedReturn(app, account);
    const res = await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/remove?line_item_id=${ret.lines['li-1']}`);
    expect(res.body).toBe(true);
    const items = await query<{ status: string; external_id: string }>(
      app.databaseUrl,
      'select i.status, l.external_id from returns.return_item i join returns.order_line_item l on l.id = i.order_line_item_id where i.return_id = $1 order by l.external_id',
      [ret.id],
    );
    expect(items).toEqual([
      { status: 'removed', external_id: 'li-1' },
      { status: 'active', external_id: 'li-2' },
    ]);
    await completed(ret.id);
    const details = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${ret.numericId}`);
    expect(details.body.line_items.map((l: { provider_line_item_id: string }) => l.provider_line_item_id)).toEqual(['li-2']);
  });

  it('removing every item (several ids, comma-separated) cancels the return and frees its units', async () => {
    const ret = await seedReturn(app, account);
    const res = await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/remove?line_item_id=${ret.lines['li-1']},${ret.lines['li-2']}`);
    expect(res.body).toBe(true);
    expect(await statusOf(app, ret.id)).toBe('deleted');
    const details = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${ret.numericId}`);
    expect(details.body.state).toBe('cancelled');
    expect(await app.service.runtime.boss.findJobs('returns-completion', { data: { returnId: ret.id } })).toHaveLength(0);
  });

  it('refuses ids that are not on the return (422) and changes nothing', async () => {
    const ret = await seedReturn(app, account);
    const other = await seedReturn(app, account);
    for (const ids of [`${other.lines['li-1']}`, `${ret.lines['li-1']},${other.lines['li-1']}`, 'abc', `${ret.lines['li-1']},999999999`]) {
      const res = await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/remove?line_item_id=${ids}`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'Not all line items qualify for removal' });
    }
    const active = await query(app.databaseUrl, `select 1 from returns.return_item where return_id = $1 and status = 'active'`, [ret.id]);
    expect(active).toHaveLength(2);
    expect(await statusOf(app, ret.id)).toBe('open');
  });

  it('without line_item_id answers 422 with the exact body, even for an unknown return', async () => {
    const ret = await seedReturn(app, account);
    for (const path of [`/api/v1/warehouse/return/${ret.numericId}/remove`, `/api/v1/warehouse/return/${ret.numericId}/remove?line_item_id=`, '/api/v1/warehouse/return/999999/remove']) {
      const res = await compat(app, account.compatKey, 'POST', path);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: { message: 'The line item id field is required.' } });
    }
  });
});

describe('note', () => {
  it('refuses an empty, missing or too long content with the exact 422 body', async () => {
    const ret = await seedReturn(app, account);
    const invalid = { errors: { message: 'Content is required and must be less than 255 characters.' } };
    for (const body of [{}, { content: '' }, { content: 'x'.repeat(255) }, { content: 42 }, undefined]) {
      const res = await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/note`, body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual(invalid);
    }
    const ok = await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/note`, { content: 'x'.repeat(254) });
    expect(ok.body).toBe(true);
  });

  it('lists notes oldest first as [{id, content, created_at}]; none is 422 false; they are the return comments', async () => {
    const ret = await seedReturn(app, account);
    const none = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/${ret.numericId}/notes`);
    expect(none.status).toBe(422);
    expect(none.text).toBe('false');
    await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/note`, { content: 'First' });
    await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/note`, { content: 'Second' });
    const notes = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/${ret.numericId}/notes`);
    expect(notes.status).toBe(200);
    expect(notes.body.map((n: { content: string }) => n.content)).toEqual(['First', 'Second']);
    for (const note of notes.body) {
      expect(Number.isInteger(note.id)).toBe(true);
      expect(note.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    }
    const v2 = await app.request(`/v2.2/returns/${ret.id}/comments`, { token: account.apiSecret });
    expect(((await v2.json()) as { comments: { message: string }[] }).comments.map((c) => c.message)).toEqual(['First', 'Second']);
  });

  it('adds a note once per Idempotency-Key', async () => {
    const ret = await seedReturn(app, account);
    const send = () => compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/note`, { content: 'Once' }, { 'idempotency-key': 'note-1' });
    expect((await send()).body).toBe(true);
    expect((await send()).body).toBe(true);
    const notes = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/${ret.numericId}/notes`);
    expect(notes.body).toHaveLength(1);
  });
});

describe('identification', () => {
  it('finds the return of an action by path id, or by service_return_id, order_name or order_id with a placeholder path id', async () => {
    const ways = (ret: SeededReturn) => [
      `${ret.numericId}/flag`,
      `0/flag?service_return_id=${ret.id}`,
      `0/flag?order_name=${encodeURIComponent(ret.orderName)}`,
      `0/flag?order_id=${ret.orderNumericId}`,
    ];
    for (let i = 0; i < 4; i++) {
      const ret = await seedReturn(app, account);
      const res = await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ways(ret)[i]}`);
      expect(res.body).toBe(true);
      expect(await statusOf(app, ret.id)).toBe('flagged');
    }
  });

  it('answers an unknown return (or another store\'s) with 200 and the errors body on every action', async () => {
    const other = await app.createAccount('Other');
    const theirs = await seedReturn(app, other);
    const notFound = { errors: { message: 'No return found with this ID.' } };
    const paths = [
      ['POST', '999999/process'],
      ['POST', `${theirs.numericId}/flag`],
      ['POST', `0/close?service_return_id=${theirs.id}`],
      ['POST', `0/cancel?order_id=${theirs.orderNumericId}`],
      ['POST', 'abc/process'],
      ['POST', `0/remove?order_name=${encodeURIComponent('#nope')}&line_item_id=1`],
      ['GET', `${theirs.numericId}/notes`],
    ] as const;
    for (const [method, path] of paths) {
      const res = await compat(app, account.compatKey, method, `/api/v1/warehouse/return/${path}`);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toEqual(notFound);
    }
    const note = await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${theirs.numericId}/note`, { content: 'x' });
    expect(note.body).toEqual(notFound);
    expect(await statusOf(app, theirs.id)).toBe('open');
  });
});
