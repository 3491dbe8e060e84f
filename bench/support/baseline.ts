import type { Express } from 'express';
import type pg from 'pg';
import { setCursorSigningKey } from '../../platform/api/cursor.js';

/** Starts a baseline server: the service's cursor key (so both sign the same cursors), loopback, stopped by SIGTERM. */
export async function serveBaseline(app: Express, pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ value: string }>(`select value from platform.setting where key = 'cursor_key'`);
  setCursorSigningKey(Buffer.from(rows[0]!.value, 'base64'));
  app.listen(Number(process.env.PORT), '127.0.0.1');
  process.on('SIGTERM', () => process.exit(0));
}
