import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type PlatformHarness, startPlatformHarness } from '../publishing/platform-harness.js';
import { audienceComment, call, type Published, publishedPost, syncBody, syncComments } from './comments-helpers.js';

describe('comment replies and moderation', () => {
  let h: PlatformHarness;
  before(async () => {
    h = await startPlatformHarness();
    await h.ctx.startWorker();
  });
  after(() => h?.close());

  const synced = async (p: Published) => (await syncComments(h, p)).list;

  async function reply(
    p: Published,
    id: string,
    body: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
    query = '',
  ) {
    const res = await h.ctx.app.inject({
      method: 'POST',
      url: `/v1/social-comments/${id}/reply${query}`,
      headers: { ...p.org.auth, ...headers },
      payload: { organizationId: p.org.organizationId, brandId: p.org.brandId, body, ...extra },
    });
    return { status: res.statusCode, body: res.json() };
  }

  it('dry run posts nothing; a live reply posts once per Idempotency-Key and marks the comment replied', async () => {
    const p = await publishedPost(h, 'facebook_page');
    const cid = audienceComment(h, p, 'Do you ship to Canada?');
    const [c] = await synced(p);
    const before = h.meta.ledger.comments.length;
    const dry = await reply(p, c!.socialCommentId, 'Yes we do!');
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.mode, 'dry_run');
    assert.equal(h.meta.ledger.comments.length, before);

    const live = await reply(p, c!.socialCommentId, 'Yes we do!', { dryRun: false }, { 'idempotency-key': 'reply-1' });
    assert.equal(live.status, 200, JSON.stringify(live.body));
    assert.equal(live.body.mode, 'replied');
    assert.equal(live.body.comment.status, 'replied');
    assert.equal(live.body.comment.replyStatus, 'replied');
    const again = await reply(p, c!.socialCommentId, 'Yes we do!', { dryRun: false }, { 'idempotency-key': 'reply-1' });
    assert.equal(again.body.reply.replyId, live.body.reply.replyId);
    assert.equal(h.meta.ledger.comments.length, before + 1);
    assert.equal(h.meta.state.commentsOf(p.providerPostId).filter((x) => x.parentId === cid).length, 1);
    const otherBody = await reply(p, c!.socialCommentId, 'Different', { dryRun: false }, { 'idempotency-key': 'reply-1' });
    assert.equal(otherBody.status, 400);
    assert.equal(otherBody.body.error, 'invalid_public_social_comment_reply_request');

    // the next sync finds our reply as the channel's own comment: nothing new
    const s = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { dryRun: false }));
    assert.equal(s.body.created, 0);
    const own = (await synced(p)).find((x) => x.isOwn)!;
    assert.equal(own.parentProviderCommentId, cid);
    // replying to our own comment is not possible
    const self = await reply(p, own.socialCommentId, 'hello', { dryRun: false });
    assert.equal(self.status, 422);
    assert.equal(self.body.error, 'provider_comment_reply_unsupported');
  });

  it('a lost reply answer is needs_reconciliation and is reconciled by reading the thread, never posted twice', async () => {
    const p = await publishedPost(h, 'facebook_page');
    audienceComment(h, p, 'Is it vegan?');
    const [c] = await synced(p);
    h.meta.failures.inject({ kind: 'lost_response', operation: 'comment' });
    const lost = await reply(p, c!.socialCommentId, 'Yes, 100% vegan.', { dryRun: false }, { 'idempotency-key': 'k-lost' });
    assert.equal(lost.status, 200, JSON.stringify(lost.body));
    assert.equal(lost.body.mode, 'needs_reconciliation');
    assert.equal(lost.body.comment.replyStatus, 'needs_reconciliation');
    const posted = h.meta.ledger.comments.length;
    // the retry reads the thread, finds the reply and does not post again
    const retry = await reply(p, c!.socialCommentId, 'Yes, 100% vegan.', { dryRun: false }, { 'idempotency-key': 'k-lost' });
    assert.equal(retry.body.mode, 'replied', JSON.stringify(retry.body));
    assert.equal(retry.body.comment.replyStatus, 'replied');
    assert.ok(retry.body.reply.providerCommentId);
    assert.equal(h.meta.ledger.comments.length, posted);
  });

  for (const [platform, operation] of [
    ['x', 'publish'],
    ['instagram_business', 'comment'],
    ['threads', 'publish'],
  ] as const) {
    it(`${platform}: a lost reply answer is reconciled from the thread on the Idempotency-Key retry`, async () => {
      const p = await publishedPost(h, platform);
      const cid = audienceComment(h, p, `When does it ship? (${platform})`);
      const c = (await synced(p)).find((x) => x.providerCommentId === cid)!;
      const answersUnder = () =>
        platform === 'x'
          ? [...h.x.state.tweets.values()].filter((t) => t.inReplyToId === cid).length
          : platform === 'threads'
            ? h.meta.state.repliesTo(cid).length
            : h.meta.state.commentsOf(p.providerPostId).filter((x) => x.parentId === cid).length;
      (platform === 'x' ? h.x.failures : h.meta.failures).inject({ kind: 'lost_response', operation });
      const text = `Next Monday (${platform}).`;
      const lost = await reply(p, c.socialCommentId, text, { dryRun: false }, { 'idempotency-key': `lost-${platform}` });
      assert.equal(lost.status, 200, JSON.stringify(lost.body));
      assert.equal(lost.body.mode, 'needs_reconciliation');
      assert.equal(lost.body.comment.replyStatus, 'needs_reconciliation');
      assert.equal(answersUnder(), 1, 'the platform did post it');
      const retry = await reply(p, c.socialCommentId, text, { dryRun: false }, { 'idempotency-key': `lost-${platform}` });
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal(retry.body.mode, 'replied');
      assert.equal(retry.body.reply.replyId, lost.body.reply.replyId);
      assert.ok(retry.body.reply.providerCommentId);
      assert.equal(retry.body.comment.replyStatus, 'replied');
      assert.equal(answersUnder(), 1, 'never posted twice');
    });
  }

  it('a lost reply is also reconciled by the next sync', async () => {
    const p = await publishedPost(h, 'facebook_page');
    audienceComment(h, p, 'Price?');
    const [c] = await synced(p);
    h.meta.failures.inject({ kind: 'lost_response', operation: 'comment' });
    const lost = await reply(p, c!.socialCommentId, 'See the link in bio.', { dryRun: false });
    assert.equal(lost.body.mode, 'needs_reconciliation');
    const list = await synced(p);
    const parent = list.find((x) => x.socialCommentId === c!.socialCommentId)!;
    assert.equal(parent.replyStatus, 'replied');
    assert.equal(parent.status, 'replied');
  });

  it('errors: unknown comment, channel guard, bad query, bad body, too long', async () => {
    const p = await publishedPost(h, 'x');
    audienceComment(h, p, 'nice');
    const [c] = await synced(p);
    const missing = await reply(p, 'sc_01HZZZZZZZZZZZZZZZZZZZZZZZ', 'hi');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, 'social_comment_not_found');
    const malformed = await reply(p, 'nope', 'hi');
    assert.ok([400, 404].includes(malformed.status));
    const guard = await reply(p, c!.socialCommentId, 'hi', {}, {}, '?channelAccountId=ca_other');
    assert.equal(guard.status, 404);
    const badQuery = await reply(p, c!.socialCommentId, 'hi', {}, {}, '?foo=1');
    assert.equal(badQuery.status, 400);
    assert.equal(badQuery.body.error, 'invalid_public_social_comment_reply_query');
    const badBody = await reply(p, c!.socialCommentId, 'hi', { extra: true });
    assert.equal(badBody.body.error, 'invalid_public_social_comment_reply_request');
    const long = await reply(p, c!.socialCommentId, 'x'.repeat(281));
    assert.equal(long.status, 400);
    assert.equal(long.body.error, 'invalid_public_social_comment_reply_request');
    const ok = await reply(p, c!.socialCommentId, 'Thanks!', { dryRun: false });
    assert.equal(ok.body.mode, 'replied', JSON.stringify(ok.body));
    assert.equal(h.x.state.tweets.get(ok.body.reply.providerCommentId)?.inReplyToId, c!.providerCommentId);
  });

  it("X hidden replies: hide then unhide through PUT /2/tweets/:id/hidden; X refuses outside the channel's conversation", async () => {
    const p = await publishedPost(h, 'x');
    const reply1 = audienceComment(h, p, 'spam on x');
    const [c] = await synced(p);
    assert.equal(c!.providerCommentId, reply1);
    assert.equal(c!.capabilities.canHide, true);
    const hide = await call(h, p.org, 'POST', `/v1/social-comments/${c!.socialCommentId}/hide`, { hidden: true });
    assert.equal(hide.status, 200, JSON.stringify(hide.body));
    assert.equal(hide.body.hidden, true);
    assert.ok(h.x.state.hiddenReplies.has(reply1));
    assert.equal(h.x.ledger.count('hide_reply'), 1);
    const show = await call(h, p.org, 'POST', `/v1/social-comments/${c!.socialCommentId}/hide`, { hidden: false });
    assert.equal(show.status, 200, JSON.stringify(show.body));
    assert.equal(show.body.hidden, false);
    assert.ok(!h.x.state.hiddenReplies.has(reply1));

    // a conversation another account started: X answers 403, the comment stays as it was
    const stranger = h.x.state.user('someone_else');
    const foreignPost = h.x.state.createTweet(stranger.id, `not ours ${Date.now()}`);
    const foreignReply = h.x.state.seedReply(foreignPost.id, { username: 'fan_three', text: 'hello there' }).id;
    const s = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { providerPostId: foreignPost.id, dryRun: false }));
    assert.equal(s.status, 200, JSON.stringify(s.body));
    const foreign = (await call(h, p.org, 'GET', `/v1/social-comments?providerPostId=${foreignPost.id}`)).body.data[0];
    assert.equal(foreign.providerCommentId, foreignReply);
    const refused = await call(h, p.org, 'POST', `/v1/social-comments/${foreign.socialCommentId}/hide`, { hidden: true });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error, 'invalid_public_social_comment_hide_request');
    assert.equal(refused.body.providerCategory, 'platform_rejected');
    assert.equal(refused.body.platform, 'x');
    assert.ok(!h.x.state.hiddenReplies.has(foreignReply));
    assert.equal((await call(h, p.org, 'GET', `/v1/social-comments/${foreign.socialCommentId}`)).body.hidden, false);

    // a grant without tweet.moderate.write (connected before the scope was asked for): X refuses, reconnecting fixes it
    const tokens = [...h.x.state.tokens.values()].filter((t) => t.userId === p.externalAccountId);
    const saved = tokens.map((t) => [...t.scopes]);
    for (const t of tokens) t.scopes = t.scopes.filter((x) => x !== 'tweet.moderate.write');
    try {
      const noScope = await call(h, p.org, 'POST', `/v1/social-comments/${c!.socialCommentId}/hide`, { hidden: true });
      assert.equal(noScope.status, 400, JSON.stringify(noScope.body));
      assert.match(noScope.body.message, /tweet\.moderate\.write/);
      assert.ok(!h.x.state.hiddenReplies.has(reply1));
    } finally {
      tokens.forEach((t, i) => {
        t.scopes = saved[i]!;
      });
    }
  });

  it('hide and unhide on Facebook, Instagram and Threads', async () => {
    for (const platform of ['facebook_page', 'instagram_business', 'threads'] as const) {
      const p = await publishedPost(h, platform);
      audienceComment(h, p, `spam on ${platform}`);
      const [c] = await synced(p);
      const hide = await call(h, p.org, 'POST', `/v1/social-comments/${c!.socialCommentId}/hide`, { hidden: true });
      assert.equal(hide.status, 200, `${platform} ${JSON.stringify(hide.body)}`);
      assert.equal(hide.body.hidden, true);
      const show = await call(h, p.org, 'POST', `/v1/social-comments/${c!.socialCommentId}/hide`, { hidden: false });
      assert.equal(show.body.hidden, false);
    }
  });
});
