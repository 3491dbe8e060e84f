import { Migration } from '@mikro-orm/migrations';

/**
 * Fixed-window request counters shared by every process (platform/api/rate-limit.ts#SharedRateLimiter):
 * one row per (limit key, window), upserted by each request and swept when old.
 */
export class Migration20261201000000_rate_windows extends Migration {
  override name = 'Migration20261201000000_rate_windows';

  override up(): void {
    this.addSql(`create table platform.rate_window (
      key text not null,
      -- Epoch seconds: the window's start and end on the database clock.
      window_start bigint not null,
      window_end bigint not null,
      count integer not null,
      primary key (key, window_start)
    )`);
    // The sweep deletes windows that ended, whatever their key and length.
    this.addSql('create index rate_window_end_index on platform.rate_window (window_end)');
  }
}
