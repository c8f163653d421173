/** CPU time of the PostgreSQL backends serving a benchmark's database, read from /proc (Linux; 0 elsewhere). */
import { readFileSync } from 'node:fs';
import { type Kysely, sql } from 'kysely';

/** CPU seconds (user + system) used so far by the PostgreSQL backends connected to `database`. */
export async function backendCpuSeconds(db: Kysely<any>, database: string): Promise<number> {
  const pids = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = ${database}`.execute(db);
  const tick = 100; // USER_HZ
  let total = 0;
  for (const { pid } of pids.rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / tick;
    } catch {
      /* ended meanwhile, or not Linux */
    }
  }
  return total;
}
