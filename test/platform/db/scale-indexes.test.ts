/**
 * Migration 0018 (the indexes for a year of history): it applies on the database in use (embedded and
 * PostgreSQL), undoes and applies again, and the statements it serves answer the same rows as a plain
 * filter of what was written: the job list by status, brand and time window across cursor pages, and
 * the posts of a window of channels (the batch planner's and slot finder's read).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type JobListQuery, publishingRepository } from '../../../src/modules/publishing/publishing.repository.js';
import { down, up } from '../../../src/platform/db/migrations/0018-scale-indexes.js';
import { up as dropPendingIndex } from '../../../src/platform/db/migrations/0025-webhook-pending-index.js';
import { newId } from '../../../src/platform/ids.js';
import { createTestContext, type TestContext } from '../../support/harness.js';

const NAMES = [
  'publish_jobs_org_status_idx',
  'publish_jobs_org_status_time_idx',
  'publish_jobs_org_brand_time_idx',
  'publish_jobs_org_time_idx',
  'publish_targets_channel_time_idx',
  'publish_targets_brand_time_idx',
  'publish_targets_first_comment_idx',
  'social_comments_org_status_idx',
  'social_comments_org_brand_idx',
  'analytics_snapshots_org_captured_idx',
  'webhook_deliveries_endpoint_status_idx',
  'webhook_deliveries_pending_idx',
];
const DAY = 86_400_000;
const STATUSES = ['scheduled', 'published', 'failed', 'draft'] as const;

describe('migration 0018: indexes for a year of history', () => {
  let ctx: TestContext;
  let organizationId: string;
  const brands = ['brd_a', 'brd_b'];
  const channels = ['cha_1', 'cha_2', 'cha_3'];
  const t0 = Date.UTC(2026, 0, 1);
  const jobs: Array<{
    id: string;
    brandId: string;
    status: string;
    time: number;
    scheduledAt: Date | null;
    targets: Array<{ channel: string; at: Date | null; state: string }>;
  }> = [];

  before(async () => {
    ctx = await createTestContext();
    organizationId = (await ctx.createOrganization({ name: 'Scale' })).organizationId;
    // 120 jobs over 60 days: statuses, brands and channels in turn; drafts unscheduled (their time is their creation)
    const entries = [];
    for (let i = 0; i < 120; i++) {
      const status = STATUSES[i % STATUSES.length]!;
      const created = new Date(t0 + i * 12 * 3_600_000);
      const scheduledAt = status === 'draft' ? null : new Date(created.getTime() + ((i * 7) % 5) * DAY);
      const brandId = brands[i % 2]!;
      const id = newId('job');
      const targets = channels.slice(0, 1 + (i % 3)).map((channel, p) => ({
        channel,
        at: scheduledAt ? new Date(scheduledAt.getTime() + p * 60_000) : null,
        state: status,
      }));
      jobs.push({ id, brandId, status, time: (scheduledAt ?? created).getTime(), scheduledAt, targets });
      entries.push({
        job: {
          id,
          organizationId,
          brandId,
          productId: null,
          profileId: null,
          title: null,
          text: `post ${i}`,
          media: [],
          status,
          idempotencyKey: null,
          requestHash: null,
          scheduledAt,
          runAfter: null,
          at: created,
        },
        targets: targets.map((t, p) => ({
          id: newId('tgt'),
          channelAccountId: t.channel,
          platform: 'x',
          position: p,
          text: `post ${i}`,
          settings: {},
          state: t.state,
          scheduledAt: t.at,
          nextAttemptAt: t.at,
          firstComment: null,
        })),
      });
    }
    await publishingRepository.insertJobs(ctx.database.db, entries);
    await sql`analyze`.execute(ctx.database.db);
  });
  after(() => ctx.close());

  it('creates every index, and undoes and applies again', async () => {
    const present = async () =>
      (await sql<{ indexname: string }>`select indexname from pg_indexes where indexname = any(${NAMES})`.execute(ctx.database.db)).rows
        .map((r) => r.indexname)
        .sort();
    // migration 0025 dropped the pending deliveries' index (nothing reads by it since 0023)
    const latest = NAMES.filter((n) => n !== 'webhook_deliveries_pending_idx').sort();
    assert.deepEqual(await present(), latest);
    await down(ctx.database.db);
    assert.deepEqual(await present(), []);
    await up(ctx.database.db);
    assert.deepEqual(await present(), [...NAMES].sort());
    await dropPendingIndex(ctx.database.db);
    assert.deepEqual(await present(), latest);
  });

  it('lists jobs by status, brand and window, newest first, the same across cursor pages', async () => {
    const cases = [
      { status: 'published' },
      { status: 'failed', from: new Date(t0 + 10 * DAY), to: new Date(t0 + 40 * DAY) },
      { brandId: 'brd_b', from: new Date(t0 + 5 * DAY), to: new Date(t0 + 12 * DAY) },
      { from: new Date(t0 + 20 * DAY), to: new Date(t0 + 50 * DAY) },
      { brandId: 'brd_b', status: 'draft' },
    ];
    let ties = 0;
    for (const q of cases) {
      const byTime = Boolean(q.from || q.to);
      // a window: by the time the job is for, then id; otherwise by id (both newest first)
      const expected = jobs
        .filter(
          (j) =>
            (!q.status || j.status === q.status) &&
            (!q.brandId || j.brandId === q.brandId) &&
            (!q.from || j.time >= q.from.getTime()) &&
            (!q.to || j.time < q.to.getTime()),
        )
        .sort((a, b) => (byTime && a.time !== b.time ? b.time - a.time : b.id < a.id ? -1 : 1));
      for (let i = 1; i < expected.length; i++) if (byTime && expected[i]!.time === expected[i - 1]!.time) ties++;
      const got: string[] = [];
      let order: JobListQuery['order'] = byTime ? { by: 'time', after: null } : { by: 'id', before: null };
      for (;;) {
        const rows = await publishingRepository.listJobs(ctx.database.db, organizationId, { ...q, order, limit: 7 });
        got.push(...rows.slice(0, 7).map((r) => r.id));
        if (rows.length <= 7) break;
        const last = rows[6]!;
        order = byTime ? { by: 'time', after: { at: last.scheduled_at ?? last.created_at, id: last.id } } : { by: 'id', before: last.id };
      }
      assert.ok(expected.length > 0, JSON.stringify(q));
      assert.deepEqual(
        got,
        expected.map((j) => j.id),
        JSON.stringify(q),
      );
    }
    // the seeded times repeat, so the pages above cross jobs of the same time (ordered by id)
    assert.ok(ties > 0);
  });

  it("answers the channels' posts of a window with their job's product", async () => {
    const from = new Date(t0 + 15 * DAY);
    const to = new Date(t0 + 30 * DAY);
    const rows = await publishingRepository.postsOfChannels(ctx.database.db, organizationId, ['cha_1', 'cha_3'], from, to);
    const expected = jobs
      .filter((j) => j.status === 'scheduled' || j.status === 'published')
      .flatMap((j) => j.targets.filter((t) => (t.channel === 'cha_1' || t.channel === 'cha_3') && t.at && t.at >= from && t.at <= to))
      .map((t) => `${t.channel} ${t.at!.toISOString()}`)
      .sort();
    assert.ok(expected.length > 0);
    assert.deepEqual(rows.map((r) => `${r.channel_account_id} ${new Date(r.at).toISOString()}`).sort(), expected);
  });
});
