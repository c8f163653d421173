/**
 * The statements a measured operation runs, captured from the service's own Kysely instance (its `log`
 * hook sees every compiled query with its parameters), and the planner's verdict on each: the bench runs
 * `EXPLAIN (FORMAT JSON)` with the same parameters and looks for a sequential scan of a big table.
 */
import { Kysely, type LogEvent, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { SEEDED_TABLES } from './seed.js';

/** Tables that grow with the history: a sequential scan of one of them costs in proportion to the year. */
const BIG_TABLES = new Set([...SEEDED_TABLES, 'publish_batch_targets', 'publish_batch_items', 'job']);

export interface Captured {
  sql: string;
  parameters: readonly unknown[];
}

export class StatementCapture {
  private statements: Captured[] | null = null;

  readonly log = (event: LogEvent) => {
    if (this.statements && event.level === 'query') this.statements.push({ sql: event.query.sql, parameters: event.query.parameters });
  };

  /** Runs `fn` once, answering the statements it ran through the service's database. */
  async during(fn: () => Promise<unknown>): Promise<Captured[]> {
    this.statements = [];
    try {
      await fn();
      return this.statements;
    } finally {
      this.statements = null;
    }
  }
}

/** The service's PostgreSQL handle (as `openPostgres` builds it) with the capture's log hook on its Kysely. */
export function openCapturedPostgres(connectionString: string, poolSize: number, capture: StatementCapture): DatabaseHandle {
  const pool = new pg.Pool({ connectionString, max: poolSize, application_name: 'service-api-bench' });
  pool.on('error', () => {});
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log: capture.log });
  return {
    kind: 'postgres',
    db,
    sql: {
      async executeSql(text, values) {
        const res = await pool.query(text, values as unknown[] | undefined);
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

export interface Verdict {
  /** big tables read by a sequential scan, with the planner's row estimate */
  seqScans: Array<{ table: string; rows: number }>;
  statements: number;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Plan Rows'?: number;
  Plans?: PlanNode[];
}

function walk(node: PlanNode, out: Verdict['seqScans']) {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) {
    const table = node['Relation Name'];
    // pg-boss's job table is partitioned per queue: its partitions are named j<hash>
    const name = /^j[0-9a-f]{20,}$/.test(table) ? 'job' : table;
    if (BIG_TABLES.has(name)) out.push({ table: name === 'job' ? 'pgboss.job' : name, rows: node['Plan Rows'] ?? 0 });
  }
  for (const child of node.Plans ?? []) walk(child, out);
}

/** EXPLAINs each captured statement (not run: no ANALYZE) with its parameters on `pool`. */
export async function explain(pool: pg.Pool, statements: Captured[]): Promise<Verdict> {
  const verdict: Verdict = { seqScans: [], statements: 0 };
  for (const s of statements) {
    if (!/^\s*(select|with|update|delete|insert)/i.test(s.sql)) continue;
    verdict.statements++;
    const res = await pool.query(`explain (format json) ${s.sql}`, s.parameters.map(toPg) as unknown[]);
    const plan = (res.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan;
    walk(plan, verdict.seqScans);
  }
  return verdict;
}

function toPg(v: unknown): unknown {
  return v;
}

export function describeVerdict(v: Verdict | null): string {
  if (!v) return 'n/a';
  if (v.seqScans.length === 0) return `ok (${v.statements} stmt, no seq scan of a big table)`;
  const uniq = [...new Map(v.seqScans.map((s) => [s.table, s])).values()];
  return `SEQ SCAN ${uniq.map((s) => `${s.table} (~${s.rows} rows)`).join(', ')}`;
}
