/**
 * Opens the service's database: PGlite in the data dir (embedded default) or PostgreSQL (DATABASE_URL).
 * Both are reached through Kysely with the same migrations and SQL; `sqlExecutor` gives pg-boss the
 * same path (and, inside a transaction, the transaction's own connection).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { parseTimestamptz, TIMESTAMPTZ_OID } from './pg-timestamp.js';
import { PgliteDialect, PgliteLock } from './pglite-dialect.js';
import { PreparingClient } from './prepared.js';

// COUNT(*) and BIGINT come back as strings from pg and as numbers from PGlite: parse int8 to number
// in pg so repositories see one type (our counts stay far below 2^53).
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
// timestamptz without pg's regular expressions (pg-timestamp.ts)
pg.types.setTypeParser(TIMESTAMPTZ_OID, parseTimestamptz);

/**
 * The database layer is generic over the schema: it knows no area's tables. The areas' Database type
 * and the typed Db/Tx/Executor aliases they use are assembled in src/modules/database.ts.
 */
export type AnyDb = Kysely<any>;
/** A Kysely executor of any schema: the database or an open transaction. */
export type AnyExecutor = Kysely<any> | Transaction<any>;

/** The shape pg-boss calls to run SQL (its `db` option). */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

export interface DatabaseHandle<DB = any> {
  kind: 'pglite' | 'postgres';
  db: Kysely<DB>;
  /** pg-boss's executor outside transactions */
  sql: SqlExecutor;
  /** connection string pg-boss uses for its own pool (postgres only) */
  connectionString: string | null;
  /** embedded only: the PGlite instance and its lock (the socket server shares both) */
  pglite: PGlite | null;
  lock: PgliteLock | null;
  close(): Promise<void>;
}

/** pg-boss executor bound to a transaction, so a job is sent in the same transaction as its row. */
export function txSql(tx: AnyExecutor): SqlExecutor {
  return {
    async executeSql(text, values) {
      const res = await tx.executeQuery(CompiledQuery.raw(text, values ?? []));
      return { rows: res.rows as any[] };
    },
  };
}

/**
 * Opens PGlite in `dataDir`, or in memory when dataDir is `memory://` (tests); `template` loads an
 * in-memory database from a dump (tests clone one migrated template instead of running initdb each time).
 */
export async function openPglite(dataDir: string, template?: Blob): Promise<DatabaseHandle> {
  // the engine's module loads only here: a process on PostgreSQL does not hold it
  const { PGlite } = await import('@electric-sql/pglite');
  let pglite: PGlite;
  if (dataDir === 'memory://') pglite = await PGlite.create(template ? { loadDataDir: template } : {});
  else {
    fs.mkdirSync(dataDir, { recursive: true });
    // a small buffer pool keeps the embedded engine's resident memory near 200 MB (PGlite's default
    // configuration holds several hundred MB); the embedded default serves one process's load
    pglite = await PGlite.create(path.join(dataDir, 'pgdata'), {
      postgresqlconf: ['shared_buffers=16MB', 'work_mem=4MB', 'maintenance_work_mem=16MB'],
    } as never);
  }
  const lock = new PgliteLock();
  const db = new Kysely<any>({ dialect: new PgliteDialect(pglite, lock) });
  const sql: SqlExecutor = {
    async executeSql(text, values) {
      return lock.run(async () => {
        if (values && values.length > 0) return { rows: (await pglite.query(text, values)).rows as any[] };
        // pg-boss sends multi-statement scripts without parameters; PGlite runs those only through exec
        const results = await pglite.exec(text);
        return { rows: (results.at(-1)?.rows ?? []) as any[] };
      });
    },
  };
  return {
    kind: 'pglite',
    db,
    sql,
    connectionString: null,
    pglite,
    lock,
    async close() {
      await db.destroy();
      await lock.run(async () => {
        if (!pglite.closed) await pglite.close();
      });
    },
  };
}

/**
 * A pool on PostgreSQL. `preparedStatements` (default on): statements marked `prepared` run as named
 * prepared statements (prepared.ts); off for a pooler that does not keep them, and always through a Unix
 * socket: the embedded database's socket serves one session to every connection, where names would collide.
 */
export function openPostgres(connectionString: string, poolSize: number, opts: { preparedStatements?: boolean } = {}): DatabaseHandle {
  const named = opts.preparedStatements !== false && !isUnixSocketUrl(connectionString);
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    application_name: 'service-api',
    ...(named ? { Client: PreparingClient } : {}),
  });
  pool.on('error', () => {
    /* idle client errors surface on the next query; readiness reports them */
  });
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'postgres',
    db,
    sql: {
      async executeSql(text, values) {
        const res = await pool.query(text, values as unknown[] | undefined);
        // multi-statement scripts return an array of results
        const last = Array.isArray(res) ? res.at(-1) : res;
        return { rows: last?.rows ?? [] };
      },
    },
    connectionString,
    pglite: null,
    lock: null,
    async close() {
      await db.destroy();
    },
  };
}

/** True when a server of ours answers on the embedded database socket. */
export async function embeddedSocketAlive(socketPath: string): Promise<boolean> {
  if (!fs.existsSync(socketPath)) return false;
  return new Promise((resolve) => {
    const s = net.connect(socketPath);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Whether a connection string reaches its server through a Unix socket (a host that is a directory). */
export function isUnixSocketUrl(connectionString: string): boolean {
  if (connectionString.startsWith('socket:')) return true;
  try {
    const url = new URL(connectionString);
    const host = url.searchParams.get('host') ?? decodeURIComponent(url.hostname);
    return host.startsWith('/');
  } catch {
    return false;
  }
}

/** Connection string for pg clients (the CLI, psql) to the embedded database served on its socket. */
export function embeddedSocketUrl(socketPath: string): string {
  const dir = path.dirname(socketPath);
  const port = /\.s\.PGSQL\.(\d+)$/.exec(socketPath)?.[1] ?? '5432';
  return `postgresql://postgres@localhost:${port}/postgres?host=${encodeURIComponent(dir)}`;
}

/** The settings that choose the database (the service's Config is one; the platform reads no configuration itself). */
export interface DatabaseSettings {
  readonly env: {
    readonly DATABASE_URL?: string | undefined;
    readonly SERVICE_DB_POOL_SIZE: number;
    readonly DATABASE_PREPARED_STATEMENTS: boolean;
  };
  readonly embedded: boolean;
  readonly dataDir: string;
  readonly dbSocketPath: string;
}

/**
 * Opens the database the way this process should: PostgreSQL with DATABASE_URL; otherwise the running
 * server's embedded database through its socket (CLI next to a running server) when `preferSocket`,
 * else PGlite in-process.
 */
export async function openDatabase(config: DatabaseSettings, opts: { preferSocket?: boolean } = {}): Promise<DatabaseHandle> {
  if (config.env.DATABASE_URL) {
    return openPostgres(config.env.DATABASE_URL, config.env.SERVICE_DB_POOL_SIZE, {
      preparedStatements: config.env.DATABASE_PREPARED_STATEMENTS,
    });
  }
  if (opts.preferSocket && (await embeddedSocketAlive(config.dbSocketPath))) {
    return openPostgres(embeddedSocketUrl(config.dbSocketPath), 1);
  }
  return openPglite(config.dataDir);
}
