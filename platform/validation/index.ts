/**
 * The one validation toolkit: rules for each kind of value (rules.ts),
 * input hygiene every entry point applies first (json-hygiene.ts), JSON
 * Schemas built with TypeBox (schema.ts) and checked with Ajv (validate.ts),
 * and a collector for the checks a schema cannot express (violations.ts).
 */
export * from './rules.js';
export * from './json-hygiene.js';
export * from './schema.js';
export * from './validate.js';
export * from './violations.js';
