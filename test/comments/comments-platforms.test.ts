import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { commentsRepository } from '../../src/modules/comments/comments.repository.js';
import { COMMENT_ID_PREFIX } from '../../src/modules/comments/comments.schemas.js';
import { newId } from '../../src/platform/ids.js';
import { type PlatformHarness, startPlatformHarness } from '../publishing/platform-harness.js';
import { createTestContext } from '../support/harness.js';
import { audienceComment, call, type Published, publishedPost, syncBody } from './comments-helpers.js';

describe('comment sync and replies on X, Instagram and Threads; gates', () => {
  let h: PlatformHarness;
  before(async () => {
    h = await startPlatformHarness();
    await h.ctx.startWorker();
  });
  after(() => h?.close());

  async function synced(p: Published) {
    const r = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { dryRun: false }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const list = (await call(h, p.org, 'GET', `/v1/social-comments?channelAccountId=${p.channelAccountId}`)).body.data as Array<
      Record<string, any>
    >;
    return { sync: r.body, byProviderId: new Map(list.map((c) => [c.providerCommentId as string, c])) };
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

  it('gates: live writes answer 403 with the gate code before any platform call', async () => {
    const gated = await createTestContext({
      env: { SERVICE_PROVIDER_COMMENT_REPLY_ENABLED: 'false', SERVICE_SOCIAL_COMMENT_WRITE_ENABLED: 'false' },
    });
    const replyOnly = await createTestContext({ env: { SERVICE_PROVIDER_COMMENT_REPLY_ENABLED: 'false' } });
    try {
      for (const [ctx, code] of [
        [gated, 'social_comment_write_disabled'],
        [replyOnly, 'provider_comment_reply_disabled'],
      ] as const) {
        const o = await ctx.createOrganization({ name: 'gates' });
        const { brandId } = await ctx.createBrand(o.organizationId, 'gates brand');
        const at = new Date();
        const id = newId(COMMENT_ID_PREFIX);
        const channelAccountId = newId('cha');
        await commentsRepository.insert(ctx.database.db, {
          id,
          organization_id: o.organizationId,
          brand_id: brandId,
          channel_account_id: channelAccountId,
          platform: 'facebook_page',
          post_target_id: null,
          provider_post_id: '1_2',
          provider_comment_id: '1_2_3',
          parent_provider_comment_id: null,
          body: 'Hello?',
          author_name: 'fan',
          author_handle: null,
          permalink_url: null,
          provider_created_at: at,
          own: false,
          status: 'needs_reply',
          reply_status: 'none',
          metrics: '{}',
          last_synced_at: at,
          created_at: at,
          updated_at: at,
        });
        const res = await ctx.app.inject({
          method: 'POST',
          url: `/v1/social-comments/${id}/reply`,
          headers: o.auth,
          payload: { organizationId: o.organizationId, brandId, body: 'Hi!', dryRun: false },
        });
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().error, code);
        const stored = await ctx.app.inject({ method: 'GET', url: `/v1/social-comments/${id}`, headers: o.auth });
        assert.equal(stored.json().replyStatus, 'none');
        if (ctx === gated) {
          const sync = await ctx.app.inject({
            method: 'POST',
            url: '/v1/social-comments/sync',
            headers: o.auth,
            payload: {
              organizationId: o.organizationId,
              brandId,
              channelAccountId,
              platform: 'facebook_page',
              providerPostId: '1_2',
              dryRun: false,
            },
          });
          assert.equal(sync.statusCode, 403, sync.body);
          assert.equal(sync.json().error, 'social_comment_write_disabled');
        }
      }
    } finally {
      await gated.close();
      await replyOnly.close();
    }
  });
});
