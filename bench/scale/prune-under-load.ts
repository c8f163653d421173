/**
 * "Prune a year of rows while the API is under load": on a copy of the large set (a template copy, so the
 * seeded set stays whole for the next run), the read routes of bench:scale are called one after another for
 * a while without a prune (their p99 before), then while the maintenance job's retention prune runs
 * (`pruneOnce`, the job's own steps and batch limits, once after the other) for up to PRUNE_SECONDS (default
 * 90): their p99 during, the rows each step removed, and the rows left past their retention.
 */
import pg from 'pg';
import { pruneOnce } from '../../src/modules/maintenance/maintenance.module.js';
import { openPostgres } from '../../src/platform/db/database.js';
import { percentile } from '../support/stats.js';
import { benchApi, type Dataset } from './datasets.js';
import { scenarios } from './scenarios.js';

const PRUNE_SECONDS = Number(process.env.PRUNE_SECONDS ?? 90);
const BEFORE_SECONDS = 15;

async function admin<T>(baseUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export async function pruneUnderLoad(baseUrl: string, large: Dataset, log: (s: string) => void): Promise<void> {
  const copy = `${large.name}_prune`;
  const copiedAt = performance.now();
  await admin(baseUrl, async (c) => {
    await c.query(`drop database if exists ${copy} with (force)`);
    await c.query(`create database ${copy} template ${large.name}`);
  });
  log(`  prune under load: ${copy} copied from ${large.name} in ${((performance.now() - copiedAt) / 1000).toFixed(0)} s`);
  const url = new URL(baseUrl);
  url.pathname = `/${copy}`;
  const database = openPostgres(url.toString(), 10);
  const { ctx, auth } = await benchApi(database, url.toString(), large.organizationId);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const reads = (await scenarios(ctx, client, large, auth)).filter((s) => s.kind === 'read route');
    const load = async (until: () => boolean) => {
      const times: number[] = [];
      for (let i = 0; until(); i++) {
        const t0 = performance.now();
        await reads[i % reads.length]!.run(i);
        times.push(performance.now() - t0);
      }
      return times;
    };
    const sizes = async () =>
      (
        await client.query(
          `select relname, n_live_tup::bigint as rows from pg_stat_user_tables
           where relname in ('events', 'webhook_deliveries', 'webhook_attempts', 'automation_runs', 'provider_webhook_deliveries') order by relname`,
        )
      ).rows.map((r) => `${r.relname} ${Number(r.rows).toLocaleString('en-US')}`);
    await client.query('analyze');
    log(`  prune under load: before: ${(await sizes()).join(', ')}`);

    const beforeEnd = performance.now() + BEFORE_SECONDS * 1000;
    const before = await load(() => performance.now() < beforeEnd);

    let pruning = true;
    const removed = new Map<string, number>();
    let runs = 0;
    const started = performance.now();
    const prune = (async () => {
      try {
        while (performance.now() - started < PRUNE_SECONDS * 1000) {
          const counts = await pruneOnce({ ...ctx.deps, prunes: ctx.root.prunes }, new Date());
          runs++;
          let total = 0;
          for (const [step, n] of Object.entries(counts)) {
            removed.set(step, (removed.get(step) ?? 0) + n);
            total += n;
          }
          if (total === 0) break;
        }
      } finally {
        pruning = false;
      }
    })();
    const during = await load(() => pruning);
    await prune;
    const seconds = (performance.now() - started) / 1000;
    const total = [...removed.values()].reduce((a, b) => a + b, 0);
    const f = (t: number[]) => `p50 ${percentile(t, 50).toFixed(1)} ms, p99 ${percentile(t, 99).toFixed(1)} ms (${t.length} reads)`;
    log(`  prune under load: read routes before the prune: ${f(before)}`);
    log(`  prune under load: read routes during the prune: ${f(during)}`);
    log(
      `  prune under load: ${runs} prune runs in ${seconds.toFixed(0)} s removed ${total.toLocaleString('en-US')} rows (${Math.round(total / seconds).toLocaleString('en-US')}/s): ${[
        ...removed.entries(),
      ]
        .filter(([, n]) => n > 0)
        .map(([step, n]) => `${step} ${n.toLocaleString('en-US')}`)
        .join(', ')}`,
    );
    await client.query('analyze');
    log(`  prune under load: after: ${(await sizes()).join(', ')}`);
  } finally {
    await client.end();
    await ctx.close();
    await database.close();
    await admin(baseUrl, (c) => c.query(`drop database if exists ${copy} with (force)`));
  }
}
