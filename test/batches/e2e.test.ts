/**
 * End to end in sandbox mode: a committed batch due within seconds is published by the worker on the
 * Meta simulator, the product link comment is posted under each post, the batch status follows its
 * targets, and a disconnect in the middle of a batch updates the counters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordCompletedBatches } from '../../src/modules/batches/batches.jobs.js';
import { api, type PublishingHarness, startPublishingHarness, waitFor } from '../publishing/publishing-harness.js';
import { type BatchOrg, createBatchOrg } from './batch-support.js';

describe('publish batch end to end', () => {
  let h: PublishingHarness;
  let org: BatchOrg;

  before(async () => {
    h = await startPublishingHarness();
    org = await createBatchOrg(h, 'E2E', 2);
    await h.ctx.startWorker();
  });
  after(() => h.close());

  const batchOf = async (id: string) => (await api(h, org, 'GET', `/v1/publish/batches/${id}`)).body;

  it('publishes every target, posts the product link comment and reaches published', async () => {
    const now = Date.now();
    const soon = new Date(now + 1500).toISOString();
    const res = await api(h, org, 'POST', '/v1/publish/batches', {
      brandId: org.brandId,
      from: new Date(now).toISOString(),
      policy: { horizonDays: 1, slots: [{ id: 'any', localTime: '12:00' }] },
      productLinkComment: { enabled: true, delayMs: 100, utmCampaign: 'e2e' },
      items: org.products.map((p, i) => ({
        clientAssetId: `e2e-${i}`,
        productId: p.productId,
        text: `End to end product ${i}`,
        manualScheduleAt: soon,
        targets: [
          { platform: 'facebook_page', channelAccountId: org.fb },
          { platform: 'threads', channelAccountId: org.threads },
        ],
      })),
      dryRun: false,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'scheduled');
    const done = await waitFor(
      'batch published with comments',
      async () => {
        const b = await batchOf(res.body.publishBatchId);
        const targets = b.items.flatMap((i: { targets: unknown[] }) => i.targets) as Array<{ firstCommentState: string | null }>;
        return b.status === 'published' && targets.every((t) => t.firstCommentState === 'posted') ? b : null;
      },
      20_000,
      100,
    );
    assert.equal(done.publishedTargetCount, 4);
    // the worker's completion job (once a minute) records publish_batch.completed once
    assert.equal(await recordCompletedBatches(h.ctx.deps, h.ctx.root.areas.batches.reads), 1);
    assert.equal(await recordCompletedBatches(h.ctx.deps, h.ctx.root.areas.batches.reads), 0);
    const events = await h.ctx.database.db
      .selectFrom('events')
      .select(['type', 'sequence_key'])
      .where('sequence_key', '=', res.body.publishBatchId)
      .orderBy('sequence')
      .execute();
    assert.deepEqual(
      events.map((e) => e.type),
      ['publish_batch.committed', 'publish_batch.completed'],
    );
    assert.equal(done.queuedTargetCount, 0);
    for (const [i, p] of org.products.entries()) {
      assert.equal(h.meta.ledger.posts.filter((x) => x.text === `End to end product ${i}`).length, 2, 'published once per channel');
      const comments = h.meta.ledger.comments.filter((c) => c.text.includes(p.productUrl.split('?')[0]!));
      assert.equal(comments.length, 2, JSON.stringify(h.meta.ledger.comments));
      assert.ok(comments.some((c) => c.text.includes('utm_source=facebook_page&utm_medium=organic_social&utm_campaign=e2e')));
      assert.ok(comments.some((c) => c.text.includes('utm_source=threads&utm_medium=organic_social&utm_campaign=e2e')));
    }
  });

  it('a disconnect in the middle of a batch cancels what is left and counts it', async () => {
    const now = Date.now();
    const res = await api(h, org, 'POST', '/v1/publish/batches', {
      brandId: org.brandId,
      from: new Date(now).toISOString(),
      policy: { horizonDays: 1, slots: [{ id: 'any', localTime: '12:00' }] },
      items: [
        { manualScheduleAt: new Date(now + 1000).toISOString(), text: 'Mid batch now' },
        { manualScheduleAt: new Date(now + 3_600_000).toISOString(), text: 'Mid batch later' },
      ].map((x, i) => ({
        clientAssetId: `mid-${i}`,
        productId: org.products[i]!.productId,
        ...x,
        targets: [{ platform: 'facebook_page', channelAccountId: org.fb }],
      })),
      dryRun: false,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await waitFor('first item published', async () => (await batchOf(res.body.publishBatchId)).publishedTargetCount === 1, 15_000, 100);
    assert.equal((await batchOf(res.body.publishBatchId)).status, 'processing');
    const del = await h.ctx.app.inject({
      method: 'DELETE',
      url: `/v1/channel-accounts/${org.fb}`,
      headers: org.auth,
      payload: { organizationId: org.organizationId },
    });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(del.json().disconnectSummary.cancelledBatchTargetCount, 1);
    const b = await batchOf(res.body.publishBatchId);
    assert.equal(b.status, 'partially_published');
    assert.deepEqual(
      b.items.map((i: { targets: Array<{ state: string }> }) => i.targets[0]!.state),
      ['published', 'cancelled'],
    );
  });
});
