import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVICE_NAME, environment, loadConfig, StartupError, tracingSettings } from '../platform/config.js';
import { createLogger, wantsPretty } from '../platform/observability/logger.js';
import { currentTrace, tracingEnabled } from '../platform/observability/tracing.js';
import { edgeSampling } from '../server/telemetry/telemetry.js';

describe('configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'config-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('listens on loopback unless HOST says otherwise (demo credentials stay off the network)', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('reads a .env file under the environment: a variable set in both takes the environment value', () => {
    const file = join(dir, '.env');
    writeFileSync(file, '# local settings\nPORT=4555\nLOG_LEVEL=debug\nADMIN_TOKEN="from-file"\n');
    const env = environment({ LOG_LEVEL: 'warn' }, file);
    const config = loadConfig(env);
    expect(config.port).toBe(4555);
    expect(config.adminToken).toBe('from-file');
    expect(config.logLevel).toBe('warn');
    // No file: the environment alone.
    expect(environment({ PORT: '1' }, join(dir, 'missing.env'))).toEqual({ PORT: '1' });
  });

  it('chooses readable logs on a terminal or with LOG_FORMAT=pretty, JSON otherwise', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(wantsPretty('auto', { isTTY: true })).toBe(true);
    expect(wantsPretty('auto', { isTTY: false })).toBe(false);
    expect(wantsPretty('pretty', {})).toBe(true);
    expect(wantsPretty('json', { isTTY: true })).toBe(false);
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(StartupError);
  });

  it('gives up on a lost database after DATABASE_LOST_EXIT_MS (60 s unless set; 0 never)', () => {
    expect(loadConfig({}).databaseLostExitMs).toBe(60_000);
    expect(loadConfig({ DATABASE_LOST_EXIT_MS: '0' }).databaseLostExitMs).toBe(0);
    expect(() => loadConfig({ DATABASE_LOST_EXIT_MS: 'soon' })).toThrow(/DATABASE_LOST_EXIT_MS/);
  });

  it('traces only when the standard OTEL_* variables ask for it (an exporter or an OTLP endpoint); OTEL_SDK_DISABLED wins', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(loadConfig({}).tracing).toBe(false);
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'named', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ variables: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, serviceName: DEFAULT_SERVICE_NAME });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces', PORT: '1' })?.variables).toEqual({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'gateway-a' })?.serviceName).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=rp' })?.serviceName).toBeUndefined();
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing).toBe(true);
    // From the .env file too (the SDK, which reads the process environment, is handed them).
    const file = join(dir, 'otel.env');
    writeFileSync(file, 'OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318\nOTEL_TRACES_SAMPLER=parentbased_traceidratio\n');
    expect(tracingSettings(environment({}, file))?.variables).toEqual({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' });
  });

  it('samples at the edge with the parent-based samplers, at their ratio; other samplers are left to the SDK', () => {
    expect(edgeSampling({})).toEqual({ ratio: 1 });
    expect(edgeSampling({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.01' })).toEqual({ ratio: 0.01 });
    expect(edgeSampling({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' })).toEqual({ ratio: 0 });
    // As the SDK reads a missing or invalid ratio: 1.
    expect(edgeSampling({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' })).toEqual({ ratio: 1 });
    expect(edgeSampling({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toEqual({ ratio: 1 });
    expect(edgeSampling({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toEqual({ ratio: 0 });
    expect(edgeSampling({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' })).toBeUndefined();
    expect(edgeSampling({ OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
  });

  it('with tracing off, nothing is carried and log lines have no trace fields', () => {
    expect(tracingEnabled()).toBe(false);
    expect(currentTrace()).toBeUndefined();
    const lines: string[] = [];
    createLogger('info', { destination: { write: (line: string) => void lines.push(line) } }).info('plain');
    expect(Object.keys(JSON.parse(lines[0]!))).toEqual(['level', 'time', 'msg']);
  });
});
