/** The worker against the simulators: retries, rate limits, expired tokens, lost answers, first comments, polling, URLs, races. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  api,
  connectChannel,
  createOrg,
  type Org,
  type PublishingHarness,
  startPublishingHarness,
  waitFor,
  waitForJob,
} from './publishing-harness.js';

describe('publish worker', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };
  let n = 0;
  const text = (label: string) => `${label} #${++n} ${Date.now()}`;
  const publish = async (body: {
    text: string;
    settings?: Record<string, unknown>;
    channel?: string;
    platform?: string;
    scheduleAt?: string;
    enqueue?: boolean;
  }) => {
    const r = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId: org.brandId,
        text: body.text,
        targets: [
          {
            platform: body.platform ?? 'facebook_page',
            channelAccountId: body.channel ?? fb.channelAccountId,
            ...(body.settings ? { settings: body.settings } : {}),
          },
        ],
        ...(body.scheduleAt ? { scheduleAt: body.scheduleAt } : {}),
      },
      dryRun: false,
      enqueue: body.enqueue ?? true,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.publishJobId as string;
  };
  const postsWith = (t: string) => h.meta.ledger.posts.filter((p) => p.text === t).length;

  before(async () => {
    h = await startPublishingHarness({
      env: { SERVICE_PUBLISH_MAX_ATTEMPTS: '3' },
    });
    org = await createOrg(h, 'Worker');
    fb = await connectChannel(h, org, 'facebook_page');
    await h.ctx.startWorker();
  });
  after(() => h.close());

  it('retries a transient failure with backoff and records the error of the failed attempt', async () => {
    h.meta.failures.inject({ kind: 'server_error', operation: 'publish' });
    const t = text('transient');
    const job = await waitForJob(h, org, await publish({ text: t }), ['published']);
    assert.equal(job.targets[0].attempts, 2);
    assert.equal(job.targets[0].lastError.category, 'transient');
    assert.equal(postsWith(t), 1);
  });

  it('gives up after the attempt limit with retries_exhausted', async () => {
    h.meta.failures.inject({
      kind: 'server_error',
      operation: 'publish',
      times: 3,
    });
    const t = text('exhausted');
    const job = await waitForJob(h, org, await publish({ text: t }), ['failed']);
    assert.equal(job.targets[0].attempts, 3);
    assert.equal(job.targets[0].lastError.code, 'retries_exhausted');
    assert.equal(job.status, 'failed');
    assert.equal(postsWith(t), 0);
  });

  it('honours the platform retry-after on a rate limit', async () => {
    h.meta.failures.inject({
      kind: 'rate_limit',
      operation: 'publish',
      retryAfterSeconds: 120,
    });
    const t = text('rate');
    const id = await publish({ text: t });
    const job = await waitFor('rate-limited retry', async () => {
      const r = (await api(h, org, 'GET', `/v1/publish/jobs/${id}`)).body;
      return r.targets[0].lastError ? r : null;
    });
    const target = job.targets[0];
    assert.equal(target.state, 'queued');
    assert.equal(target.lastError.category, 'rate_limited');
    assert.ok(Date.parse(target.nextAttemptAt) - Date.now() > 100_000, `next attempt ${target.nextAttemptAt}`);
    assert.equal(postsWith(t), 0);
    // the client may still cancel the waiting retry
    assert.equal((await api(h, org, 'POST', `/v1/publish/jobs/${id}/cancel`, {})).body.status, 'cancelled');
  });

  it('refuses a wrong post without retrying (platform_rejected / user_content)', async () => {
    const t = text('duplicate');
    await waitForJob(h, org, await publish({ text: t }), ['published']);
    // the Pages API refuses the same status twice in a row
    const job = await waitForJob(h, org, await publish({ text: t }), ['failed']);
    assert.equal(job.targets[0].attempts, 1);
    assert.ok(['platform_rejected', 'user_content'].includes(job.targets[0].lastError.category));
    assert.equal(postsWith(t), 1);
  });

  it('a lost answer goes to needs_attention and is never published twice', async () => {
    h.meta.failures.inject({ kind: 'lost_response', operation: 'publish' });
    const t = text('lost');
    const id = await publish({ text: t });
    const job = await waitForJob(h, org, id, ['needs_attention']);
    assert.equal(job.targets[0].lastError.category, 'unknown_outcome');
    assert.equal(job.status, 'needs_attention');
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(postsWith(t), 1);
    assert.equal((await api(h, org, 'GET', `/v1/publish/jobs/${id}`)).body.targets[0].attempts, 1);
  });

  it('posts the first comment after the post, and its failure does not fail the post', async () => {
    const t = text('comment ok');
    const okJob = await publish({
      text: t,
      settings: { firstComment: { content: 'Link in bio', delayMs: 100 } },
    });
    const ok = await waitFor('first comment posted', async () => {
      const r = (await api(h, org, 'GET', `/v1/publish/jobs/${okJob}`)).body;
      return r.targets[0].firstComment?.state === 'posted' ? r : null;
    });
    assert.ok(ok.targets[0].firstComment.providerCommentId);
    const comment = h.meta.ledger.comments.find((c) => c.commentId === ok.targets[0].firstComment.providerCommentId);
    assert.equal(comment?.text, 'Link in bio');
    assert.equal(comment?.postId, ok.targets[0].providerPostId);

    h.meta.failures.inject({ kind: 'expired_token', operation: 'comment' });
    const bad = await publish({
      text: text('comment fails'),
      settings: { firstComment: { content: 'Will fail', delayMs: 0 } },
    });
    const failed = await waitFor('first comment failed', async () => {
      const r = (await api(h, org, 'GET', `/v1/publish/jobs/${bad}`)).body;
      return r.targets[0].firstComment?.state === 'failed' ? r : null;
    });
    assert.equal(failed.targets[0].state, 'published');
    assert.equal(failed.status, 'published');
    assert.equal(failed.targets[0].firstComment.error.category, 'auth_expired');
  });

  it('publishes a Threads post through container polling', async () => {
    const threads = await connectChannel(h, org, 'threads');
    const t = text('threads');
    const job = await waitForJob(
      h,
      org,
      await publish({
        text: t,
        platform: 'threads',
        channel: threads.channelAccountId,
      }),
      ['published'],
    );
    assert.ok(job.targets[0].providerPostId);
    assert.equal(postsWith(t), 1);
  });

  it('publishes on time: a scheduled job waits for scheduleAt', async () => {
    const t = text('scheduled');
    const at = Date.now() + 1500;
    const id = await publish({
      text: t,
      scheduleAt: new Date(at).toISOString(),
      enqueue: false,
    });
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(postsWith(t), 0);
    assert.equal((await api(h, org, 'GET', `/v1/publish/jobs/${id}`)).body.status, 'scheduled');
    await waitForJob(h, org, id, ['published'], 6000);
    const received = h.meta.ledger.posts.find((p) => p.text === t)!;
    assert.ok(received.at >= at - 50, 'not before its time');
    assert.ok(received.at - at < 2000, `late by ${received.at - at} ms`);
  });

  it('a reschedule makes the earlier worker job stale', async () => {
    const t = text('rescheduled');
    const id = await publish({
      text: t,
      scheduleAt: new Date(Date.now() + 600).toISOString(),
      enqueue: false,
    });
    const later = new Date(Date.now() + 60_000).toISOString();
    assert.equal(
      (
        await api(h, org, 'POST', `/v1/publish/jobs/${id}/schedule`, {
          scheduleAt: later,
        })
      ).status,
      200,
    );
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(postsWith(t), 0);
    assert.equal((await api(h, org, 'GET', `/v1/publish/jobs/${id}`)).body.targets[0].state, 'scheduled');
    await api(h, org, 'POST', `/v1/publish/jobs/${id}/cancel`, {});
  });

  it('cancel racing the worker: each target ends cancelled or published, never both', async () => {
    const texts = Array.from({ length: 12 }, () => text('race'));
    const ids = await Promise.all(texts.map((t) => publish({ text: t })));
    const answers = await Promise.all(ids.map((id) => api(h, org, 'POST', `/v1/publish/jobs/${id}/cancel`, {})));
    // one list request per poll keeps the embedded database free for the worker
    const final = ['cancelled', 'published', 'needs_attention'];
    const jobs = await waitFor(
      'race settled',
      async () => {
        const list = (await api(h, org, 'GET', '/v1/publish/jobs?limit=100')).body.data.filter((j: { publishJobId: string }) =>
          ids.includes(j.publishJobId),
        );
        return list.length === ids.length && list.every((j: { targets: Array<{ state: string }> }) => final.includes(j.targets[0]!.state))
          ? list
          : null;
      },
      15_000,
      150,
    );
    for (const job of jobs) {
      const i = ids.indexOf(job.publishJobId);
      const state = job.targets[0].state;
      if (answers[i]!.status === 200) assert.equal(state, 'cancelled');
      else assert.equal(answers[i]!.body.error, 'publish_job_not_cancellable');
      // published exactly once, cancelled never; an unknown outcome (slow answer) at most once
      if (state === 'published') assert.equal(postsWith(texts[i]!), 1);
      else if (state === 'cancelled') assert.equal(postsWith(texts[i]!), 0);
      else assert.ok(postsWith(texts[i]!) <= 1);
    }
  });

  it('an expired token moves the target to needs_reconnect and the channel to refresh_needed', async () => {
    h.meta.failures.inject({ kind: 'expired_token', operation: 'publish' });
    const job = await waitForJob(h, org, await publish({ text: text('expired') }), ['needs_reconnect']);
    assert.equal(job.targets[0].lastError.category, 'auth_expired');
    assert.equal(job.status, 'needs_reconnect');
    const ch = await h.ctx.database.db
      .selectFrom('channel_accounts')
      .select('state')
      .where('id', '=', fb.channelAccountId)
      .executeTakeFirstOrThrow();
    assert.equal(ch.state, 'refresh_needed');
  });
});
