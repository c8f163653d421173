/**
 * CPU time of the PostgreSQL server a benchmark runs on, read from /proc (Linux; NaN elsewhere): the
 * postmaster, every process it started (backends, WAL writer, checkpointer, autovacuum), and those of its
 * processes that ended (a pool closes idle connections, so a backend can end mid-run: the kernel adds its
 * time to the postmaster's children's time when the postmaster reaps it). Summing only the backends
 * connected at the two readings lost the time of every backend that ended between them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { type Kysely, sql } from 'kysely';

const TICK = 100; // USER_HZ

/** fields after the command name: [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime */
function statFields(pid: number | string): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return null; // ended meanwhile, or not Linux
  }
}

/**
 * CPU seconds (user + system) the PostgreSQL server has used so far, with its ended processes. Every
 * database of the server counts: run the benchmark on a server nothing else uses.
 */
export async function serverCpuSeconds(db: Kysely<any>): Promise<number> {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
  const backend = statFields(rows[0]!.pid);
  if (!backend) return Number.NaN;
  const postmaster = Number(backend[1]);
  const own = statFields(postmaster);
  if (!own) return Number.NaN;
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(entry);
    if (f && Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / TICK;
}

/**
 * The server's write-ahead log so far (pg_stat_wal, PostgreSQL 14+; NaN where it is missing, so a figure
 * that could not be read prints as NaN, not as no writes): every row and index entry a statement writes is logged, so the difference of two
 * readings counts a workload's writes without the noise of a shared host's CPU figures.
 */
export async function serverWal(db: Kysely<any>): Promise<{ records: number; bytes: number }> {
  try {
    const { rows } = await sql<{ records: string; bytes: string }>`
      select wal_records::text as records, wal_bytes::text as bytes from pg_stat_wal`.execute(db);
    return { records: Number(rows[0]?.records ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
  } catch {
    return { records: Number.NaN, bytes: Number.NaN };
  }
}

/**
 * A table's row updates so far and how many of them were HOT (written in place: no index entry), from
 * the cumulative statistics. Backends report them at most once a second (an idle one within ~10 s), so a
 * reading just after a workload can miss its last moments.
 */
export async function tableUpdates(db: Kysely<any>, table: string): Promise<{ updates: number; hot: number }> {
  try {
    const { rows } = await sql<{ upd: string; hot: string }>`
      select n_tup_upd::text as upd, n_tup_hot_upd::text as hot from pg_stat_user_tables where relname = ${table}`.execute(db);
    return { updates: Number(rows[0]?.upd ?? Number.NaN), hot: Number(rows[0]?.hot ?? Number.NaN) };
  } catch {
    return { updates: Number.NaN, hot: Number.NaN };
  }
}
