import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type PlatformHarness, startPlatformHarness } from '../publishing/platform-harness.js';
import { audienceComment, call, type Published, publishedPost, syncComments } from './comments-helpers.js';

describe('comment sync and replies on X, Instagram and Threads', () => {
  let h: PlatformHarness;
  before(async () => {
    h = await startPlatformHarness();
    await h.ctx.startWorker();
  });
  after(() => h?.close());

  async function synced(p: Published) {
    const { sync, list } = await syncComments(h, p);
    return { sync, byProviderId: new Map(list.map((c) => [c.providerCommentId as string, c])) };
  }

  const reply = (p: Published, id: string, body: string, dryRun = false) =>
    call(h, p.org, 'POST', `/v1/social-comments/${id}/reply`, {
      organizationId: p.org.organizationId,
      brandId: p.org.brandId,
      body,
      dryRun,
    });

  it('X: the conversation is read through search, threads kept, a reply posts a reply tweet', async () => {
    const p = await publishedPost(h, 'x');
    const top = audienceComment(h, p, 'Is there a discount?');
    const nested = audienceComment(h, p, 'Me too', top, 'fan_two');
    const { sync, byProviderId } = await synced(p);
    assert.equal(sync.created, 2);
    assert.equal(byProviderId.get(nested)!.parentProviderCommentId, top);
    assert.equal(byProviderId.get(top)!.parentProviderCommentId, null);

    const r = await reply(p, byProviderId.get(top)!.socialCommentId, 'Yes: code HELLO10');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.mode, 'replied');
    const tweet = h.x.state.tweets.get(r.body.reply.providerCommentId)!;
    assert.equal(tweet.text, 'Yes: code HELLO10');
    assert.equal(tweet.inReplyToId, top);
    assert.equal(r.body.comment.status, 'replied');
    // the next sync sees our reply as the channel's own, not as a new audience comment
    const again = await synced(p);
    assert.equal(again.sync.created, 0);
    assert.equal(again.byProviderId.get(r.body.reply.providerCommentId)!.isOwn, true);
    assert.equal(again.byProviderId.get(top)!.replyStatus, 'replied');
  });

  it('Instagram: replies to top-level comments only (422 on a reply to a reply)', async () => {
    const p = await publishedPost(h, 'instagram_business');
    const top = audienceComment(h, p, 'Which size is this?');
    const nested = audienceComment(h, p, 'Same question', top, 'fan_two');
    const { byProviderId } = await synced(p);
    assert.equal(byProviderId.get(nested)!.parentProviderCommentId, top);
    assert.equal(byProviderId.get(nested)!.capabilities.canReply, false);

    const refused = await reply(p, byProviderId.get(nested)!.socialCommentId, 'Size M');
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.error, 'provider_comment_reply_unsupported');

    const ok = await reply(p, byProviderId.get(top)!.socialCommentId, 'Size M');
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.mode, 'replied');
    assert.ok(ok.body.reply.providerCommentId);
  });

  it('Threads: replies are read and answered; the answer carries the daily reply budget', async () => {
    const p = await publishedPost(h, 'threads');
    const top = audienceComment(h, p, 'Love this thread');
    const { sync, byProviderId } = await synced(p);
    assert.equal(sync.created, 1);
    const dry = await reply(p, byProviderId.get(top)!.socialCommentId, 'Thank you!', true);
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.mode, 'dry_run');
    assert.equal(dry.body.reply.replyId, null);
    assert.deepEqual(dry.body.budget, { name: 'threads_replies', limit: 1000, remaining: 1000, window: '24h' });
    const live = await reply(p, byProviderId.get(top)!.socialCommentId, 'Thank you!');
    assert.equal(live.status, 200, JSON.stringify(live.body));
    assert.equal(live.body.mode, 'replied');
    assert.equal(live.body.budget.name, 'threads_replies');
    assert.equal(live.body.budget.remaining, 999);
    // the budget is Threads' own count (threads_publishing_limit): a reply the profile published in the app counts too
    const elsewhere = audienceComment(h, p, 'answered in the Threads app', top, 'owner');
    (h.meta.state.get(elsewhere) as { ownerId: string }).ownerId = p.externalAccountId;
    const second = audienceComment(h, p, 'Another question');
    await synced(p);
    const c2 = (await call(h, p.org, 'GET', `/v1/social-comments?providerPostId=${p.providerPostId}&status=needs_reply`)).body.data.find(
      (c: { providerCommentId: string }) => c.providerCommentId === second,
    );
    const dry2 = await reply(p, c2.socialCommentId, 'Sure!', true);
    assert.equal(dry2.body.budget.remaining, 998);
  });
});
