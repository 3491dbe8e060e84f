import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../platform/project-root.js';
import { composeSupergraph, schemaFiles } from '../schema/compose.js';

describe('supergraph composition', () => {
  it('composes the three subgraphs and the platform subgraph without errors', async () => {
    const { supergraph } = await composeSupergraph();
    for (const name of ['RETURNS', 'INVENTORY', 'EVENTS', 'PLATFORM']) expect(supergraph).toContain(`${name} @join__graph`);
  });

  it('matches the committed schema files (run `npm run compose` after changing a subgraph)', async () => {
    const files = schemaFiles(await composeSupergraph());
    for (const [file, content] of Object.entries(files)) {
      const committed = readFileSync(join(projectRoot(), 'schema', file), 'utf8');
      expect(committed.trimEnd(), `schema/${file} is stale`).toBe(content.trimEnd());
    }
  });
});
