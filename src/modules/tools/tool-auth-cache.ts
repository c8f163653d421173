/**
 * Short-lived cache of tool API key records (key, scopes, revocation, owner's tier), so that a request
 * does not read the database before its work.
 *
 * Where the time went (CPU profile of `npm run bench:tools`, UTM 100 links, embedded PGlite): the key
 * lookup was about a third of the tool API's CPU per request (PGlite's WASM engine and its protocol
 * parsing run in the API process), more than the UTM builder itself; the rest was the response write,
 * JSON parse/stringify (the same for the bare route), the in-memory limit counters (~2%) and the NUL
 * guard on the body (~1%).
 *
 * Correctness: every entry carries the auth version it was read under; writers that change a tier or
 * revoke a key change that version after their commit, so the next request of every server misses the
 * cache and reads the database. The version is read before the database, so a read racing a change is
 * stored under the old version and never reused. Where the version lives:
 * - on PostgreSQL, a LISTEN connection of each server (platform/db/channel-listener.ts): writers notify
 *   the channel after their commit, wherever they run (a server, the CLI); reading the version costs no
 *   round trip, and while the connection is down there is no version and the cache is off;
 * - on the embedded database, the in-process counter store, bumped after every query of a socket client
 *   (the CLI reaches a running server's database only that way).
 * Entries also expire after a minute, a bound for changes made by hand in SQL. (With 5 s, a key used less
 * often than that read the database on every request: about 5% of the server's time in the 500-link
 * benchmark, whose rounds revisit each key every ~5 s.)
 */

import type { CounterStore } from '../../platform/counters/index.js';
import type { Db } from '../database.js';
import type { UsersReadPort } from '../identity/identity.module.js';
import { ToolKeyLookup, type ToolKeyRecord } from './tool-keys.repository.js';

const TOOL_AUTH_VERSION_KEY = 'tools:auth-version';
/** the PostgreSQL channel writers notify after a change of a tool key or a tier */
export const TOOL_AUTH_CHANNEL = 'service_api_tool_auth';
const VERSION_TTL_MS = 30 * 24 * 3600_000;
/** a bound for changes made by hand in SQL (every writer in the code bumps the version) */
const ENTRY_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/** Called by every writer of tool keys and tiers on the embedded database, after its commit. */
export async function bumpToolAuthVersion(store: CounterStore): Promise<void> {
  await store.increment(TOOL_AUTH_VERSION_KEY, 1, VERSION_TTL_MS);
}

/** The auth version as a counter in a store (the embedded database's in-process store). */
export function storeAuthVersion(store: CounterStore): AuthVersion {
  // the in-process store answers at once, so remembered keys are answered without a promise
  if (store.getNow) {
    const getNow = store.getNow.bind(store);
    return () => String(getNow(TOOL_AUTH_VERSION_KEY));
  }
  return async () => String(await store.get(TOOL_AUTH_VERSION_KEY));
}

/** The current auth version; null when it cannot be known now (the cache is then not used). */
export type AuthVersion = () => string | null | Promise<string | null>;

interface Entry {
  record: ToolKeyRecord;
  version: string;
  expiresAt: number;
}

export class ToolAuthCache {
  private readonly entries = new Map<string, Entry>();
  private readonly lookup: ToolKeyLookup;

  /** `version`: where writers' changes show (null: no caching); `users`: the owners' tiers */
  constructor(
    private readonly version: AuthVersion | null,
    private readonly now: () => number,
    users: Pick<UsersReadPort, 'tierOf'>,
  ) {
    this.lookup = new ToolKeyLookup(users);
  }

  /**
   * The key with its owner's current tier, from the cache while no writer changed the version: answered at once
   * (no promise) when the version is read in process and the key is remembered under it, most requests.
   */
  findByPrefix(db: Db, prefix: string): ToolKeyRecord | null | Promise<ToolKeyRecord | null> {
    const read = this.version === null ? null : this.version();
    if (read instanceof Promise) return read.then((version) => this.findUnder(db, prefix, version));
    return this.findUnder(db, prefix, read);
  }

  private findUnder(db: Db, prefix: string, version: string | null): ToolKeyRecord | null | Promise<ToolKeyRecord | null> {
    if (version === null) return this.lookup.findByPrefix(db, prefix);
    const hit = this.entries.get(prefix);
    if (hit && hit.version === version && hit.expiresAt > this.now()) return hit.record;
    return this.lookup.findByPrefix(db, prefix).then((record) => {
      const now = this.now();
      if (record && record.revokedAt === null) {
        if (this.entries.size >= MAX_ENTRIES && !hit) this.evictSome(now);
        this.entries.set(prefix, { record, version, expiresAt: now + ENTRY_TTL_MS });
      } else this.entries.delete(prefix);
      return record;
    });
  }

  private evictSome(now: number): void {
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
    // all live: drop the oldest insertions (Map keeps insertion order)
    for (const k of this.entries.keys()) {
      if (this.entries.size < MAX_ENTRIES) break;
      this.entries.delete(k);
    }
  }
}
