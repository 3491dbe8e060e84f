import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../platform/project-root.js';
import { useTestApp } from './support/app.js';

const dashboard = JSON.parse(readFileSync(join(projectRoot(), 'docs/observability/grafana-dashboard.json'), 'utf8')) as Dashboard;
const alerts = parse(readFileSync(join(projectRoot(), 'docs/observability/prometheus-alerts.yml'), 'utf8')) as { groups: { name: string; rules: AlertRule[] }[] };

interface GridPos {
  h: number;
  w: number;
  x: number;
  y: number;
}
interface Target {
  refId: string;
  expr: string;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: GridPos;
  datasource?: { type: string; uid: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string }[] };
}
interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/**
 * Grafana's dashboard JSON model, as its documentation describes it ("JSON
 * model": the dashboard's properties, `panels` with `gridPos` on a 24-column
 * grid, `targets` per query with a `refId`, `datasource` references,
 * `templating.list` variables, `annotations`, `time`, `schemaVersion`).
 */
const DATASOURCE_REF = { type: 'object', required: ['type', 'uid'], properties: { type: { type: 'string' }, uid: { type: 'string' } } };
const GRID_POS = {
  type: 'object',
  required: ['h', 'w', 'x', 'y'],
  properties: { h: { type: 'integer', minimum: 1 }, w: { type: 'integer', minimum: 1, maximum: 24 }, x: { type: 'integer', minimum: 0, maximum: 23 }, y: { type: 'integer', minimum: 0 } },
};
const QUERY_PANEL = {
  type: 'object',
  required: ['id', 'type', 'title', 'gridPos', 'datasource', 'targets', 'fieldConfig', 'options'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    type: { enum: ['timeseries', 'stat', 'gauge', 'bargauge', 'table', 'state-timeline', 'heatmap', 'piechart'] },
    title: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    gridPos: GRID_POS,
    datasource: DATASOURCE_REF,
    targets: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['refId', 'expr', 'datasource'],
        properties: { refId: { type: 'string', pattern: '^[A-Z]$' }, expr: { type: 'string', minLength: 1 }, legendFormat: { type: 'string' }, datasource: DATASOURCE_REF },
      },
    },
    fieldConfig: { type: 'object', required: ['defaults', 'overrides'], properties: { defaults: { type: 'object' }, overrides: { type: 'array' } } },
    options: { type: 'object' },
  },
};
const ROW_PANEL = {
  type: 'object',
  required: ['id', 'type', 'title', 'gridPos', 'collapsed', 'panels'],
  properties: { id: { type: 'integer', minimum: 1 }, type: { const: 'row' }, title: { type: 'string', minLength: 1 }, gridPos: GRID_POS, collapsed: { type: 'boolean' }, panels: { type: 'array' } },
};
const VARIABLE = {
  type: 'object',
  required: ['name', 'type', 'hide'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    type: { enum: ['query', 'datasource', 'custom', 'constant', 'interval', 'textbox', 'adhoc'] },
    hide: { enum: [0, 1, 2] },
  },
  if: { properties: { type: { const: 'query' } } },
  then: { required: ['datasource', 'query', 'refresh'], properties: { datasource: DATASOURCE_REF, refresh: { enum: [0, 1, 2] } } },
  else: { if: { properties: { type: { const: 'datasource' } } }, then: { required: ['query'], properties: { query: { type: 'string' } } } },
};
const DASHBOARD_SCHEMA = {
  type: 'object',
  required: ['title', 'uid', 'schemaVersion', 'version', 'editable', 'time', 'refresh', 'tags', 'timezone', 'templating', 'annotations', 'panels'],
  properties: {
    title: { type: 'string', minLength: 1 },
    // Grafana's uid: at most 40 characters of letters, digits, - and _.
    uid: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,40}$' },
    schemaVersion: { type: 'integer', minimum: 36 },
    version: { type: 'integer', minimum: 0 },
    editable: { type: 'boolean' },
    time: { type: 'object', required: ['from', 'to'], properties: { from: { type: 'string' }, to: { type: 'string' } } },
    refresh: { type: 'string', pattern: '^(|\\d+[smhd])$' },
    tags: { type: 'array', items: { type: 'string' } },
    timezone: { enum: ['browser', 'utc', ''] },
    templating: { type: 'object', required: ['list'], properties: { list: { type: 'array', items: VARIABLE } } },
    annotations: { type: 'object', required: ['list'], properties: { list: { type: 'array' } } },
    panels: { type: 'array', minItems: 1, items: { if: { properties: { type: { const: 'row' } } }, then: ROW_PANEL, else: QUERY_PANEL } },
  },
};

const queryPanels = () => dashboard.panels.filter((p) => p.type !== 'row');

/** The metric names a PromQL expression selects (each is written with a `{...}` selector). */
function metricsOf(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!);
}

/** Brackets balance and every selector's matchers read `label op "value"`. */
function promqlProblems(expr: string): string[] {
  const problems: string[] = [];
  const open: string[] = [];
  const pairs: Record<string, string> = { ')': '(', '}': '{', ']': '[' };
  for (const ch of expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if ('({['.includes(ch)) open.push(ch);
    else if (ch in pairs && open.pop() !== pairs[ch]) problems.push(`unbalanced ${ch}`);
  }
  if (open.length) problems.push(`unclosed ${open.join('')}`);
  for (const [, matchers] of expr.matchAll(/\{([^}]*)\}/g)) {
    for (const matcher of matchers!.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/).map((m) => m.trim())) {
      if (!/^[a-zA-Z_][a-zA-Z0-9_]*\s*(=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"$/.test(matcher)) problems.push(`bad matcher ${matcher}`);
    }
  }
  return problems;
}

describe('the Grafana dashboard and the Prometheus alerts (docs/observability/)', () => {
  const app = useTestApp();
  /** Every sample name `/metrics` exports (histograms with their _bucket, _count, _sum), and the families it declares. */
  const exported = new Set<string>();
  const families: string[] = [];
  beforeAll(async () => {
    const text = await (await app.request('/metrics', { token: app.adminToken })).text();
    for (const line of text.split('\n')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (!type) continue;
      families.push(type[1]!);
      for (const suffix of type[2] === 'histogram' || type[2] === 'summary' ? ['_bucket', '_count', '_sum', ''] : ['']) exported.add(`${type[1]}${suffix}`);
    }
  });

  it("matches Grafana's dashboard model", () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(DASHBOARD_SCHEMA);
    expect(validate(dashboard), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('lays its panels out on the 24-column grid without overlaps, with unique ids and query refIds', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      const refIds = (p.targets ?? []).map((t) => t.refId);
      expect(new Set(refIds).size, p.title).toBe(refIds.length);
    }
    const overlap = (a: GridPos, b: GridPos) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
    for (const [i, a] of dashboard.panels.entries()) {
      for (const b of dashboard.panels.slice(i + 1)) expect(overlap(a.gridPos, b.gridPos), `${a.title} / ${b.title}`).toBe(false);
    }
  });

  it('queries through its data source variable, and uses only the variables it declares', () => {
    const variables = new Set(dashboard.templating.list.map((v) => v.name));
    const datasource = dashboard.templating.list.find((v) => v.type === 'datasource');
    expect(datasource?.name).toBeDefined();
    const builtIn = new Set(['__rate_interval', '__interval', '__range']);
    for (const p of queryPanels()) {
      expect(p.datasource?.uid, p.title).toBe(`\${${datasource!.name}}`);
      for (const t of p.targets!) {
        for (const [, name] of t.expr.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) expect(variables.has(name!) || builtIn.has(name!), `${p.title}: $${name}`).toBe(true);
        expect(promqlProblems(t.expr), `${p.title}: ${t.expr}`).toEqual([]);
      }
    }
  });

  it('charts only metrics /metrics exports, and every one of the service\'s own', () => {
    const used = new Set(queryPanels().flatMap((p) => p.targets!.flatMap((t) => metricsOf(t.expr))));
    for (const name of used) expect(exported.has(name), `${name} is not exported`).toBe(true);
    const own = families.filter((f) => !f.startsWith('process_') && !f.startsWith('nodejs_'));
    expect(own.length).toBeGreaterThan(10);
    const charted = (family: string) => [...used].some((name) => name === family || name.startsWith(`${family}_`));
    for (const family of own) expect(charted(family), `${family} is not on the dashboard`).toBe(true);
  });

  it('has the alerting rules the operator needs, well-formed, on exported metrics', () => {
    const rules = alerts.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert)).toEqual(expect.arrayContaining(['EventBacklogGrowing', 'DeadLetters', 'ReturnsPlatformNotReady', 'WebhookDeliveryLag']));
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^[A-Z][A-Za-z0-9]+$/);
      expect(rule.for ?? '0m').toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning', 'info']).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
      expect(promqlProblems(rule.expr), `${rule.alert}: ${rule.expr}`).toEqual([]);
      // `up` is Prometheus's own series for every scrape target.
      for (const name of metricsOf(rule.expr)) expect(name === 'up' || exported.has(name), `${rule.alert}: ${name} is not exported`).toBe(true);
    }
  });
});
