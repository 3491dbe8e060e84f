import 'reflect-metadata';
import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, SUBGRAPH_NAMES } from '../platform/config.js';
import { projectRoot } from '../platform/project-root.js';
import { buildGraph, PLATFORM_GRAPH, type GraphName } from '../platform/module.js';
import { MODULES } from '../server/modules.js';

export interface Composition {
  subgraphs: Record<GraphName, string>;
  supergraph: string;
}

/**
 * Composes the supergraph from the subgraphs' code (no database needed). The
 * gateway runs the committed result; a test fails when it is stale.
 */
export async function composeSupergraph(): Promise<Composition> {
  // The platform subgraph has no URL: every gateway runs it in-process.
  const urls: Record<GraphName, string> = { ...loadConfig({}).subgraphUrls, [PLATFORM_GRAPH]: 'in-process' };
  const subgraphs = {} as Record<GraphName, string>;
  const modules = MODULES.map((definition) => ({ definition }));
  for (const name of [...SUBGRAPH_NAMES, PLATFORM_GRAPH] as GraphName[]) subgraphs[name] = (await buildGraph(name, modules)).sdl;
  const result = composeServices(Object.entries(subgraphs).map(([name, sdl]) => ({ name, url: urls[name as GraphName], typeDefs: parse(sdl) })));
  if (result.errors) {
    throw new Error(`Composition failed:\n${result.errors.map((e) => `- ${e.message}`).join('\n')}`);
  }
  return { subgraphs, supergraph: result.supergraphSdl };
}

export function schemaFiles(composition: Composition): Record<string, string> {
  const files: Record<string, string> = { 'supergraph.graphql': composition.supergraph };
  for (const [name, sdl] of Object.entries(composition.subgraphs)) files[`${name}.graphql`] = sdl;
  return files;
}

async function main() {
  const composition = await composeSupergraph();
  for (const [file, content] of Object.entries(schemaFiles(composition))) {
    writeFileSync(join(projectRoot(), 'schema', file), content.endsWith('\n') ? content : `${content}\n`);
    console.log(`wrote schema/${file}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
