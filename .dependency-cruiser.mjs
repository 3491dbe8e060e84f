/**
 * Import rules (`npm run deps`; docs/architecture.md#dependency-rules). The parts are layered,
 * bottom to top: platform/, subgraphs/, webhooks/, then the facades (rest-facade/, gateway/),
 * then server/. A part imports its own files and those of the parts below it, and of another
 * subgraph or of webhooks/ only their public.ts. Tests, benches and scripts may reach anything,
 * but no file, anywhere, is part of an import circle (type-only imports count).
 */
const PUBLIC = '^(subgraphs/[^/]+|webhooks)/public\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: each file of it needs the others to load. Move what both sides need to a file below them.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-is-the-bottom',
      severity: 'error',
      comment: 'platform/ is shared code: it never imports a part built on it.',
      from: { path: '^platform/' },
      to: { path: '^(subgraphs|webhooks|rest-facade|gateway|server)/' },
    },
    {
      name: 'subgraphs-below-the-rest',
      severity: 'error',
      comment: 'A subgraph knows nothing of webhooks, the facades or the processes that run it.',
      from: { path: '^subgraphs/' },
      to: { path: '^(webhooks|rest-facade|gateway|server)/' },
    },
    {
      name: 'subgraph-to-subgraph-through-public',
      severity: 'error',
      comment: "A subgraph uses another subgraph only through that subgraph's public.ts.",
      from: { path: '^subgraphs/([^/]+)/' },
      to: { path: '^subgraphs/', pathNot: ['^subgraphs/$1/', PUBLIC] },
    },
    {
      name: 'webhooks-through-public',
      severity: 'error',
      comment:
        "webhooks/ reads the subgraphs through their public.ts only, and knows nothing of the facades or the processes; " +
        "except the compatibility API's pure Loop formatters, so a Loop delivery shows a return exactly as Loop's `details` does (one place decides Loop's format).",
      from: { path: '^webhooks/' },
      to: { path: '^(subgraphs/|rest-facade/|gateway/|server/)', pathNot: [PUBLIC, '^rest-facade/compat/(format|params)\\.ts$'] },
    },
    {
      name: 'facades-through-public',
      severity: 'error',
      comment: "The REST facade and the gateway use a subgraph or webhooks/ only through its public.ts, and never server/.",
      from: { path: '^(rest-facade|gateway)/' },
      to: { path: '^(subgraphs/|webhooks/|server/)', pathNot: PUBLIC },
    },
    {
      name: 'rows-read-rows',
      severity: 'error',
      comment: 'A *.rows.ts file holds stored shapes and the SQL that reads them: views, documents, GraphQL types and services are built on it, never the other way.',
      from: { path: '\\.rows\\.ts$' },
      to: { path: '\\.(view|json|type|input|resolver|reference|service|job)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    // `import type` is an edge too: a circle of types is still a circle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
