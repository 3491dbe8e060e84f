import pg from 'pg';
import type { Principal } from '../api/auth.js';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../config.js';
import { connectionConfig } from '../db/pool.js';
import type { Logger } from '../observability/logger.js';

export const CREDENTIALS_CHANNEL = 'platform_credentials';
const MAX_ENTRIES = 10_000;

/**
 * Principals by credential (header and hash), so a request needs no database round trip to
 * authenticate. Any change that can make an entry wrong (a revoked secret, a
 * new store of an account) notifies `platform_credentials` in its own
 * transaction, and every process drops its whole cache when the notification
 * arrives. While this process is not listening (starting, reconnecting) the
 * cache is bypassed, so a missed notification can never leave a stale entry.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Principal>();
  /** Bumped by every flush: a lookup that started before a flush must not store its (maybe stale) answer. */
  private generation = 0;
  private listening = false;
  private client: pg.Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    private readonly timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  ) {}

  async start(): Promise<void> {
    // Keepalive matters most here: a listener on a half-open socket would keep serving a cache no revocation can flush.
    const client = new pg.Client(connectionConfig(this.url, 'credential-cache', this.timeouts));
    client.on('notification', () => this.flush());
    const lost = (err?: unknown) => {
      if (this.client !== client) return;
      this.listening = false;
      this.client = undefined;
      this.flush();
      if (err) this.logger.warn({ err }, 'credential cache listener lost; authenticating from the database until it is back');
      // A failed start schedules the next one itself (below), so the error needs no handler here.
      if (!this.stopped) this.retry = setTimeout(() => void this.start().catch(() => undefined), 1000);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      // LISTEN needs a primary: on a standby (a failover in progress) it fails and is tried again.
      await client.query(`listen ${CREDENTIALS_CHANNEL}`);
    } catch (err) {
      lost(err);
      void client.end().catch(() => undefined);
      throw err;
    }
    this.flush();
    this.listening = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.listening = false;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  /** The generation to hand back to `set` after a database lookup. */
  get currentGeneration(): number {
    return this.generation;
  }

  get(key: string): Principal | undefined {
    return this.listening ? this.entries.get(key) : undefined;
  }

  set(key: string, principal: Principal, generation: number): void {
    if (!this.listening || generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, principal);
  }

  flush(): void {
    this.generation++;
    this.entries.clear();
  }
}
