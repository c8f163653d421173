import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { editComment } from '../../src/sandbox/simulators/meta/meta-comments.js';
import { type PlatformHarness, startPlatformHarness } from '../publishing/platform-harness.js';
import { audienceComment, call, publishedPost, syncBody } from './comments-helpers.js';

describe('comment sync (Facebook Page)', () => {
  let h: PlatformHarness;
  before(async () => {
    h = await startPlatformHarness();
    await h.ctx.startWorker();
  });
  after(() => h?.close());

  it('dry run answers what would change and stores nothing; a live sync upserts; a second sync creates nothing', async () => {
    const p = await publishedPost(h, 'facebook_page');
    const c1 = audienceComment(h, p, 'Where can I buy this?');
    audienceComment(h, p, 'Love it');

    const dry = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p));
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.mode, 'dry_run');
    assert.equal(dry.body.fetched, 2);
    assert.equal(dry.body.created, 2);
    assert.ok(dry.body.comments.every((c: { socialCommentId: string | null }) => c.socialCommentId === null));
    assert.equal((await call(h, p.org, 'GET', '/v1/social-comments')).body.data.length, 0);

    const live = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { dryRun: false, postTargetId: p.postTargetId }));
    assert.equal(live.status, 200, JSON.stringify(live.body));
    assert.equal(live.body.mode, 'synced');
    assert.equal(live.body.created, 2);
    const list = (await call(h, p.org, 'GET', `/v1/social-comments?channelAccountId=${p.channelAccountId}`)).body.data;
    assert.equal(list.length, 2);
    const first = list.find((c: { providerCommentId: string }) => c.providerCommentId === c1);
    assert.equal(first.status, 'needs_reply');
    assert.equal(first.replyStatus, 'none');
    assert.equal(first.postTargetId, p.postTargetId);
    assert.equal(first.authorName, 'fan_one');
    assert.deepEqual(first.capabilities, { canReply: true, canHide: true, canDelete: true });

    const again = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { dryRun: false }));
    assert.equal(again.body.created, 0);
    assert.equal(again.body.updated, 0);

    // an edited comment is updated in place
    editComment(h.meta.state, c1, 'Where can I buy this? (edited)');
    const edited = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { dryRun: false }));
    assert.equal(edited.body.created, 0);
    assert.equal(edited.body.updated, 1);
    const one = (await call(h, p.org, 'GET', '/v1/social-comments')).body.data.find(
      (c: { providerCommentId: string }) => c.providerCommentId === c1,
    );
    assert.equal(one.body, 'Where can I buy this? (edited)');
    assert.equal(one.socialCommentId, first.socialCommentId);
  });

  it('threads are kept; the page answering in the thread marks the parent replied', async () => {
    const p = await publishedPost(h, 'facebook_page');
    const top = audienceComment(h, p, 'Question?');
    const nested = audienceComment(h, p, 'Same question', top, 'fan_two');
    // the page answers on the platform itself
    const pageToken = h.meta.state.pageToken(
      h.meta.state.seed.pageId,
      h.meta.state.issueToken({
        family: 'facebook',
        kind: 'user',
        subjectId: h.meta.state.seed.fbUserId,
        userId: null,
        scopes: ['pages_manage_engagement', 'pages_read_engagement', 'pages_show_list', 'pages_manage_posts'],
        longLived: true,
        ttlSeconds: null,
      }),
    ).token;
    const res = await fetch(`${h.meta.baseUrls.facebook_page.apiBaseUrl}/${top}/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ message: 'Yes, in the shop', access_token: pageToken }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const r = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { dryRun: false }));
    assert.equal(r.body.created, 3);
    const list = (await call(h, p.org, 'GET', '/v1/social-comments')).body.data as Array<Record<string, any>>;
    const byId = new Map<string, Record<string, any>>(list.map((c) => [c.providerCommentId, c]));
    const get = (id: string) => byId.get(id) as Record<string, any>;
    assert.equal(get(nested).parentProviderCommentId, top);
    assert.equal(get(top).status, 'replied');
    assert.equal(get(top).replyStatus, 'replied');
    const own = list.find((c) => c.isOwn) as Record<string, any>;
    assert.equal(own.body, 'Yes, in the shop');
    assert.equal(own.status, 'replied');
    assert.equal(own.capabilities.canReply, false);
    assert.equal(get(nested).status, 'needs_reply');
    // filters
    const needs = (await call(h, p.org, 'GET', '/v1/social-comments?status=needs_reply')).body.data;
    assert.deepEqual(
      needs.map((c: { providerCommentId: string }) => c.providerCommentId),
      [nested],
    );
  });

  it('list paginates with a cursor and is scoped to the organization', async () => {
    const p = await publishedPost(h, 'facebook_page');
    for (let i = 0; i < 5; i++) audienceComment(h, p, `comment ${i}`);
    await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { dryRun: false }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; body: any } = await call(
        h,
        p.org,
        'GET',
        `/v1/social-comments?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(r.status, 200);
      seen.push(...r.body.data.map((c: { socialCommentId: string }) => c.socialCommentId));
      cursor = r.body.nextCursor;
    } while (cursor);
    assert.equal(seen.length, 5);
    assert.equal(new Set(seen).size, 5);

    const other = await publishedPost(h, 'facebook_page');
    assert.equal((await call(h, other.org, 'GET', '/v1/social-comments')).body.data.length, 0);
    // another organization's channel cannot be synced
    const foreign = await call(h, other.org, 'POST', '/v1/social-comments/sync', {
      ...syncBody(p),
      organizationId: other.org.organizationId,
      brandId: other.org.brandId,
    });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error, 'channel_account_not_found');
    // naming another organization in the body: not found, as every other area answers
    const mismatch = await call(h, other.org, 'POST', '/v1/social-comments/sync', syncBody(p));
    assert.equal(mismatch.status, 404);
    assert.equal(mismatch.body.error, 'social_comment_not_found');
    assert.deepEqual(mismatch.body.fields, [{ path: ['organizationId'], source: 'body' }]);
    const badCursor = await call(h, p.org, 'GET', '/v1/social-comments?status=replied&cursor=abc');
    assert.equal(badCursor.status, 400);
  });
});
