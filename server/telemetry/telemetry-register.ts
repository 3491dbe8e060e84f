import { tracingSettings } from '../../platform/config.js';

/**
 * Loaded with `node --import` before the service (the npm scripts do:
 * docs/observability.md): starts tracing when the `OTEL_*` variables ask for
 * it, before the modules it instruments load. Otherwise it loads nothing
 * more: no SDK, no loader hooks.
 */
const settings = tracingSettings();
if (settings) {
  // The SDK reads its settings from the process environment only.
  for (const [name, value] of Object.entries(settings.variables)) process.env[name] ??= value;
  const { instrumentProcess } = await import('./telemetry.js');
  instrumentProcess({ serviceName: settings.serviceName });
}
