import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { environment, loadConfig, StartupError } from '../platform/config.js';
import { wantsPretty } from '../platform/logger.js';

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
});
