// The dashboard page's script (server/pages/dashboard.ts): each panel sends the GraphQL operation it
// shows, with the pasted token, and draws the answer with Chart.js. No build step: plain browser JS.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const charts = new Map();
  // What the browser tests read: how many times the panels were drawn, the window of the last drawing,
  // and each series' length.
  const state = { refreshes: 0, window: null, buckets: {}, csv: {} };
  window.dashboard = state;
  const COLORS = ['#0969da', '#1f883d', '#bf8700', '#cf222e', '#8250df', '#1b7c83', '#bc4c00', '#6e7781', '#e85aad', '#4d2d00'];
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  let stores = [];
  // A zone the user typed: it wins over the store's own until another store is picked.
  let typedZone = '';
  // Each refresh's number: an answer that arrives after a newer refresh started is not drawn.
  let generation = 0;
  let connecting = null;

  const token = () => $('token').value.trim();

  async function gql(query) {
    const res = await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token()}` }, body: JSON.stringify({ query }) });
    const body = await res.json().catch(() => ({ errors: [{ message: `HTTP ${res.status}` }] }));
    if (body.errors && body.errors.length) throw new Error(body.errors.map((e) => e.message).join('; '));
    return body.data;
  }

  // GraphQL literals, so the operation shown is exactly the one sent and runs as pasted in the explorer.
  const str = (s) => JSON.stringify(String(s));
  const windowLiteral = (w) => `{from: ${str(w.from)}, until: ${str(w.until)}, interval: ${w.interval}, timeZone: ${str(w.timeZone)}}`;

  function currentWindow(days = Number($('range').value)) {
    const hour = 3_600_000;
    const until = Math.ceil(Date.now() / hour) * hour;
    return { from: new Date(until - days * 86_400_000).toISOString(), until: new Date(until).toISOString(), interval: $('interval').value, timeZone: $('zone').value.trim() || 'UTC' };
  }

  function labelsOf(series, w) {
    const opts = { timeZone: w.timeZone, month: 'short', day: 'numeric', ...(w.interval === 'HOUR' ? { hour: '2-digit', minute: '2-digit' } : {}), ...(w.interval === 'MONTH' ? { year: 'numeric', day: undefined } : {}) };
    const format = new Intl.DateTimeFormat(undefined, opts);
    return series.map((b) => format.format(new Date(b.start)));
  }

  const money = (list) => (list.length ? list.map((m) => `${m.amount} ${m.currency}`).join(' · ') : '0');
  const pct = (x) => (x === null || x === undefined ? 'n/a' : `${(x * 100).toFixed(1)} %`);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  function kpis(el, entries) {
    el.querySelector('.kpis').innerHTML = entries.map(([name, value]) => `<div>${esc(name)}<b>${esc(value)}</b></div>`).join('');
  }

  function table(el, head, rows) {
    el.querySelector('.table').innerHTML = rows.length
      ? `<table><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</table>`
      : '';
  }

  function chart(el, config) {
    charts.get(el.id)?.destroy();
    const options = { responsive: true, maintainAspectRatio: false, animation: false, plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } }, ...config.options };
    charts.set(el.id, new Chart(el.querySelector('canvas'), { ...config, options }));
    state.csv[el.id] = csvOf(config.data);
  }

  // Every chart's numbers as CSV (RFC 4180): a row per label, a column per dataset, as drawn.
  const csvCell = (v) => {
    const text = v === null || v === undefined ? '' : String(v);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  function csvOf(data) {
    const rows = [['label', ...data.datasets.map((d) => d.label)], ...data.labels.map((label, i) => [label, ...data.datasets.map((d) => d.data[i])])];
    return rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
  }
  document.addEventListener('click', (e) => {
    const link = e.target.closest && e.target.closest('a.csv');
    if (!link) return;
    const csv = state.csv[link.closest('.panel').id];
    if (!csv) return e.preventDefault();
    // A blob of the chart drawn now, named after the panel (the link's download attribute).
    link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
  });

  /**
   * Runs a panel's operation, shows it beside the chart, and draws the answer (or says what went
   * wrong), unless a newer refresh than the one of `w` started meanwhile.
   */
  async function panel(id, w, query, draw) {
    const current = () => w.generation === generation;
    const el = $(id);
    el.dataset.state = 'loading';
    el.querySelector('.status').textContent = 'loading';
    el.querySelector('.query').textContent = query;
    el.querySelector('.explore').href = `/graphql?query=${encodeURIComponent(query)}`;
    try {
      const data = await gql(query);
      if (!current()) return;
      draw(el, data);
      el.dataset.state = 'ready';
      el.querySelector('.status').textContent = '';
    } catch (err) {
      if (!current()) return;
      charts.get(id)?.destroy();
      charts.delete(id);
      el.querySelector('.kpis').innerHTML = '';
      el.querySelector('.table').innerHTML = '';
      el.dataset.state = 'error';
      el.querySelector('.status').textContent = err.message;
    }
  }

  const bars = (labels, datasets, stacked = false, horizontal = false) => ({
    type: 'bar',
    data: { labels, datasets: datasets.map((d, i) => ({ backgroundColor: COLORS[i % COLORS.length], ...d })) },
    options: { indexAxis: horizontal ? 'y' : 'x', scales: { x: { stacked }, y: { stacked, beginAtZero: true } } },
  });
  const lines = (labels, datasets, extra = {}) => ({
    type: 'line',
    data: { labels, datasets: datasets.map((d, i) => ({ borderColor: COLORS[i], backgroundColor: COLORS[i], pointRadius: 0, tension: 0.2, ...d })) },
    options: { scales: { y: { beginAtZero: true } }, ...extra },
  });

  async function returnsPanels(storeId, w) {
    // The rate as return reports compute it (by order date) beside the rate by return date, and the period before.
    const overall = `query ReturnTotals {
  returnStats(storeId: ${str(storeId)}, window: ${windowLiteral(w)}, by: STATUS, compareTo: PREVIOUS_PERIOD) {
    totals { returns items returnRate refund { amount currency } storeCredit { amount currency } exchange { amount currency } }
    series { start measures { returns items returnRate } }
    groups { key measures { returns } }
    previous { from totals { returns returnRate } series { start measures { returnRate } } }
  }
  byOrderDate: returnStats(storeId: ${str(storeId)}, window: ${windowLiteral(w)}, basis: ORDER_DATE) {
    totals { returnRate }
    series { start measures { returnRate } }
  }
}`;
    let statuses = [];
    await panel('returns-money', w, overall, (el, data) => {
      const s = data.returnStats;
      statuses = s.groups.map((g) => g.key);
      state.buckets.returns = s.series.length;
      const byOrder = data.byOrderDate;
      const rate = (series) => series.map((b) => (b.measures.returnRate === null ? null : b.measures.returnRate * 100));
      kpis(el, [
        ['Returns', s.totals.returns],
        ['Units', s.totals.items],
        ['Return rate', pct(s.totals.returnRate)],
        ['By order date', pct(byOrder.totals.returnRate)],
        ['Previous period', `${s.previous.totals.returns} · ${pct(s.previous.totals.returnRate)}`],
        ['Refunds', money(s.totals.refund)],
        ['Store credit', money(s.totals.storeCredit)],
        ['Exchanges', money(s.totals.exchange)],
      ]);
      // The previous period drawn bucket by bucket under this one's labels (its own buckets, as long on the calendar).
      chart(
        el,
        lines(labelsOf(s.series, w), [
          { label: 'return rate (%)', data: rate(s.series), spanGaps: true },
          { label: 'by order date (%)', data: rate(byOrder.series), spanGaps: true },
          { label: 'previous period (%)', data: rate(s.previous.series).slice(0, s.series.length), spanGaps: true, borderDash: [4, 4] },
        ]),
      );
    });
    const perStatus = `query ReturnsByStatus {
${(statuses.length ? statuses : ['open'])
  .map((s) => `  ${s}: returnStats(storeId: ${str(storeId)}, window: ${windowLiteral(w)}, filter: {status: ${str(s)}}) { series { start measures { returns } } }`)
  .join('\n')}
}`;
    const byDimension = (by, fields) => `query ReturnsBy${by[0]}${by.slice(1).toLowerCase()} {
  returnStats(storeId: ${str(storeId)}, window: ${windowLiteral(w)}, by: ${by}) {
    groups { key measures { ${fields} } }
  }
}`;
    await Promise.all([
      panel('returns-status', w, perStatus, (el, data) => {
        const keys = Object.keys(data);
        chart(el, bars(labelsOf(data[keys[0]].series, w), keys.map((k) => ({ label: k, data: data[k].series.map((b) => b.measures.returns) })), true));
      }),
      panel('returns-reasons', w, byDimension('REASON', 'returns items'), (el, data) => {
        const g = data.returnStats.groups.slice(0, 12);
        chart(el, bars(g.map((x) => x.key), [{ label: 'returns', data: g.map((x) => x.measures.returns) }, { label: 'units', data: g.map((x) => x.measures.items) }], false, true));
      }),
      panel('returns-skus', w, byDimension('SKU', 'returns items returnRate'), (el, data) => {
        const g = data.returnStats.groups;
        chart(el, bars(g.slice(0, 12).map((x) => x.key || '(no sku)'), [{ label: 'units returned', data: g.slice(0, 12).map((x) => x.measures.items) }], false, true));
        table(el, ['SKU', 'returns', 'units', 'return rate'], g.slice(0, 8).map((x) => [x.key || '(no sku)', x.measures.returns, x.measures.items, pct(x.measures.returnRate)]));
      }),
    ]);
  }

  function eventsPanel(storeId, w) {
    const name = $('event').value;
    const query = `query EventTrend {
  eventStats(storeId: ${str(storeId)}, eventName: ${str(name)}, window: ${windowLiteral(w)}) {
    totals { count uniqueCustomers }
    series { start measures { count uniqueCustomers } }
  }
}`;
    return panel('events', w, query, (el, data) => {
      const s = data.eventStats;
      state.buckets.events = s.series.length;
      kpis(el, [
        [`${name || '(no event)'}`, s.totals.count],
        ['Unique customers', s.totals.uniqueCustomers],
      ]);
      chart(el, lines(labelsOf(s.series, w), [{ label: 'events', data: s.series.map((b) => b.measures.count) }, { label: 'unique customers', data: s.series.map((b) => b.measures.uniqueCustomers) }]));
    });
  }

  function stockPanel(storeId, w) {
    // Inbound looks ahead: the next twelve weeks by expected arrival.
    const hour = 3_600_000;
    const now = Math.floor(Date.now() / hour) * hour;
    const ahead = { from: new Date(now).toISOString(), until: new Date(now + 84 * 86_400_000).toISOString(), interval: 'WEEK', timeZone: w.timeZone };
    const query = `query Stock {
  inventoryStats(storeId: ${str(storeId)}, window: ${windowLiteral(ahead)}) {
    onHand { locationName kind units }
    inbound { totals { shipments units } overdue { shipments units } unscheduled { shipments units } series { start measures { shipments units } } }
  }
}`;
    return panel('stock', w, query, (el, data) => {
      const { onHand, inbound } = data.inventoryStats;
      const locations = [...new Set(onHand.map((r) => r.locationName))];
      const kinds = [...new Set(onHand.map((r) => r.kind))];
      kpis(el, [
        ['On hand', onHand.reduce((n, r) => n + r.units, 0)],
        ['Inbound, next 12 weeks', inbound.totals.units],
        ['Overdue', inbound.overdue.units],
        ['Unscheduled', inbound.unscheduled.units],
      ]);
      chart(el, bars(locations, kinds.map((k) => ({ label: k, data: locations.map((l) => onHand.find((r) => r.locationName === l && r.kind === k)?.units ?? 0) })), true));
      const weeks = labelsOf(inbound.series, ahead);
      table(el, ['expected week of', 'shipments', 'units'], inbound.series.filter((b) => b.measures.shipments).map((b) => [weeks[inbound.series.indexOf(b)], b.measures.shipments, b.measures.units]));
    });
  }

  function webhooksPanel(storeId, w) {
    const query = `query WebhookHealth {
  webhookStats(storeId: ${str(storeId)}, window: ${windowLiteral(w)}) {
    totals { deliveries succeeded failed pending latencyP50Ms latencyP95Ms }
    series { start measures { succeeded failed pending } }
    subscriptions { topic url measures { deliveries succeeded failed pending latencyP50Ms latencyP95Ms } }
  }
}`;
    return panel('webhooks', w, query, (el, data) => {
      const s = data.webhookStats;
      const ms = (v) => (v === null ? 'n/a' : `${Math.round(v)} ms`);
      kpis(el, [
        ['Deliveries', s.totals.deliveries],
        ['Failed', s.totals.failed],
        ['Pending', s.totals.pending],
        ['p50', ms(s.totals.latencyP50Ms)],
        ['p95', ms(s.totals.latencyP95Ms)],
      ]);
      chart(el, bars(labelsOf(s.series, w), ['succeeded', 'failed', 'pending'].map((k) => ({ label: k, data: s.series.map((b) => b.measures[k]) })), true));
      table(el, ['topic', 'url', 'deliveries', 'failed', 'pending', 'p50', 'p95'], s.subscriptions.map((x) => [x.topic, x.url, x.measures.deliveries, x.measures.failed, x.measures.pending, ms(x.measures.latencyP50Ms), ms(x.measures.latencyP95Ms)]));
    });
  }

  function flowsPanel(storeId, w) {
    const query = `query FlowActivity {
  flowStats(storeId: ${str(storeId)}, window: ${windowLiteral(w)}) {
    totals { runsStarted runsCompleted runsFailed runsExited messages { channel status count } }
    series { start measures { runsStarted runsCompleted runsFailed } }
    flows { name measures { runsStarted runsCompleted runsFailed messages { channel status count } } }
  }
}`;
    return panel('flows', w, query, (el, data) => {
      const s = data.flowStats;
      kpis(el, [
        ['Runs started', s.totals.runsStarted],
        ['Completed', s.totals.runsCompleted],
        ['Failed', s.totals.runsFailed],
        ['Messages', s.totals.messages.reduce((n, m) => n + m.count, 0)],
      ]);
      chart(el, bars(labelsOf(s.series, w), [['started', 'runsStarted'], ['completed', 'runsCompleted'], ['failed', 'runsFailed']].map(([label, k]) => ({ label, data: s.series.map((b) => b.measures[k]) }))));
      table(el, ['flow', 'started', 'completed', 'failed', 'messages'], s.flows.map((f) => [f.name, f.measures.runsStarted, f.measures.runsCompleted, f.measures.runsFailed, f.measures.messages.map((m) => `${m.channel} ${m.status}: ${m.count}`).join(', ')]));
    });
  }

  async function refresh() {
    const storeId = $('store').value;
    if (!storeId) return;
    const w = { ...currentWindow(), generation: ++generation };
    localStorage.setItem('dashboard.view', JSON.stringify({ storeId, range: $('range').value, interval: w.interval, zone: w.timeZone, event: $('event').value }));
    await Promise.all([returnsPanels(storeId, w), eventsPanel(storeId, w), stockPanel(storeId, w), webhooksPanel(storeId, w), flowsPanel(storeId, w)]);
    if (w.generation !== generation) return;
    state.window = { interval: w.interval, timeZone: w.timeZone };
    state.refreshes++;
  }

  async function loadEvents(storeId, preferred) {
    const select = $('event');
    let names = [];
    try {
      names = (await gql(`query { eventNames(storeId: ${str(storeId)}) }`)).eventNames;
    } catch {
      // Without customers_read the events panel says why.
    }
    select.innerHTML = names.map((n) => `<option>${esc(n)}</option>`).join('');
    select.value = names.includes(preferred) ? preferred : names.includes('Placed Order') ? 'Placed Order' : (names[0] ?? '');
  }

  /** A store's view: the zone typed, else the one saved for it, else its own. */
  async function selectStore(saved) {
    const store = stores.find((s) => s.storeId === $('store').value);
    if (!store) return;
    $('zone').value = typedZone || saved?.zone || store.timeZone || browserZone;
    await loadEvents(store.storeId, saved?.event);
    await refresh();
  }

  /** The stores the token sees: its own account's (an API secret), or every account's (the admin token). */
  function connect() {
    // The token's change event and the Show button can both ask at once: one connection.
    connecting ??= connectOnce().finally(() => {
      connecting = null;
    });
    return connecting;
  }

  async function connectOnce() {
    $('message').textContent = '';
    localStorage.setItem('dashboard.token', token());
    try {
      try {
        const { accounts } = await gql('query { accounts { accountId name } }');
        stores = [];
        for (const a of accounts.slice(0, 50)) {
          const { stores: own } = await gql(`query { stores(accountId: ${str(a.accountId)}) { storeId name timeZone } }`);
          stores.push(...own.map((s) => ({ ...s, label: `${a.name} / ${s.name}` })));
        }
      } catch {
        stores = (await gql('query { stores { storeId name timeZone } }')).stores.map((s) => ({ ...s, label: s.name }));
      }
    } catch (err) {
      $('message').textContent = err.message;
      return;
    }
    const saved = JSON.parse(localStorage.getItem('dashboard.view') || 'null');
    $('store').innerHTML = stores.map((s) => `<option value="${esc(s.storeId)}">${esc(s.label)} (${esc(s.storeId)})</option>`).join('');
    if (saved && stores.some((s) => s.storeId === saved.storeId)) {
      $('store').value = saved.storeId;
      $('range').value = saved.range;
      $('interval').value = saved.interval;
    }
    await selectStore(saved && saved.storeId === $('store').value ? saved : undefined);
  }

  $('controls').addEventListener('submit', (e) => {
    e.preventDefault();
    void (stores.length ? refresh() : connect());
  });
  $('token').addEventListener('change', () => void connect());
  $('store').addEventListener('change', () => {
    typedZone = '';
    void selectStore();
  });
  for (const id of ['range', 'interval', 'event']) $(id).addEventListener('change', () => void refresh());
  $('zone').addEventListener('input', () => {
    typedZone = $('zone').value.trim();
  });
  $('zone').addEventListener('change', () => void refresh());

  $('token').value = localStorage.getItem('dashboard.token') || '';
  if (token()) void connect();
})();
