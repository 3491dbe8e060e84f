import { MAX_GROUPS } from '../../../platform/analytics/sql.js';
import type { Window } from '../../../platform/analytics/time-window.js';
import type { HeavyReads } from '../../../platform/db/replica.js';
import { flowCounts, flowNames, type CountRow } from './flow-stats.rows.js';
import type { FlowMeasuresType, FlowStatsType } from './flow-stats.type.js';

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
 * `flowStats`: the counts of flow-stats.rows.ts summed per bucket, over the window and per flow
 * (the 50 flows with the most runs started, then by name).
 */
export async function loadFlowStats(reads: HeavyReads, storeId: string, window: Window, flowId: string | undefined): Promise<FlowStatsType> {
  const [rows, flows] = await Promise.all([flowCounts(reads, storeId, window, flowId), flowNames(reads, storeId, flowId)]);
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
