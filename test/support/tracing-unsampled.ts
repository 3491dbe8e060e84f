/**
 * Tracing for a test file as `tracing.ts` sets it up, with a sampler that
 * starts no trace of its own (`parentbased_always_off`): only what a caller's
 * sampled `traceparent` asks for is traced. Import it before anything else.
 */
process.env.OTEL_TRACES_SAMPLER = 'parentbased_always_off';
export const { spans, spansOf, parseTraceparent } = await import('./tracing.js');
