/**
 * Published outcomes noted during a burst: while publishes wait for a call permit, the platform's answer
 * of each call made is noted on its target at once and the full outcome (state, job status, events) is
 * written once the burst's calls have all started. The note is the outcome's durable record meanwhile.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  api,
  connectChannel,
  createOrg,
  type Org,
  type PublishingHarness,
  publishedEventCount,
  startPublishingHarness,
  waitFor,
} from './publishing-harness.js';

/** due at once on a worker making one call at a time: the burst lasts as long as 40 calls one after another */
const JOBS = 40;

describe('published outcomes noted during a burst', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };

  before(async () => {
    // one call at a time: every publish due with others waits for the permit, so the worker is busy
    h = await startPublishingHarness({ env: { SERVICE_PUBLISH_WORKER_CONCURRENCY: '1' } });
    org = await createOrg(h, 'Notes');
    fb = await connectChannel(h, org, 'facebook_page');
    await h.ctx.startWorker();
  });
  after(() => h.close());

  it('notes each answer while the burst waits, writes the outcomes in full after, and publishes each post once', async () => {
    // all due at once, a few seconds from now (creating them takes a while on a busy host)
    const scheduleAt = new Date(Date.now() + 8000).toISOString();
    const texts: string[] = [];
    const jobIds: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const text = `noted ${i} ${Date.now()}`;
      const r = await api(h, org, 'POST', '/v1/publish/jobs', {
        plan: { brandId: org.brandId, text, targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }], scheduleAt },
        dryRun: false,
        enqueue: true,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      texts.push(text);
      jobIds.push(r.body.publishJobId);
    }
    const db = h.ctx.database.db;
    const rows = () =>
      db
        .selectFrom('publish_targets')
        .select(['id', 'job_id', 'text', 'state', 'provider_post_id', 'published_at', 'posted_post_id', 'posted_url', 'posted_at'])
        .where('job_id', 'in', jobIds)
        .execute();
    // while the burst's last calls wait for the permit: a post is on the page, noted on its target, its outcome held
    const noted = await waitFor('an answer noted', async () => (await rows()).find((r) => r.posted_post_id !== null) ?? null, 30_000, 5);
    assert.equal(noted.state, 'publishing', 'the full outcome is held');
    assert.equal(noted.provider_post_id, null);
    const post = h.meta.ledger.posts.find((p) => p.text === noted.text);
    assert.ok(post, 'the noted post is on the page');
    assert.ok(noted.posted_url?.startsWith('https://'), String(noted.posted_url));
    assert.ok(noted.posted_at instanceof Date);
    const events = (targetId: string) => publishedEventCount(h, targetId);
    assert.equal(await events(noted.id), 0, 'no outcome event before the full write');

    // the burst drains: every outcome is written in full, the notes cleared
    const settled = await waitFor(
      'every target published',
      async () => {
        const all = await rows();
        return all.length === JOBS && all.every((r) => r.state === 'published') ? all : null;
      },
      30_000,
      50,
    );
    for (const row of settled) {
      assert.deepEqual([row.posted_post_id, row.posted_url, row.posted_at], [null, null, null], `${row.text}: note cleared`);
      assert.equal(h.meta.ledger.posts.filter((p) => p.text === row.text).length, 1, `${row.text} posted once`);
      assert.equal(await events(row.id), 1, `${row.text}: one published event`);
    }
    const first = settled.find((r) => r.id === noted.id)!;
    assert.ok(first.provider_post_id, 'the post id written');
    // published when the platform answered, not when the held write ran
    assert.equal(first.published_at?.getTime(), noted.posted_at!.getTime());
    const job = await api(h, org, 'GET', `/v1/publish/jobs/${noted.job_id}`);
    assert.equal(job.body.status, 'published');
    assert.equal(job.body.targets[0].providerPostId, first.provider_post_id);
  });
});
