/**
 * Drops `publish_targets_channel_idx` (organization, channel, scheduled_at). Every statement that reads a
 * channel's targets names the organization and the channel and either no time or the target's placed time
 * (`coalesce(published_at, scheduled_at)`), which `publish_targets_channel_time_idx` (0018) serves with the
 * same leading columns; no statement orders or bounds a channel's targets by `scheduled_at` alone. Each
 * target wrote the index three times (its insert, its claim and its outcome, updates of indexed columns).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists publish_targets_channel_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists publish_targets_channel_idx on publish_targets (organization_id, channel_account_id, scheduled_at)`.execute(
    db,
  );
}
