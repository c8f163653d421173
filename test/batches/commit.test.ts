/** POST /v1/publish/batches (commit), list, get, assets, idempotency, isolation and disconnect counters. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { api, type PublishingHarness, startPublishingHarness } from '../publishing/publishing-harness.js';
import { type BatchOrg, createBatchOrg, dailySlots, items } from './batch-support.js';

const FROM = '2030-06-03T00:00:00.000Z';

describe('publish batch commit', () => {
  let h: PublishingHarness;
  let org: BatchOrg;
  let other: BatchOrg;

  before(async () => {
    h = await startPublishingHarness();
    org = await createBatchOrg(h, 'Commit');
    other = await createBatchOrg(h, 'Stranger');
  });
  after(() => h.close());

  const body = (extra: Record<string, unknown> = {}) => ({
    brandId: org.brandId,
    from: FROM,
    policy: dailySlots(),
    productLinkComment: { enabled: true },
    items: items(org, 5, `c${Math.random().toString(36).slice(2, 6)}`),
    ...extra,
  });

  it('is a dry run by default: answers the preview and persists nothing', async () => {
    const b = body();
    const res = await api(h, org, 'POST', '/v1/publish/batches', b);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.mode, 'dry_run');
    const preview = await api(h, org, 'POST', '/v1/publish/batches/preview', { ...b });
    assert.deepEqual(res.body.preview.assignments, preview.body.assignments);
    assert.equal((await api(h, org, 'GET', '/v1/publish/batches')).body.data.length, 0);
    assert.equal((await api(h, org, 'GET', '/v1/assets')).body.data.length, 0);
  });

  it('commits batch, items, assets, publish jobs and targets exactly as previewed', async () => {
    const b = body({ idempotencyKey: 'commit-1', source: 'catalog_import', freezeHorizonMinutes: 60 });
    const preview = (
      await api(h, org, 'POST', '/v1/publish/batches/preview', {
        ...b,
        idempotencyKey: undefined,
        source: undefined,
        freezeHorizonMinutes: undefined,
      })
    ).body;
    const res = await api(h, org, 'POST', '/v1/publish/batches', { ...b, dryRun: false });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const s = res.body;
    assert.match(s.publishBatchId, /^pbt_[0-9A-Z]{26}$/);
    assert.equal(s.status, 'scheduled');
    assert.equal(s.itemCount, 5);
    assert.equal(s.targetCount, 10);
    assert.equal(s.queuedTargetCount, 10);
    assert.equal(s.publishedTargetCount, 0);
    assert.equal(s.source, 'catalog_import');
    assert.equal(s.idempotencyKey, 'commit-1');
    assert.equal(s.freezeHorizonMinutes, 60);
    const committed = s.items.flatMap((i: { targets: Array<{ scheduledAt: string; channelAccountId: string }>; clientAssetId: string }) =>
      i.targets.map((t) => `${i.clientAssetId}|${t.channelAccountId}|${t.scheduledAt}`),
    );
    const previewed = preview.assignments.map(
      (a: { clientAssetId: string; channelAccountId: string; scheduledAt: string }) =>
        `${a.clientAssetId}|${a.channelAccountId}|${a.scheduledAt}`,
    );
    assert.deepEqual(committed.sort(), previewed.sort(), 'commit == preview');

    const item = s.items[0];
    const job = await api(h, org, 'GET', `/v1/publish/jobs/${item.publishJobId}`);
    assert.equal(job.status, 200);
    assert.equal(job.body.status, 'scheduled');
    assert.equal(job.body.targets.length, 2);
    const fbTarget = job.body.targets.find((t: { platform: string }) => t.platform === 'facebook_page');
    assert.equal(fbTarget.scheduledAt, item.targets.find((t: { platform: string }) => t.platform === 'facebook_page').scheduledAt);
    assert.equal(fbTarget.postTargetId ?? fbTarget.id, item.targets[0].postTargetId);

    const assets = await api(h, org, 'GET', `/v1/assets?clientAssetId=${item.clientAssetId}`);
    assert.equal(assets.status, 200, JSON.stringify(assets.body));
    assert.equal(assets.body.data.length, 1);
    const asset = assets.body.data[0];
    assert.equal(asset.assetId, item.assetId);
    assert.equal(asset.productId, item.productId);
    assert.equal(asset.targets.length, 2);
    assert.equal(asset.lastPublishBatchId, s.publishBatchId);
    const one = await api(h, org, 'GET', `/v1/assets/${asset.assetId}`);
    assert.deepEqual(one.body, asset);

    const got = await api(h, org, 'GET', `/v1/publish/batches/${s.publishBatchId}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.status, 'scheduled');
    assert.equal(got.body.preview.assignmentCount, 10);
    const list = await api(h, org, 'GET', '/v1/publish/batches?status=scheduled');
    assert.ok(list.body.data.some((x: { publishBatchId: string }) => x.publishBatchId === s.publishBatchId));

    // the same key and body replays; another body with that key is refused
    const replay = await api(h, org, 'POST', '/v1/publish/batches', { ...b, dryRun: false });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.publishBatchId, s.publishBatchId);
    const conflict = await api(h, org, 'POST', '/v1/publish/batches', { ...b, items: b.items.slice(1), dryRun: false });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error, 'publish_batch_idempotency_key_reused');

    // a later batch on the same channels keeps minGap to the committed targets
    const next = await api(h, org, 'POST', '/v1/publish/batches/preview', body());
    const taken = new Set(previewed.map((x: string) => x.split('|').slice(1).join('|')));
    for (const a of next.body.assignments) {
      for (const t of taken) {
        const [ch, at] = (t as string).split('|');
        if (ch === a.channelAccountId)
          assert.ok(Math.abs(Date.parse(at!) - Date.parse(a.scheduledAt)) >= 120 * 60_000, `${a.scheduledAt} vs ${at}`);
      }
    }
  });

  it('hides batches and assets of other organizations (404) and refuses malformed ids (400)', async () => {
    const res = await api(h, org, 'POST', '/v1/publish/batches', { ...body(), dryRun: false });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const theirs = await api(h, other, 'GET', `/v1/publish/batches/${res.body.publishBatchId}`);
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.error, 'publish_batch_not_found');
    const asset = await api(h, other, 'GET', `/v1/assets/${res.body.items[0].assetId}`);
    assert.equal(asset.status, 404);
    assert.equal(asset.body.error, 'asset_not_found');
    assert.equal((await api(h, other, 'GET', '/v1/publish/batches')).body.data.length, 0);
    assert.equal((await api(h, other, 'GET', '/v1/assets')).body.data.length, 0);
    assert.equal((await api(h, org, 'GET', '/v1/publish/batches/pbt_nope')).status, 400);
    assert.equal((await api(h, org, 'GET', '/v1/assets/not-an-id')).status, 400);
    assert.equal((await api(h, org, 'GET', '/v1/publish/batches?limit=0')).status, 400);
    const page1 = await api(h, org, 'GET', '/v1/publish/batches?limit=1');
    assert.equal(page1.body.data.length, 1);
    assert.ok(page1.body.nextCursor);
    const page2 = await api(h, org, 'GET', `/v1/publish/batches?limit=1&cursor=${page1.body.nextCursor}`);
    assert.notEqual(page2.body.data[0].publishBatchId, page1.body.data[0].publishBatchId);
  });

  it('preview == commit for random batches (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          n: fc.integer({ min: 1, max: 8 }),
          hour: fc.integer({ min: 0, max: 23 }),
          minGap: fc.integer({ min: 0, max: 600 }),
          cooldown: fc.integer({ min: 0, max: 2000 }),
          jitter: fc.integer({ min: 0, max: 3600 }),
          day: fc.integer({ min: 0, max: 300 }),
        }),
        async (r) => {
          const b = {
            brandId: org.brandId,
            from: new Date(Date.parse('2031-01-01T00:00:00Z') + r.day * 86_400_000).toISOString(),
            policy: {
              horizonDays: 5,
              slots: [
                {
                  id: 'p',
                  localTime: `${String(r.hour).padStart(2, '0')}:15`,
                  timezone: 'Europe/Berlin',
                  jitterSecondsMin: -r.jitter,
                  jitterSecondsMax: r.jitter,
                  minGapMinutes: r.minGap,
                  productCooldownMinutes: r.cooldown,
                },
              ],
            },
            items: items(org, r.n, `prop${r.day}-${r.hour}-${r.n}-${Math.random().toString(36).slice(2, 6)}`),
          };
          const preview = (await api(h, org, 'POST', '/v1/publish/batches/preview', b)).body;
          const commit = await api(h, org, 'POST', '/v1/publish/batches', { ...b, dryRun: false });
          assert.equal(commit.status, 201, JSON.stringify(commit.body));
          const committed = commit.body.items
            .flatMap(
              (i: {
                clientAssetId: string;
                targets: Array<{ channelAccountId: string; scheduledAt: string | null; jitterSeconds: number | null }>;
              }) =>
                i.targets
                  .filter((t) => t.scheduledAt)
                  .map((t) => `${i.clientAssetId}|${t.channelAccountId}|${t.scheduledAt}|${t.jitterSeconds}`),
            )
            .sort();
          const previewed = preview.assignments
            .map(
              (a: { clientAssetId: string; channelAccountId: string; scheduledAt: string; jitterSeconds: number }) =>
                `${a.clientAssetId}|${a.channelAccountId}|${a.scheduledAt}|${a.jitterSeconds}`,
            )
            .sort();
          assert.deepEqual(committed, previewed);
        },
      ),
      { numRuns: 6, seed: 7 },
    );
  });

  it('follows its publish targets: a job rescheduled or cancelled through the jobs API shows in the batch', async () => {
    const res = await api(h, org, 'POST', '/v1/publish/batches', { ...body(), items: items(org, 2, 'follow'), dryRun: false });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const [first, second] = res.body.items;
    const at = '2030-07-01T10:00:00.000Z';
    assert.equal((await api(h, org, 'POST', `/v1/publish/jobs/${first.publishJobId}/schedule`, { scheduleAt: at })).status, 200);
    assert.equal((await api(h, org, 'POST', `/v1/publish/jobs/${second.publishJobId}/cancel`, {})).status, 200);
    const got = (await api(h, org, 'GET', `/v1/publish/batches/${res.body.publishBatchId}`)).body;
    assert.deepEqual(
      got.items[0].targets.map((t: { scheduledAt: string }) => t.scheduledAt),
      [at, at],
    );
    assert.deepEqual(
      got.items[1].targets.map((t: { state: string }) => t.state),
      ['cancelled', 'cancelled'],
    );
    assert.equal(got.status, 'partially_scheduled');
    assert.equal(got.queuedTargetCount, 2);
  });

  it('two concurrent commits with one idempotencyKey create one batch', async () => {
    const b = { ...body(), items: items(org, 2, 'race'), idempotencyKey: 'race-1', dryRun: false };
    const [x, y] = await Promise.all([api(h, org, 'POST', '/v1/publish/batches', b), api(h, org, 'POST', '/v1/publish/batches', b)]);
    assert.deepEqual([x.status, y.status].sort(), [200, 201], JSON.stringify([x.body, y.body]));
    assert.equal(x.body.publishBatchId, y.body.publishBatchId);
    const jobs = await h.ctx.database.db
      .selectFrom('publish_batch_items')
      .select('publish_job_id')
      .where('batch_id', '=', x.body.publishBatchId)
      .execute();
    assert.equal(jobs.length, 2);
  });

  it('disconnecting a channel cancels its batch targets and reports the batch counters', async () => {
    const org2 = await createBatchOrg(h, 'Disconnect', 2);
    const res = await api(h, org2, 'POST', '/v1/publish/batches', {
      brandId: org2.brandId,
      from: FROM,
      policy: dailySlots(),
      items: items(org2, 3, 'disc'),
      dryRun: false,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const del = await h.ctx.app.inject({
      method: 'DELETE',
      url: `/v1/channel-accounts/${org2.fb}`,
      headers: org2.auth,
      payload: { organizationId: org2.organizationId },
    });
    assert.equal(del.statusCode, 200, del.body);
    const summary = del.json().disconnectSummary;
    assert.equal(summary.cancelledBatchTargetCount, 3);
    assert.equal(summary.needsReconnectBatchTargetCount, 0);
    assert.equal(summary.needsAttentionBatchTargetCount, 0);
    assert.equal(summary.cancelledPostTargetCount, 3);
    const got = (await api(h, org2, 'GET', `/v1/publish/batches/${res.body.publishBatchId}`)).body;
    assert.equal(got.status, 'partially_scheduled');
    assert.equal(got.queuedTargetCount, 3);
  });

  it('commits an empty-handed batch as unscheduled when nothing fits', async () => {
    const res = await api(h, org, 'POST', '/v1/publish/batches', {
      brandId: org.brandId,
      from: FROM,
      policy: { horizonDays: 1, slots: [{ id: 'x-only', localTime: '10:00', platform: 'x' }] },
      items: items(org, 1, 'nofit'),
      dryRun: false,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'unscheduled');
    assert.equal(res.body.items[0].publishJobId, null);
    assert.deepEqual(
      res.body.items[0].targets.map((t: { state: string }) => t.state),
      ['unscheduled', 'unscheduled'],
    );
    assert.ok(res.body.preview.warnings.every((w: { rule: string }) => w.rule === 'no_matching_slot'));
  });

  it("stores freezeHorizonMinutes but a later commit never moves an earlier batch's targets, even with a horizon of 0", async () => {
    const first = await api(h, org, 'POST', '/v1/publish/batches', {
      ...body(),
      items: items(org, 2, 'frozen'),
      freezeHorizonMinutes: 0,
      dryRun: false,
    });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.freezeHorizonMinutes, 0);
    const times = (s: { items: Array<{ targets: Array<{ scheduledAt: string | null }> }> }) =>
      s.items.flatMap((i) => i.targets.map((t) => t.scheduledAt));
    const before = times(first.body);
    const taken = first.body.items[0].targets[0];
    // a later batch puts a post exactly on one of them: it is kept with a warning, the earlier post stays
    const later = await api(h, org, 'POST', '/v1/publish/batches', {
      ...body(),
      items: [
        {
          ...items(org, 1, 'intruder')[0]!,
          targets: [{ platform: 'facebook_page', channelAccountId: taken.channelAccountId }],
          manualScheduleAt: taken.scheduledAt,
        },
      ],
      dryRun: false,
    });
    assert.equal(later.status, 201, JSON.stringify(later.body));
    assert.ok(later.body.preview.warnings.some((w: { rule: string }) => w.rule === 'manual_schedule_conflict'));
    const after = (await api(h, org, 'GET', `/v1/publish/batches/${first.body.publishBatchId}`)).body;
    assert.deepEqual(times(after), before);
    assert.equal(after.freezeHorizonMinutes, 0);
  });
});
