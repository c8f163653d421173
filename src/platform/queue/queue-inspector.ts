/**
 * Questions about the queue's own jobs (pg-boss's `job` table), for an area's recovery sweep: whether a
 * job of a queue for some row is still waiting or running. The answer is a condition to put in the
 * area's own statement, so the sweep stays one statement (its limit counts only the rows without a job)
 * and no area names pg-boss's tables.
 */
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import { QUEUE_SCHEMA } from './job-queue.js';

/** A field of the job's payload compared with an expression of the caller's statement. */
interface JobDataMatch {
  /** the payload's key (`data->>key`) */
  key: string;
  /** the caller's value, e.g. `sql.ref('t.id')` */
  equals: Expression<unknown>;
  /** compare the payload's text as an integer (a version number) */
  asInteger?: boolean;
}

export interface QueueInspector {
  /**
   * `exists (a job of the queue whose payload matches)`, the job waiting (created, retry) or running:
   * with `activeSince`, only a job started after it counts as running (an older one is taken for dead).
   */
  liveJobExists(queue: string, match: readonly JobDataMatch[], opts?: { activeSince?: Date }): RawBuilder<SqlBool>;
}

export function createQueueInspector(schema: string = QUEUE_SCHEMA): QueueInspector {
  const jobTable = sql.table(`${schema}.job`);
  return {
    liveJobExists(queue, match, opts = {}) {
      const fields = match.map((m) =>
        m.asInteger ? sql`and (j.data->>${m.key}::text)::int = ${m.equals}` : sql`and j.data->>${m.key}::text = ${m.equals}`,
      );
      const live =
        opts.activeSince !== undefined
          ? sql`(j.state in ('created','retry') or (j.state = 'active' and j.started_on > ${opts.activeSince}))`
          : sql`j.state in ('created','retry','active')`;
      return sql<SqlBool>`exists (select 1 from ${jobTable} j where j.name = ${queue} ${sql.join(fields, sql` `)} and ${live})`;
    },
  };
}
