import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../platform/project-root.js';
import { documentText, type JsonObject } from './openapi.js';
import { compatDocument } from './compat/openapi.js';
import { v2Document } from './v2/openapi.js';

/**
 * The OpenAPI documents of the service's REST APIs: where each is served and
 * where its copy is committed (`docs/openapi/`). `npm run openapi` rewrites
 * the copies; a test fails when one is stale.
 */
export interface ApiDocument {
  /** File name under docs/openapi/. */
  file: string;
  /** Path the service serves it at. */
  servedAt: string;
  build(): JsonObject;
}

export const API_DOCUMENTS: readonly ApiDocument[] = [
  { file: 'v2.2.json', servedAt: '/v2.2/openapi.json', build: v2Document },
  { file: 'api-v1.json', servedAt: '/api/v1/openapi.json', build: compatDocument },
];

export const DOCUMENTS_DIR = join('docs', 'openapi');

function main(): void {
  for (const doc of API_DOCUMENTS) {
    writeFileSync(join(projectRoot(), DOCUMENTS_DIR, doc.file), documentText(doc.build()));
    console.log(`wrote ${DOCUMENTS_DIR}/${doc.file}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
