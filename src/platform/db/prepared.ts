/**
 * Named prepared statements on PostgreSQL for the statements that run many times a second with the same
 * text (a webhook event's fan-out, the batch that records delivered webhooks). An unnamed statement is parsed
 * and planned on every execution: in a run of 120,000 webhook deliveries PostgreSQL spent 7-8 s planning
 * against 30-33 s executing (pg_stat_statements, docs/operations.md). A named one is parsed once per
 * connection, and PostgreSQL plans it generically once it finds the generic plan no worse than the custom
 * ones of its first five executions.
 *
 * A statement opts in by ending with the `prepared` marker (`.modifyEnd(prepared)` on a query builder,
 * `${prepared}` at the end of a `sql` template). Only statements whose plan does not depend on their
 * parameters' values should: with `limit $2` the delivery claim's generic plan read and sorted every due row
 * (8.8 against 1.3 ms a claim), so its limit is written into its text. Texts that differ (a VALUES list of
 * another length, another limit) are other statements, each prepared on first use; a process names at most
 * `MAX_NAMED` texts and runs the rest unnamed.
 *
 * Not for a statement that answers `*` of a table (`returning *`): once a migration adds a column, PostgreSQL
 * refuses to run a prepared statement whose answer's columns changed ("cached plan must not change result
 * type") until the connection ends, where an unnamed one simply answers the new column.
 *
 * `DATABASE_PREPARED_STATEMENTS=false` runs every statement unnamed: for a connection pooler in transaction
 * mode that does not keep prepared statements across server connections (PgBouncer before 1.21, or without
 * `max_prepared_statements`). Connections through a Unix socket always do (database.ts): the embedded
 * database's socket serves one session to all its connections, where two clients' names would collide.
 */
import { sql } from 'kysely';
import pg from 'pg';

/** the text a prepared statement ends with (a comment: the statement means the same everywhere) */
export const PREPARED_MARK = ' /* prepared */';

/** appended to a statement that should run as a named prepared statement on PostgreSQL */
export const prepared = sql.raw(PREPARED_MARK);

/**
 * Every column of a table type, listed by name: for a prepared statement that answers whole rows (in place of
 * `*`, see above). The compiler refuses a list that leaves a column out.
 */
export function everyColumn<Table>() {
  return <const C extends ReadonlyArray<keyof Table & string>>(
    ...columns: C & ([Exclude<keyof Table, C[number]>] extends [never] ? unknown : { missing: Exclude<keyof Table, C[number]> })
  ): C => columns;
}

/** `alias.column, ...` of the given columns */
export function columnsOf(alias: string, columns: ReadonlyArray<string>) {
  return sql.join(columns.map((c) => sql.ref(`${alias}.${c}`)));
}

/** texts named by this process; beyond the limit, marked texts run unnamed */
const MAX_NAMED = 1000;
const names = new Map<string, string>();

/** The name of a marked statement's text (the same for the process's life), or null to run it unnamed. */
export function preparedName(text: string): string | null {
  if (!text.endsWith(PREPARED_MARK)) return null;
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMED) return null;
    name = `service_api_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

/**
 * A pg client that runs marked statements by name: the client parses a name once on its connection and
 * binds it afterwards (pg keeps the connection's parsed names and drops them with the connection).
 */
export class PreparingClient extends pg.Client {
  // the signature of pg's overloads, read as the pool calls it: (text, values) or (config[, values][, callback])
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values) && callback === undefined) {
      const name = preparedName(config);
      if (name !== null) return super.query({ name, text: config, values });
    }
    return super.query(config, values, callback);
  }
}
