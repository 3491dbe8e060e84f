import { bucketOf, MAX_GROUPS } from '../../../platform/analytics/sql.js';
import type { Window } from '../../../platform/analytics/time-window.input.js';
import { Conditions } from '../../../platform/db/keyset.js';
import { heavySql, type HeavyReads } from '../../../platform/db/replica.js';
import type { FlowMeasuresType, FlowStatsType } from './flow-stats.type.js';

interface CountRow {
  bucket: number;
  flowId: string;
  what: 'STARTED' | 'COMPLETED' | 'FAILED' | 'EXITED' | 'MESSAGE';
  channel: string | null;
  status: string | null;
  count: number;
}

const empty = (): FlowMeasuresType => ({ runsStarted: 0, runsCompleted: 0, runsFailed: 0, runsExited: 0, messages: [] });

function add(m: FlowMeasuresType, row: CountRow): void {
  if (row.what === 'STARTED') m.runsStarted += row.count;
  else if (row.what === 'COMPLETED') m.runsCompleted += row.count;
  else if (row.what === 'FAILED') m.runsFailed += row.count;
  else if (row.what === 'EXITED') m.runsExited += row.count;
  else {
    const same = m.messages.find((x) => x.channel === row.channel && x.status === row.status);
    if (same) same.count += row.count;
    else m.messages.push({ channel: row.channel!, status: row.status!, count: row.count });
  }
}

const sortMessages = (m: FlowMeasuresType) => m.messages.sort((a, b) => (a.channel + a.status < b.channel + b.status ? -1 : 1));

/**
 * `flowStats`: runs by their start and by their end, messages by when they were sent, each
 * counted per bucket and flow in the database (indexes by store and time), summed here.
 */
export async function flowStats(reads: HeavyReads, storeId: string, window: Window, flowId: string | undefined): Promise<FlowStatsType> {
  const c = new Conditions();
  const store = c.p(storeId);
  const bucket = bucketOf(c, window);
  const [from, until] = [c.p(new Date(window.from).toISOString(), 'timestamptz'), c.p(new Date(window.until).toISOString(), 'timestamptz')];
  const oneFlow = flowId === undefined ? '' : ` and flow_id = ${c.p(flowId)}`;
  const [rows, flows] = await Promise.all([
    heavySql<CountRow>(reads, `select bucket, flow_id as "flowId", what, channel, status, count(*)::int as count from (
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
    ),
    heavySql<{ id: string; name: string }>(reads, `select id, name from flow where store_id = $1${flowId === undefined ? '' : ' and id = $2'}`, flowId === undefined ? [storeId] : [storeId, flowId]),
  ]);
  const series = window.starts.map(empty);
  const totals = empty();
  const perFlow = new Map(flows.map((f) => [f.id, { flowId: f.id, name: f.name, measures: empty() }]));
  for (const row of rows) {
    add(series[row.bucket]!, row);
    add(totals, row);
    const flow = perFlow.get(row.flowId);
    if (flow) add(flow.measures, row);
  }
  [...series, totals, ...[...perFlow.values()].map((f) => f.measures)].forEach(sortMessages);
  return {
    totals,
    series: window.starts.map((start, i) => ({ start: new Date(start), measures: series[i]! })),
    flows: [...perFlow.values()].sort((a, b) => b.measures.runsStarted - a.measures.runsStarted || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(0, MAX_GROUPS),
  };
}
