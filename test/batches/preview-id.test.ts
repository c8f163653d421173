/**
 * A commit naming a batchPreviewId persists exactly that preview's schedule, or nothing with a 409:
 * unknown or expired preview, another request, or posts created since then that the schedule now breaks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { unpackSchedule } from '../../src/modules/batches/stored-schedule.js';
import { runMaintenance } from '../../src/modules/maintenance/maintenance.jobs.js';
import * as m0028 from '../../src/platform/db/migrations/0028-packed-preview-schedules.js';
import { api, type PublishingHarness, startPublishingHarness } from '../publishing/publishing-harness.js';
import { type BatchOrg, createBatchOrg, dailySlots, items } from './batch-support.js';

type A = { clientAssetId: string; channelAccountId: string; scheduledAt: string };
const key = (a: A) => `${a.clientAssetId}|${a.channelAccountId}|${a.scheduledAt}`;
const committedKeys = (status: {
  items: Array<{ clientAssetId: string; targets: Array<{ channelAccountId: string; scheduledAt: string | null }> }>;
}) =>
  status.items.flatMap((i) => i.targets.filter((t) => t.scheduledAt).map((t) => key({ clientAssetId: i.clientAssetId, ...t } as A))).sort();

describe('committing a stored preview by its batchPreviewId', () => {
  let h: PublishingHarness;
  let org: BatchOrg;

  before(async () => {
    h = await startPublishingHarness();
    org = await createBatchOrg(h, 'Preview ids');
  });
  after(() => h.close());

  const request = (prefix: string, n = 4) => ({ brandId: org.brandId, policy: dailySlots(), items: items(org, n, prefix) });
  const batchCount = async () => (await api(h, org, 'GET', '/v1/publish/batches?limit=100')).body.data.length as number;

  it('persists exactly the previewed schedule, also when the commit comes later than the preview (no from given)', async () => {
    const req = request('held');
    const preview = await api(h, org, 'POST', '/v1/publish/batches/preview', req);
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.match(preview.body.batchPreviewId, /^pbp_[0-9A-F]{26}$/);
    // a minute later, planning again starts from then (another seed, other jitter); the named preview keeps its schedule
    h.ctx.clock.advance(60_000);
    const replanned = await api(h, org, 'POST', '/v1/publish/batches', req);
    assert.notDeepEqual(replanned.body.preview.assignments, preview.body.assignments);
    const dry = await api(h, org, 'POST', '/v1/publish/batches', { ...req, batchPreviewId: preview.body.batchPreviewId });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual(dry.body.preview.assignments, preview.body.assignments);
    const res = await api(h, org, 'POST', '/v1/publish/batches', { ...req, batchPreviewId: preview.body.batchPreviewId, dryRun: false });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(committedKeys(res.body), preview.body.assignments.map(key).sort());
    assert.equal(res.body.preview.batchPreviewId, preview.body.batchPreviewId);
  });

  it('stores the schedule packed, and still commits a preview stored as jsonb before migration 0028', async () => {
    const req = request('packed', 3);
    const preview = (await api(h, org, 'POST', '/v1/publish/batches/preview', req)).body;
    const db = h.ctx.database.db;
    const stored = await db
      .selectFrom('publish_batch_previews')
      .select(['schedule', 'schedule_packed'])
      .where('id', '=', preview.batchPreviewId)
      .executeTakeFirstOrThrow();
    assert.equal(stored.schedule, null);
    const packed = Buffer.from(stored.schedule_packed as Uint8Array);
    // far smaller than its JSON text, and that text is what the preview answered
    const text = JSON.stringify({
      assignments: preview.assignments.map(({ comments: _c, ...a }: A & { comments?: unknown }) => a),
      warnings: preview.warnings,
    });
    assert.ok(packed.length < text.length, `${packed.length} bytes packed for ${text.length} of JSON`);
    // a row as the code before 0028 stored it: the schedule as jsonb, nothing packed
    await db
      .updateTable('publish_batch_previews')
      .set({ schedule: JSON.stringify(unpackSchedule(packed)) as never, schedule_packed: null })
      .where('id', '=', preview.batchPreviewId)
      .execute();
    const res = await api(h, org, 'POST', '/v1/publish/batches', { ...req, batchPreviewId: preview.batchPreviewId, dryRun: false });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(committedKeys(res.body), preview.assignments.map(key).sort());
  });

  it('refuses with 409 publish_batch_preview_stale when a post created since then breaks the schedule; writes nothing', async () => {
    const req = request('stale', 3);
    const preview = (await api(h, org, 'POST', '/v1/publish/batches/preview', req)).body;
    const taken = preview.assignments.find((a: A) => a.channelAccountId === org.fb) as A;
    // someone schedules a post on the same Facebook Page five minutes after one of the previewed times
    const job = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId: org.brandId,
        text: 'Squeezed in',
        targets: [{ platform: 'facebook_page', channelAccountId: org.fb }],
        scheduleAt: new Date(Date.parse(taken.scheduledAt) + 5 * 60_000).toISOString(),
      },
      dryRun: false,
    });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    const before = await batchCount();
    const res = await api(h, org, 'POST', '/v1/publish/batches', { ...req, batchPreviewId: preview.batchPreviewId, dryRun: false });
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.error, 'publish_batch_preview_stale');
    assert.match(res.body.message, /min_gap/);
    assert.equal(await batchCount(), before);
    // a new preview plans around the post and can be committed
    const again = (await api(h, org, 'POST', '/v1/publish/batches/preview', req)).body;
    assert.notEqual(again.batchPreviewId, preview.batchPreviewId);
    assert.ok(!again.assignments.some((a: A) => a.channelAccountId === org.fb && a.scheduledAt === taken.scheduledAt));
    const ok = await api(h, org, 'POST', '/v1/publish/batches', { ...req, batchPreviewId: again.batchPreviewId, dryRun: false });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.deepEqual(committedKeys(ok.body), again.assignments.map(key).sort());
  });

  it('still holds when the new post breaks none of its rules', async () => {
    const req = request('holds', 2);
    const preview = (await api(h, org, 'POST', '/v1/publish/batches/preview', req)).body;
    const last = Math.max(...preview.assignments.map((a: A) => Date.parse(a.scheduledAt)));
    const job = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId: org.brandId,
        text: 'Far away',
        targets: [{ platform: 'facebook_page', channelAccountId: org.fb }],
        scheduleAt: new Date(last + 10 * 86_400_000).toISOString(),
      },
      dryRun: false,
    });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    const res = await api(h, org, 'POST', '/v1/publish/batches', { ...req, batchPreviewId: preview.batchPreviewId, dryRun: false });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  });

  it('answers 409 publish_batch_preview_mismatch for another request and publish_batch_preview_expired for an unknown or expired id', async () => {
    const req = request('other', 2);
    const preview = (await api(h, org, 'POST', '/v1/publish/batches/preview', req)).body;
    const changed = { ...req, items: req.items.map((i) => ({ ...i, text: `${i.text} (edited)` })) };
    const mismatch = await api(h, org, 'POST', '/v1/publish/batches', {
      ...changed,
      batchPreviewId: preview.batchPreviewId,
      dryRun: false,
    });
    assert.equal(mismatch.status, 409, JSON.stringify(mismatch.body));
    assert.equal(mismatch.body.error, 'publish_batch_preview_mismatch');

    const unknown = await api(h, org, 'POST', '/v1/publish/batches', { ...req, batchPreviewId: `pbp_${'0'.repeat(26)}`, dryRun: false });
    assert.equal(unknown.status, 409, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error, 'publish_batch_preview_expired');

    // another organization cannot use it
    const stranger = await createBatchOrg(h, 'Stranger');
    const foreign = await api(h, stranger, 'POST', '/v1/publish/batches', {
      ...req,
      brandId: stranger.brandId,
      batchPreviewId: preview.batchPreviewId,
    });
    assert.equal(foreign.status, 409, JSON.stringify(foreign.body));
    assert.equal(foreign.body.error, 'publish_batch_preview_expired');

    // 24 hours later it has expired, and the maintenance prune removes it
    h.ctx.clock.advance(24 * 3_600_000 + 1000);
    const expired = await api(h, org, 'POST', '/v1/publish/batches', { ...req, batchPreviewId: preview.batchPreviewId, dryRun: false });
    assert.equal(expired.status, 409, JSON.stringify(expired.body));
    assert.equal(expired.body.error, 'publish_batch_preview_expired');
    const pruned = await runMaintenance(h.ctx.database.db, h.ctx.clock.now(), h.ctx.root.prunes.all());
    assert.ok(pruned.expiredBatchPreviews! >= 1);
    const left = await h.ctx.database.db
      .selectFrom('publish_batch_previews')
      .select('id')
      .where('id', '=', preview.batchPreviewId)
      .execute();
    assert.equal(left.length, 0);
  });

  it('migration 0028 undoes (packed previews are dropped, jsonb ones kept) and applies again', async () => {
    const db = h.ctx.database.db;
    const req = request('undo', 2);
    const packed = (await api(h, org, 'POST', '/v1/publish/batches/preview', req)).body.batchPreviewId as string;
    const kept = (await api(h, org, 'POST', '/v1/publish/batches/preview', request('undo-jsonb', 2))).body.batchPreviewId as string;
    await db
      .updateTable('publish_batch_previews')
      .set({ schedule: JSON.stringify({ assignments: [], warnings: [] }) as never, schedule_packed: null })
      .where('id', '=', kept)
      .execute();
    await m0028.down(db);
    const ids = (await db.selectFrom('publish_batch_previews').select('id').where('id', 'in', [packed, kept]).execute()).map((r) => r.id);
    assert.deepEqual(ids, [kept]);
    await m0028.up(db);
    const again = await api(h, org, 'POST', '/v1/publish/batches/preview', req);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    const res = await api(h, org, 'POST', '/v1/publish/batches', { ...req, batchPreviewId: again.body.batchPreviewId, dryRun: false });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  });
});
