import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { projectRoot } from '../../platform/project-root.js';

/**
 * `/dashboard`: a page for internal users over the analytics queries (docs/analytics.md). The
 * browser does the work: it sends the GraphQL operations each panel shows beside its chart (so
 * they can be copied into the explorer) with the token pasted on the page, and draws them with
 * Chart.js, served from its npm package like the other developer pages' assets.
 */

const require = createRequire(import.meta.url);

export const DASHBOARD_ASSETS: Record<string, { file: string; type: string }> = {
  // The package exports no package.json: its main entry (dist/chart.cjs) sits beside the UMD build.
  '/dashboard/assets/chart.js': { file: join(dirname(require.resolve('chart.js')), 'chart.umd.min.js'), type: 'text/javascript' },
  '/dashboard/assets/dashboard.js': { file: join(projectRoot(), 'server', 'pages', 'dashboard.client.js'), type: 'text/javascript' },
};

const PANELS = [
  ['returns-status', 'Returns over time, by status'],
  ['returns-reasons', 'Top return reasons'],
  ['returns-skus', 'Top returned SKUs'],
  ['returns-money', 'Refunds and return rate'],
  ['events', 'Event count and unique customers'],
  ['stock', 'Stock on hand and inbound'],
  ['webhooks', 'Webhook delivery health'],
  ['flows', 'Flow activity'],
] as const;

export function dashboardPage(): string {
  const panels = PANELS.map(
    ([id, title]) => `<section class="panel" id="${id}" data-state="idle"><header><h2>${title}</h2><span class="status"></span></header>
<div class="kpis"></div><div class="chart"><canvas></canvas></div><div class="table"></div>
<details><summary>GraphQL</summary><pre class="query"></pre><a class="explore" target="_blank" rel="noopener">Open in the explorer</a> · <a class="csv" href="#" download="${id}.csv">Download the chart as CSV</a></details></section>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dashboard · Returns platform</title><link rel="icon" href="data:,">
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f6f8fa;color:#1f2328}
form{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;padding:1rem 1.5rem;background:#fff;border-bottom:1px solid #d1d9e0;position:sticky;top:0;z-index:1}
label{display:flex;flex-direction:column;font-size:.8rem;color:#59636e;gap:.2rem}
input,select,button{font:inherit;padding:.3rem .5rem;border:1px solid #d1d9e0;border-radius:6px;background:#fff}
button{background:#1f883d;color:#fff;border-color:#1f883d;cursor:pointer}
h1{font-size:1.1rem;margin:0 1rem 0 0;align-self:center}
main{display:grid;grid-template-columns:repeat(auto-fill,minmax(34rem,1fr));gap:1rem;padding:1rem 1.5rem}
.panel{background:#fff;border:1px solid #d1d9e0;border-radius:8px;padding:.75rem 1rem;min-width:0}
.panel header{display:flex;justify-content:space-between;align-items:baseline}
h2{font-size:1rem;margin:0 0 .5rem}
.status{font-size:.8rem;color:#59636e}.panel[data-state=error] .status{color:#cf222e}
.chart{position:relative;height:15rem}
.kpis{display:flex;gap:1.5rem;flex-wrap:wrap;margin:.25rem 0 .5rem}.kpis div{font-size:.8rem;color:#59636e}.kpis b{display:block;font-size:1.2rem;color:#1f2328}
table{border-collapse:collapse;width:100%;font-size:.8rem;margin-top:.5rem}td,th{text-align:left;padding:.2rem .4rem;border-bottom:1px solid #eef1f4}
pre{background:#f6f8fa;padding:.5rem;overflow:auto;font-size:.75rem;max-height:14rem}
#message{padding:.5rem 1.5rem;color:#cf222e}
</style></head>
<body>
<form id="controls">
<h1>Dashboard</h1>
<label>API secret or admin token<input id="token" type="password" autocomplete="off" size="28" placeholder="sk_... or the admin token"></label>
<label>Store<select id="store"><option value="">connect first</option></select></label>
<label>Window<select id="range"><option value="7">last 7 days</option><option value="30">last 30 days</option><option value="90" selected>last 90 days</option><option value="180">last 180 days</option><option value="365">last 365 days</option></select></label>
<label>Interval<select id="interval"><option>HOUR</option><option selected>DAY</option><option>WEEK</option><option>MONTH</option></select></label>
<label>Time zone<input id="zone" list="zones" size="18"></label>
<label>Event<select id="event"></select></label>
<button id="connect" type="submit">Show</button>
<datalist id="zones"><option>UTC</option><option>Europe/London</option><option>Europe/Berlin</option><option>America/New_York</option><option>America/Chicago</option><option>America/Los_Angeles</option><option>Asia/Tokyo</option><option>Australia/Sydney</option></datalist>
</form>
<div id="message"></div>
<main>
${panels}
</main>
<script src="/dashboard/assets/chart.js"></script>
<script src="/dashboard/assets/dashboard.js"></script>
</body></html>`;
}
