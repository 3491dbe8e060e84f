import { Router, type Request, type Response } from 'express';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { JsonObject } from '../../rest-facade/openapi.js';
import { DASHBOARD_ASSETS, dashboardPage } from './dashboard.js';

/**
 * What a developer reaches with a browser: an index at `/` (and `/v2.2`), the
 * OpenAPI documents, an interactive API reference at `/docs` (Scalar), a
 * GraphQL explorer at `/graphql` for browsers (GraphiQL), and the analytics
 * dashboard at `/dashboard` (Chart.js, server/pages/dashboard.ts). Every asset is served
 * from the npm packages installed with the service, so all of it works with
 * no internet access; a Content-Security-Policy keeps the pages from reaching
 * anywhere else.
 */

interface PortalDocument {
  /** Where the document is served (`/v2.2/openapi.json`). */
  servedAt: string;
  document: JsonObject;
}

export interface PortalOptions {
  documents: readonly PortalDocument[];
}

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** Each asset by the URL it is served at; the versions pin what the pages run. */
const ASSETS: Record<string, { file: string; type: string }> = {
  '/docs/assets/scalar.js': { file: join(dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js'), type: 'text/javascript' },
  '/graphql/assets/graphiql.js': { file: join(packageDir('graphiql'), 'graphiql.min.js'), type: 'text/javascript' },
  '/graphql/assets/graphiql.css': { file: join(packageDir('graphiql'), 'graphiql.min.css'), type: 'text/css' },
  '/graphql/assets/react.js': { file: join(packageDir('react'), 'umd', 'react.production.min.js'), type: 'text/javascript' },
  '/graphql/assets/react-dom.js': { file: join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js'), type: 'text/javascript' },
  ...DASHBOARD_ASSETS,
};

/** Pages load only this service's own scripts, styles and data (plus inline configuration). */
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

function sendPage(res: Response, html: string): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.type('html').send(html);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script> element: `<` escaped so no string can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

interface Link {
  href: string;
  title: string;
  description: string;
}

function indexLinks(documents: readonly PortalDocument[]): Link[] {
  return [
    { href: '/docs', title: 'API reference', description: 'Every REST operation, its parameters, bodies and answers; try calls with an API secret.' },
    ...documents.map((d) => ({
      href: d.servedAt,
      title: `OpenAPI document: ${String((d.document.info as { title?: string }).title)}`,
      description: `OpenAPI ${String(d.document.openapi)}, for code generators and API tools.`,
    })),
    { href: '/graphql', title: 'GraphQL explorer', description: 'The federated graph (returns, inventory, events) with an API secret or the admin token.' },
    { href: '/dashboard', title: 'Dashboard', description: "A store's returns, events, stock, webhooks and flows over time, with an API secret or the admin token." },
    { href: '/metrics', title: 'Metrics', description: 'Prometheus metrics (Authorization: Bearer <admin token or METRICS_TOKEN>).' },
    { href: '/healthz', title: 'Health', description: '/healthz: the process is up; /readyz: the database and the queue answer.' },
  ];
}

function indexPage(links: Link[]): string {
  const items = links.map((l) => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.title)}</a><br><span>${escapeHtml(l.description)}</span></li>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Returns platform</title><link rel="icon" href="data:,">
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1f2328}
li{margin:0 0 1rem}span{color:#59636e}code{background:#f6f8fa;padding:.1rem .3rem;border-radius:4px}</style></head>
<body><h1>Returns platform</h1>
<p>REST API <code>/v2.2</code>, GraphQL <code>/graphql</code>. Calls send <code>Authorization: Bearer &lt;API secret&gt;</code>.</p>
<ul>
${items}
</ul></body></html>`;
}

function referencePage(documents: readonly PortalDocument[]): string {
  const config = {
    sources: documents.map((d) => ({ url: d.servedAt, title: String((d.document.info as { title?: string }).title) })),
    // Nothing from outside: no web fonts, no telemetry, no hosted proxy, no AI features.
    withDefaultFonts: false,
    telemetry: false,
    mcp: { disabled: true },
    agent: { disabled: true },
    hideClientButton: true,
    showDeveloperTools: 'never',
    persistAuth: true,
    defaultOpenAllTags: true,
    documentDownloadType: 'json',
  };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Returns platform</title><link rel="icon" href="data:,"></head>
<body><div id="app"></div>
<script src="/docs/assets/scalar.js"></script>
<script>Scalar.createApiReference('#app', ${scriptJson(config)});</script>
</body></html>`;
}

function explorerPage(): string {
  const headers = JSON.stringify({ Authorization: 'Bearer <API secret or admin token>' }, null, 2);
  // The query of a shared link (`/graphql?query=...`) opens in the editor.
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphQL explorer · Returns platform</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/graphql/assets/graphiql.css">
<style>body{margin:0;height:100vh}#graphiql{height:100vh}</style></head>
<body><div id="graphiql"></div>
<script src="/graphql/assets/react.js"></script>
<script src="/graphql/assets/react-dom.js"></script>
<script src="/graphql/assets/graphiql.js"></script>
<script>
  // Credentials go in the Headers tab and stay in this browser (localStorage) between visits. Until a
  // real token is there, say so instead of sending a request the service can only refuse.
  const http = GraphiQL.createFetcher({ url: '/graphql' });
  const fetcher = (params, options) => {
    const headers = (options && options.headers) || {};
    const auth = headers.Authorization || headers.authorization || '';
    if (!/^Bearer [^<> ]+$/.test(auth)) {
      return Promise.resolve({ errors: [{ message: 'Put an API secret or the admin token in the Headers tab: {"Authorization": "Bearer <token>"}' }] });
    }
    return http(params, options);
  };
  const root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher,
    defaultHeaders: ${scriptJson(headers)},
    shouldPersistHeaders: true,
    defaultEditorToolsVisibility: 'headers',
    defaultQuery: ${scriptJson('# Put an API secret or the admin token in the Headers tab below, then run:\nquery Me {\n  __typename\n}\n')},
    query: new URLSearchParams(location.search).get('query') || undefined,
  }));
</script>
</body></html>`;
}

/** Whether a browser is asking for a page (it lists text/html before JSON). */
function wantsHtml(req: Request): boolean {
  return req.accepts(['application/json', 'text/html']) === 'text/html';
}

/** The router `createHttpApp` mounts before `/graphql` and the REST APIs. */
export function developerPortal(options: PortalOptions): Router {
  const router = Router();
  const links = indexLinks(options.documents);

  const index = (req: Request, res: Response) => {
    if (wantsHtml(req)) return sendPage(res, indexPage(links));
    res.json({ name: 'Returns platform', links: links.map(({ href, title }) => ({ href, title })) });
  };
  router.get('/', index);
  router.get('/v2.2', index);

  for (const doc of options.documents) {
    const text = JSON.stringify(doc.document);
    router.get(doc.servedAt, (_req, res) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.type('json').send(text);
    });
  }

  router.get('/docs', (_req, res) => sendPage(res, referencePage(options.documents)));
  router.get('/graphql', (req, res, next) => (wantsHtml(req) ? sendPage(res, explorerPage()) : next()));
  router.get('/dashboard', (_req, res) => sendPage(res, dashboardPage()));

  for (const [path, asset] of Object.entries(ASSETS)) {
    router.get(path, (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=3600');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.type(asset.type).sendFile(asset.file);
    });
  }
  return router;
}
