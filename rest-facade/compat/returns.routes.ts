import { Type } from '@sinclair/typebox';
import type { AppError } from '../../platform/errors.js';
import { isAppError } from '../../platform/errors.js';
import type { Principal } from '../../platform/api/auth.js';
import type { ReturnRecord } from '../../subgraphs/returns/public.js';
import { operation } from '../gateway-client.js';
import type { RouteContext, RouteResult } from '../pipeline/route.js';
import type { RouteRegistry } from '../pipeline/routing.js';
import { isPaginated } from './surface.js';
import { ActionOutcome, DetailsOutcome, LoopReturnList, NoteRefusal, NotesOutcome, RemoveRefusal } from './schemas.js';
import { loopReturn, loopTime } from './format.js';
import { expiryCutoff, identify, isoText, laravelInvalid, loopState, OPEN_STATUSES, LIST_WINDOW, parseState, resolveWindow, REVIEW_STATUSES, stateCondition, UNPAGED_LIMIT, type LoopState, type ReturnLookup } from './params.js';

const BODY_LIMIT = 1024 * 1024;

// One operation per route, on the returns subgraph's domain operations; records cross the gateway as JSON text.
const DETAILS = operation(`
  query CompatReturnDetails($storeId: ID!, $by: ReturnLookupInput!) { lookupReturn(storeId: $storeId, by: $by) { recordJson } }`);

export const RETURNS_WINDOW = operation(`
  query CompatReturnsWindow($storeId: ID!, $window: ReturnWindowInput!, $first: Int, $after: String, $before: String) {
    returnsWindow(storeId: $storeId, window: $window, first: $first, after: $after, before: $before) {
      recordsJson
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`);

const STATE_FIELDS = 'applied return { status shipmentRecorded createdAt }';

const QUEUE_COMPLETION = operation(`
  mutation CompatProcess($storeId: ID!, $return: ReturnLookupInput!, $onlyIf: ReturnConditionInput, $detail: JSON) {
    queueReturnCompletion(storeId: $storeId, return: $return, onlyIf: $onlyIf, detail: $detail) { ${STATE_FIELDS} }
  }`);

const UPDATE_STATUS = operation(`
  mutation CompatUpdateStatus($storeId: ID!, $return: ReturnLookupInput!, $status: ReturnStatus!, $onlyIf: ReturnConditionInput) {
    updateReturnStatusIf(storeId: $storeId, return: $return, status: $status, onlyIf: $onlyIf) { ${STATE_FIELDS} }
  }`);

const REMOVE_ITEMS = operation(`
  mutation CompatRemove($storeId: ID!, $return: ReturnLookupInput!, $lines: [ID!]!, $onlyIf: ReturnConditionInput) {
    removeReturnItems(storeId: $storeId, return: $return, orderLineNumericIds: $lines, onlyIf: $onlyIf, completeAfter: true) { ${STATE_FIELDS} }
  }`);

const ADD_NOTE = operation(`
  mutation CompatNote($storeId: ID!, $return: ReturnLookupInput!, $message: String!, $key: String) {
    commentOnReturn(storeId: $storeId, return: $return, message: $message, idempotencyKey: $key) { numericId }
  }`);

const NOTES = operation(`
  query CompatNotes($storeId: ID!, $by: ReturnLookupInput!) { lookupReturn(storeId: $storeId, by: $by) { comments { numericId message createdAt } } }`);

type Change = { applied: boolean; return: { status: string; shipmentRecorded: boolean; createdAt: string | Date } };

const NOT_FOUND_MESSAGE = 'No return found with this ID.';
/** Unknown returns (decisions section 11): 200, `errors` on actions and `error` on details. */
const actionNotFound = (): RouteResult => ({ status: 200, body: { errors: { message: NOT_FOUND_MESSAGE } } });
const detailsNotFound = (): RouteResult => ({ status: 200, body: { error: { message: NOT_FOUND_MESSAGE } } });

/** The store a compatibility key acts for. */
export function storeOf(principal: Principal): string {
  if (principal.kind !== 'compat') throw new Error('compatibility routes authenticate compatibility keys only');
  return principal.storeId;
}

const isReturnNotFound = (err: unknown): err is AppError => isAppError(err) && err.slug === 'return-not-found';

/** Query parameters that name a return (beside the path id). */
const IDENTIFY = {
  service_return_id: Type.Optional(Type.String()),
  order_name: Type.Optional(Type.String()),
  order_id: Type.Optional(Type.String()),
};

// Parameters are declared as plain strings: their rules are checked by the handlers, which answer Loop's messages.
const DetailsQuery = Type.Object({ return_id: Type.Optional(Type.String()), ...IDENTIFY, currency_type: Type.Optional(Type.String()) });
const ActionQuery = Type.Object(IDENTIFY);
const RemoveQuery = Type.Object({ ...IDENTIFY, line_item_id: Type.Optional(Type.String()) });
const ListQuery = Type.Object({ from: Type.Optional(Type.String()), to: Type.Optional(Type.String()), filter: Type.Optional(Type.String()), state: Type.Optional(Type.String()) });
const ProcessBody = Type.Unknown({ description: 'Optional free JSON, kept on the return timeline.' });
const NoteBody = Type.Object({ content: Type.String({ minLength: 1, maxLength: 254 }) });

type Action = 'process' | 'flag' | 'close' | 'cancel';

const ACTION_RESPONSES = { 200: { description: '`true` when applied; otherwise the refusal of the action/state table or the "not found" body.', schema: ActionOutcome } };
type Condition = ReturnType<typeof stateCondition>;

/** Where each action is allowed (decisions section 14): the service condition that must hold. */
function allowedFrom(action: Action | 'remove', now: Date): Condition {
  const notExpired = { createdBefore: expiryCutoff(now), is: false };
  if (action === 'close') return { statuses: [...OPEN_STATUSES, ...REVIEW_STATUSES], awaitingShipment: notExpired };
  return { statuses: [...OPEN_STATUSES], awaitingShipment: notExpired };
}

const unprocessable = (state: LoopState, code = 'UNPROCESSABLE_RETURN') => ({ errors: { message: `Return is ${state} and therefore cannot be processed.`, code } });

/** The refusal of an action from a state, cell by cell of the action/state table (decisions section 14); all 200. */
function refusal(action: Action, state: LoopState): unknown {
  if (state === 'cancelled' && (action === 'process' || action === 'close')) return { message: 'Return is cancelled and therefore cannot be processed.' };
  if (action === 'process' && state === 'review') return unprocessable(state, 'UNPROCESSABLE_FLAGGED_RETURN');
  if (action === 'cancel' && state === 'expired') return { content: 'Return is expired and cannot be processed.' };
  if (action === 'cancel' && state === 'review') return { content: 'Return is flagged and cannot be processed.' };
  return unprocessable(state);
}

type Ctx = RouteContext<Record<string, string | undefined>, unknown>;

/** Runs an action's one operation; unknown returns and refusals answer as Loop does. */
async function act(ctx: Ctx, action: Action, run: (storeId: string, lookup: ReturnLookup, onlyIf: Condition) => Promise<Change>): Promise<RouteResult> {
  const lookup = identify(ctx.params.return_id, ctx.query);
  if (!lookup) return actionNotFound();
  const now = new Date();
  let change: Change;
  try {
    change = await run(storeOf(ctx.principal), lookup, allowedFrom(action, now));
  } catch (err) {
    if (isReturnNotFound(err)) return actionNotFound();
    throw err;
  }
  if (change.applied) return { status: 200, body: true };
  return { status: 200, body: refusal(action, loopState(change.return, now)) };
}

export function registerCompatReturnRoutes(routes: RouteRegistry): void {
  routes.add('GET', '/warehouse/return/details', {
    operationId: 'getReturnDetails',
    tag: 'Returns',
    summary: 'One return by return_id, order_id, order_name or service_return_id',
    scope: 'returns_read',
    responses: { 200: { description: 'The return, or the "not found" body.', schema: DetailsOutcome } },
    query: DetailsQuery,
    handle: async ({ principal, query, graphql }) => {
      const lookup = identify(undefined, query);
      if (!lookup) {
        if (query.return_id === undefined && !query.order_id && !query.order_name && !query.service_return_id) {
          throw laravelInvalid('return_id', 'The return id field is required when none of order id / order name / service return id are present.');
        }
        return detailsNotFound();
      }
      const data = await graphql<{ lookupReturn: { recordJson: string } | null }>(DETAILS, { storeId: storeOf(principal), by: lookup });
      if (!data.lookupReturn) return detailsNotFound();
      return { status: 200, body: loopReturn(JSON.parse(data.lookupReturn.recordJson) as ReturnRecord, 'details', new Date()) };
    },
  });

  routes.add('GET', '/warehouse/return/list', {
    operationId: 'listReturns',
    tag: 'Returns',
    summary: 'Returns created (or updated) in a window: a bare array, or pages with paginate=true',
    scope: 'returns_read',
    responses: { 200: { description: 'The returns of the window, newest first.', schema: LoopReturnList } },
    paginated: true,
    query: ListQuery,
    handle: async ({ req, principal, query, page, graphql }) => {
      const now = new Date();
      // A cursor re-sent without from/to continues in the window its first page resolved.
      const bounds = query.from === undefined && query.to === undefined && page.window ? page.window : query;
      const window = resolveWindow({ ...bounds, filter: query.filter }, now, LIST_WINDOW);
      const state = parseState(query.state);
      const paginated = isPaginated(req);
      const data = await graphql<{ returnsWindow: { recordsJson: string; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null } } }>(
        RETURNS_WINDOW,
        {
          storeId: storeOf(principal),
          window: { field: window.field, from: window.from, until: window.until, condition: stateCondition(state, now) },
          first: paginated ? page.first : UNPAGED_LIMIT,
          after: paginated ? page.after : undefined,
          before: paginated ? page.before : undefined,
        },
      ).catch((err: unknown) => {
        if (isAppError(err) && err.slug === 'invalid-cursor') throw laravelInvalid('cursor', 'The cursor is invalid.');
        throw err;
      });
      const records = JSON.parse(data.returnsWindow.recordsJson) as ReturnRecord[];
      const parameters: Record<string, string> = { ...window.bounds, filter: window.field, ...(state ? { state } : {}), paginate: 'true', pageSize: String(page.first) };
      return { status: 200, body: records.map((r) => loopReturn(r, 'list', now)), page: paginated ? { ...data.returnsWindow.pageInfo, parameters } : undefined };
    },
  });

  routes.add('POST', '/warehouse/return/:return_id/process', {
    operationId: 'processReturn',
    tag: 'Returns',
    summary: 'Queue the completion of an open return',
    scope: 'returns_write',
    responses: ACTION_RESPONSES,
    query: ActionQuery,
    body: { limit: BODY_LIMIT, schema: ProcessBody, checkedBy: 'graph', optional: true },
    handle: (ctx) =>
      act(ctx as Ctx, 'process', async (storeId, lookup, onlyIf) =>
        (await ctx.graphql<{ queueReturnCompletion: Change }>(QUEUE_COMPLETION, { storeId, return: lookup, onlyIf, detail: ctx.body ?? null })).queueReturnCompletion,
      ),
  });

  const statusAction = (action: 'flag' | 'close' | 'cancel', status: string, summary: string) =>
    routes.add('POST', `/warehouse/return/:return_id/${action}`, {
      operationId: `${action}Return`,
      tag: 'Returns',
      summary,
      scope: 'returns_write',
      responses: ACTION_RESPONSES,
      query: ActionQuery,
      handle: (ctx) =>
        act(ctx as Ctx, action, async (storeId, lookup, onlyIf) =>
          (await ctx.graphql<{ updateReturnStatusIf: Change }>(UPDATE_STATUS, { storeId, return: lookup, status, onlyIf })).updateReturnStatusIf,
        ),
    });
  statusAction('flag', 'flagged', 'Flag an open return for review');
  statusAction('close', 'rejected', 'Close (reject) an open or flagged return');
  statusAction('cancel', 'deleted', 'Cancel (reset) an open return: its items become returnable again');

  routes.add('POST', '/warehouse/return/:return_id/remove', {
    operationId: 'removeReturnItems',
    tag: 'Returns',
    summary: 'Remove line items from an open return, then process it (removing every item cancels it)',
    scope: 'returns_write',
    responses: { ...ACTION_RESPONSES, 422: { description: 'The return cannot be modified, the items do not qualify, or `line_item_id` is missing.', schema: RemoveRefusal } },
    query: RemoveQuery,
    handle: async (ctx) => {
      const lines = (ctx.query.line_item_id ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      if (!lines.length) return { status: 422, body: { error: { message: 'The line item id field is required.' } } };
      const lookup = identify(ctx.params.return_id, ctx.query);
      if (!lookup) return actionNotFound();
      const now = new Date();
      try {
        const data = await ctx.graphql<{ removeReturnItems: Change }>(REMOVE_ITEMS, { storeId: storeOf(ctx.principal), return: lookup, lines, onlyIf: allowedFrom('remove', now) });
        if (data.removeReturnItems.applied) return { status: 200, body: true };
        return { status: 422, body: { message: 'Return cannot be modified.' } };
      } catch (err) {
        if (isReturnNotFound(err)) return actionNotFound();
        if (isAppError(err) && err.slug === 'items-not-in-return') return { status: 422, body: { message: 'Not all line items qualify for removal' } };
        throw err;
      }
    },
  });

  routes.add('POST', '/warehouse/return/:return_id/note', {
    operationId: 'addReturnNote',
    tag: 'Returns',
    summary: 'Add a note (1 to 254 characters) to a return',
    scope: 'returns_write',
    headers: { 'Idempotency-Key': { description: 'A retry with the same key adds the note once.' } },
    responses: { ...ACTION_RESPONSES, 422: { description: '`content` is missing or longer than 254 characters.', schema: NoteRefusal } },
    query: ActionQuery,
    body: { limit: BODY_LIMIT, schema: NoteBody, checkedBy: 'graph', optional: true },
    handle: async ({ req, params, query, body, principal, graphql }) => {
      const content = (body as { content?: unknown } | undefined)?.content;
      if (typeof content !== 'string' || content.length < 1 || content.length > 254 || !content.trim()) {
        return { status: 422, body: { errors: { message: 'Content is required and must be less than 255 characters.' } } };
      }
      const lookup = identify(params.return_id, query);
      if (!lookup) return actionNotFound();
      const key = req.headers['idempotency-key'];
      try {
        await graphql(ADD_NOTE, { storeId: storeOf(principal), return: lookup, message: content, key: typeof key === 'string' ? key : null });
      } catch (err) {
        if (isReturnNotFound(err)) return actionNotFound();
        throw err;
      }
      return { status: 200, body: true };
    },
  });

  routes.add('GET', '/warehouse/return/:return_id/notes', {
    operationId: 'listReturnNotes',
    tag: 'Returns',
    summary: "A return's notes, oldest first (422 with false when it has none)",
    scope: 'returns_read',
    responses: {
      200: { description: 'The notes, or the "not found" body.', schema: NotesOutcome },
      422: { description: 'The return has no notes: the JSON value `false`.', schema: Type.Literal(false) },
    },
    query: ActionQuery,
    handle: async ({ params, query, principal, graphql }) => {
      const lookup = identify(params.return_id, query);
      if (!lookup) return actionNotFound();
      const data = await graphql<{ lookupReturn: { comments: { numericId: string; message: string; createdAt: string | Date }[] } | null }>(NOTES, { storeId: storeOf(principal), by: lookup });
      if (!data.lookupReturn) return actionNotFound();
      const notes = data.lookupReturn.comments;
      if (!notes.length) return { status: 422, body: false };
      return { status: 200, body: notes.map((n) => ({ id: Number(n.numericId), content: n.message, created_at: loopTime(isoText(n.createdAt), 'details') })) };
    },
  });
}
