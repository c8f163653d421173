/**
 * The sandbox walkthrough of docs/engagement.md, step by step over real HTTP against a process in
 * sandbox mode (the simulators served by the service itself): connect a Facebook Page, publish, add an
 * audience comment through the control route, sync, draft, reply, and sync the post's analytics.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LiveClock } from '../publishing/publishing-harness.js';
import { createTestContext, type TestClock, type TestContext } from '../support/harness.js';
import { freePort } from '../support/service-process.js';

describe('docs/engagement.md sandbox walkthrough', () => {
  let ctx: TestContext;
  let B: string;
  let H: Record<string, string>;
  let ORG: string;
  let BRAND: string;

  before(async () => {
    const port = await freePort();
    B = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({
      clock: new LiveClock() as TestClock,
      env: { SERVICE_PROVIDER_MODE: 'sandbox', SERVICE_PUBLIC_BASE_URL: B },
    });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    await ctx.startWorker();
    const org = await ctx.createOrganization({ name: 'Acme' });
    ORG = org.organizationId;
    BRAND = (await ctx.createBrand(ORG, 'Acme')).brandId;
    H = { ...org.auth, 'content-type': 'application/json' };
  });
  after(() => ctx?.close());

  async function curl(method: string, path: string, body?: unknown, headers: Record<string, string> = H) {
    const res = await fetch(`${B}${path}`, {
      method,
      headers: body === undefined ? { authorization: headers.authorization ?? '' } : headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  }

  it('runs as written', async () => {
    // 1. connect a Facebook Page and pick one of the two Pages
    const connectUrl = await curl('POST', '/v1/channel-accounts/connect-url', { platform: 'facebook_page', brandId: BRAND });
    assert.equal(connectUrl.status, 200, JSON.stringify(connectUrl.body));
    const consent = await fetch(connectUrl.body.authorizationUrl, { redirect: 'manual' });
    assert.equal(consent.status, 302);
    const callback = await curl(
      'GET',
      new URL(consent.headers.get('location')!).pathname + new URL(consent.headers.get('location')!).search,
    );
    assert.equal(callback.status, 200, JSON.stringify(callback.body));
    assert.equal(callback.body.result, 'in_between_steps');
    const CHANNEL = callback.body.channelAccountId as string;
    const pageId = callback.body.choices[0].externalAccountId as string;
    const choices = await curl('GET', `/v1/channel-accounts/${CHANNEL}/choices`);
    assert.equal(choices.body.data[0].externalAccountId, pageId);
    const select = await curl('POST', `/v1/channel-accounts/${CHANNEL}/select`, { organizationId: ORG, externalAccountId: pageId });
    assert.equal(select.status, 200, JSON.stringify(select.body));

    // 2. publish and read the target once the worker published it
    const text = 'Our new mug is here';
    const job = await curl('POST', '/v1/agent/publish', {
      dryRun: false,
      enqueue: true,
      plan: { brandId: BRAND, text, targets: [{ platform: 'facebook_page', channelAccountId: CHANNEL }] },
    });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    let published: { status: string; targets: Array<{ postTargetId: string; providerPostId: string }> } | null = null;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      const j = await curl('GET', `/v1/publish/jobs/${job.body.publishJobId}`);
      if (j.body.status === 'published') {
        published = j.body;
        break;
      }
    }
    assert.ok(published, 'the job was published');
    const TARGET = published.targets[0]!.postTargetId;
    const POST = published.targets[0]!.providerPostId;

    // 3. an audience comment through the control route (no auth)
    const control = await curl(
      'POST',
      '/sandbox/_control/comments',
      { platform: 'facebook_page', providerPostId: POST, body: 'Does it ship to Canada?', authorName: 'Ana' },
      { 'content-type': 'application/json' },
    );
    assert.equal(control.status, 201, JSON.stringify(control.body));
    assert.ok(control.body.providerCommentId);

    // 4. sync: dry run, then stored
    const SYNC = {
      organizationId: ORG,
      brandId: BRAND,
      channelAccountId: CHANNEL,
      platform: 'facebook_page',
      providerPostId: POST,
      postTargetId: TARGET,
    };
    const dry = await curl('POST', '/v1/social-comments/sync', SYNC);
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual([dry.body.mode, dry.body.created], ['dry_run', 1]);
    const live = await curl('POST', '/v1/social-comments/sync', { ...SYNC, dryRun: false });
    assert.deepEqual([live.body.mode, live.body.created], ['synced', 1]);
    const needs = await curl('GET', '/v1/social-comments?status=needs_reply');
    assert.equal(needs.body.data.length, 1);
    const COMMENT = needs.body.data[0].socialCommentId as string;
    assert.equal(needs.body.data[0].body, 'Does it ship to Canada?');

    // 5. a reply draft (dry run: the prompt and the missing settings)
    const draft = await curl('POST', '/v1/social-comments/reply-drafts', {
      platform: 'facebook_page',
      commentText: 'Does it ship to Canada?',
      postText: text,
      brandName: 'Acme',
      socialCommentId: COMMENT,
    });
    assert.equal(draft.status, 200, JSON.stringify(draft.body));
    assert.equal(draft.body.mode, 'dry_run');
    assert.ok(draft.body.draft.prompt.system && draft.body.draft.prompt.user.includes('Does it ship to Canada?'));
    assert.ok(draft.body.draft.prompt.user.includes(text), 'the prompt carries the post');
    assert.ok(draft.body.requiredEnv.includes('SERVICE_LLM_BASE_URL'));

    // 6. reply: a dry run, then once even when retried
    const answer = { organizationId: ORG, brandId: BRAND, body: 'Yes, we ship to Canada in 5 days.' };
    const dryReply = await curl('POST', `/v1/social-comments/${COMMENT}/reply`, answer);
    assert.equal(dryReply.body.mode, 'dry_run', JSON.stringify(dryReply.body));
    const keyed = { ...H, 'idempotency-key': 'answer-canada-1' };
    const first = await curl('POST', `/v1/social-comments/${COMMENT}/reply`, { ...answer, dryRun: false }, keyed);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.mode, 'replied');
    assert.equal(first.body.reply.state, 'posted');
    assert.equal(first.body.comment.status, 'replied');
    assert.equal(first.body.budget, null);
    const retried = await curl('POST', `/v1/social-comments/${COMMENT}/reply`, { ...answer, dryRun: false }, keyed);
    assert.equal(retried.body.reply.replyId, first.body.reply.replyId);
    assert.equal(retried.body.reply.providerCommentId, first.body.reply.providerCommentId);

    // 7. analytics: grow the numbers, store a snapshot, list the series
    const grow = await curl(
      'POST',
      '/sandbox/_control/metrics',
      { platform: 'facebook_page', providerPostId: POST, metrics: { views: 120, reactions: 7 } },
      { 'content-type': 'application/json' },
    );
    assert.equal(grow.status, 200, JSON.stringify(grow.body));
    const snap = await curl('POST', '/v1/analytics/sync', { ...SYNC, dryRun: false });
    assert.equal(snap.status, 200, JSON.stringify(snap.body));
    assert.equal(snap.body.mode, 'stored');
    assert.deepEqual(snap.body.snapshot.metrics, { views: 120, viewers: 0, clicks: 0, reactions: 7 });
    const series = await curl('GET', `/v1/analytics/snapshots?postTargetId=${TARGET}`);
    assert.equal(series.body.data.length, 1);
    assert.deepEqual(series.body.data[0].metrics, snap.body.snapshot.metrics);
  });
});
