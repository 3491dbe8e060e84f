import { bucketOf } from '../../../platform/analytics/sql.js';
import type { Window } from '../../../platform/analytics/time-window.js';
import { Conditions } from '../../../platform/db/keyset.js';
import { heavySql, type HeavyReads } from '../../../platform/db/replica.js';

/**
 * The reads behind `flowStats`: runs by their start and by their end, messages by when they were
 * sent, each counted per bucket and flow in the database (indexes by store and time); the view
 * (flow-stats.view.ts) sums them into measures.
 */

/** One count of a bucket and flow: runs started, finished (by their end status), or messages by channel and status. */
export interface CountRow {
  bucket: number;
  flowId: string;
  what: 'STARTED' | 'COMPLETED' | 'FAILED' | 'EXITED' | 'MESSAGE';
  channel: string | null;
  status: string | null;
  count: number;
}

/** The counts of the store's flows (or one) in the window, per bucket and flow. */
export function flowCounts(reads: HeavyReads, storeId: string, window: Window, flowId: string | undefined): Promise<CountRow[]> {
  const c = new Conditions();
  const store = c.p(storeId);
  const bucket = bucketOf(c, window);
  const [from, until] = [c.p(new Date(window.from).toISOString(), 'timestamptz'), c.p(new Date(window.until).toISOString(), 'timestamptz')];
  const oneFlow = flowId === undefined ? '' : ` and flow_id = ${c.p(flowId)}`;
  return heavySql<CountRow>(reads, `select bucket, flow_id as "flowId", what, channel, status, count(*)::int as count from (
       select ${bucket('started_at')} as bucket, flow_id, 'STARTED' as what, null as channel, null as status
         from flow_run where store_id = ${store} and started_at >= ${from} and started_at < ${until}${oneFlow}
       union all
       select ${bucket('finished_at')}, flow_id, status, null, null
         from flow_run where store_id = ${store} and finished_at >= ${from} and finished_at < ${until}${oneFlow}
       union all
       select ${bucket('created_at')}, flow_id, 'MESSAGE', channel, status
         from message where store_id = ${store} and created_at >= ${from} and created_at < ${until}${oneFlow}
     ) t group by 1, 2, 3, 4, 5`,
    c.params,
  );
}

/** The store's flows (or the one asked for): ids and names. */
export function flowNames(reads: HeavyReads, storeId: string, flowId: string | undefined): Promise<{ id: string; name: string }[]> {
  return heavySql<{ id: string; name: string }>(reads, `select id, name from flow where store_id = $1${flowId === undefined ? '' : ' and id = $2'}`, flowId === undefined ? [storeId] : [storeId, flowId]);
}
