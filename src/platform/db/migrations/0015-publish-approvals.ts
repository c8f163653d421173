/**
 * Approvals and the lateness policy of publish jobs: the job's approval record (who asked, for when,
 * who decided, why), its lateness limit, the time each target was meant to publish (what lateness is
 * measured against; retries move next_attempt_at, never this), and the organization's publishing
 * settings (whether members publish without approval).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('publish_jobs')
    .addColumn('approval', 'jsonb')
    .addColumn('max_lateness_minutes', 'integer', (c) => c.check(sql`max_lateness_minutes between 0 and 10080`))
    .execute();
  await db.schema.alterTable('publish_targets').addColumn('due_at', 'timestamptz').execute();
  await sql`update publish_targets set due_at = coalesce(scheduled_at, next_attempt_at) where due_at is null`.execute(db);
  await db.schema
    .createTable('publishing_settings')
    .addColumn('organization_id', 'text', (c) => c.primaryKey().references('organizations.id').onDelete('cascade'))
    .addColumn('members_publish_directly', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('updated_by', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('publishing_settings').execute();
  await db.schema.alterTable('publish_targets').dropColumn('due_at').execute();
  await db.schema.alterTable('publish_jobs').dropColumn('approval').dropColumn('max_lateness_minutes').execute();
}
