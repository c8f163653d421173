/**
 * PostgreSQL LISTEN/NOTIFY as a change signal between processes that share a database: a writer calls
 * `notifyChannel` after its commit, and every process holding a `ChannelListener` on that channel sees its
 * `version()` change. A cache that stores each entry under the version it read before the database, and
 * reuses it only while the version is the same, is then invalidated by every write of any process, with
 * no round trip of its own on the read path (a shared counter in Redis costs one a request).
 *
 * A notification sent while the listener's connection is down is lost, so the version is null (cache off)
 * from the moment the connection fails until it is listening again, and the reconnection itself changes
 * the version (whatever was cached before the gap is not reused). A connection counts as listening only
 * once a notification it sent itself came back: through a pooler in transaction mode (PgBouncer's), whose
 * LISTEN reaches no session that stays, none comes back, and the version stays null (the cache stays off
 * rather than missing changes).
 */

import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import pg from 'pg';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;
/** how long a new connection waits for its own probe notification */
const PROBE_TIMEOUT_MS = 5_000;
/** channel names are identifiers; LISTEN takes one quoted, pg_notify the same text */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/** After a write's commit: every listener on `channel` changes its version. */
export async function notifyChannel(db: Kysely<any>, channel: string): Promise<void> {
  await sql`select pg_notify(${channel}, '')`.execute(db);
}

export class ChannelListener {
  private client: pg.Client | null = null;
  private listening = false;
  private stopped = false;
  /** changes with every notification and every (re)connection */
  private generation = 0;
  private retryMs = RETRY_MIN_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private connecting: Promise<void> | null = null;
  /** the payload of the probe a new connection waits for, and what to call when it arrives */
  private probe: { payload: string; heard: () => void } | null = null;

  constructor(
    private readonly connectionString: string,
    private readonly channel: string,
    private readonly onError: (err: Error) => void = () => {},
  ) {
    if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${channel}`);
  }

  /**
   * A change made by this process, after its commit: the version moves at once (the notification this
   * process sent reaches its own listener a moment later, and the others' listeners).
   */
  changed(): void {
    this.generation++;
  }

  /** The current version, or null while not listening (a change may go unseen: read the source). */
  version(): string | null {
    return this.listening ? String(this.generation) : null;
  }

  /** Connects and listens; a failure is reported and retried with backoff (the version stays null). */
  start(): Promise<void> {
    this.stopped = false;
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await this.connecting;
    this.listening = false;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'service-api listener' });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.listening = false;
      this.generation++;
      client.end().catch(() => {});
      if (err) this.onError(err);
      this.scheduleRetry();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => {
      if (n.channel !== this.channel) return;
      this.generation++;
      if (this.probe && n.payload === this.probe.payload) this.probe.heard();
    });
    try {
      await client.connect();
      if (this.stopped) {
        await client.end().catch(() => {});
        return;
      }
      this.client = client;
      await client.query(`LISTEN "${this.channel}"`);
      await this.probeWith(client);
      if (this.client !== client) return;
      this.generation++;
      this.listening = true;
      this.retryMs = RETRY_MIN_MS;
    } catch (err) {
      if (this.client === client) this.client = null;
      this.listening = false;
      client.end().catch(() => {});
      // a connection lost while it was set up: `lost` reported it and scheduled the retry already
      if (this.retryTimer) return;
      this.onError(err as Error);
      this.scheduleRetry();
    }
  }

  /** Sends a notification on the connection and waits for it to come back; throws when it does not. */
  private async probeWith(client: pg.Client): Promise<void> {
    const payload = `probe:${randomBytes(8).toString('hex')}`;
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
      this.probe = { payload, heard: () => resolve(true) };
    });
    try {
      await client.query('select pg_notify($1, $2)', [this.channel, payload]);
      if (!(await heard)) throw new Error('LISTEN got no notification back on its own connection (a pooler in transaction mode?)');
    } finally {
      clearTimeout(timer);
      this.probe = null;
    }
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) void this.start();
    }, wait);
    this.retryTimer.unref();
  }
}
