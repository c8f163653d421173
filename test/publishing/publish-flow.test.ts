/** Publishing end to end through HTTP and the worker against the Meta simulator. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  api,
  connectChannel,
  createOrg,
  type Org,
  type PublishingHarness,
  startPublishingHarness,
  waitForJob,
} from './publishing-harness.js';

describe('publish flow', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };

  before(async () => {
    h = await startPublishingHarness();
    org = await createOrg(h, 'Flow');
    fb = await connectChannel(h, org, 'facebook_page');
    await h.ctx.startWorker();
  });
  after(() => h.close());

  it('dry run by default persists nothing; enqueue publishes once and records the post', async () => {
    const plan = {
      brandId: org.brandId,
      text: 'Hello from the flow test',
      targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
    };
    const dry = await api(h, org, 'POST', '/v1/agent/publish', { plan });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.mode, 'dry_run');
    assert.equal(dry.body.summary.targetCount, 1);
    assert.equal((await api(h, org, 'GET', '/v1/publish/jobs')).body.data.length, 0);

    const created = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan,
      dryRun: false,
      enqueue: true,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.status, 'queued');
    const job = await waitForJob(h, org, created.body.publishJobId, ['published']);
    assert.equal(job.status, 'published');
    const t = job.targets[0];
    assert.ok(t.providerPostId);
    assert.equal(t.attempts, 1);
    assert.equal(h.meta.ledger.posts.filter((p) => p.text === 'Hello from the flow test').length, 1);
  });
});
