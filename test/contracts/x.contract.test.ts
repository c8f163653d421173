/**
 * X API v2 contract: every adapter operation we use on X runs through the real adapter against the X
 * simulator, which checks each request against the vendored description (contracts/x, with its
 * corrections); with `checkAnswers` on, each simulator answer is checked against the response schemas.
 * A violation names the operation and the field. The description has no OAuth 2.0 endpoints (token,
 * refresh, revoke: the simulator's own reading of docs.x.com's OAuth pages, see X_UNDESCRIBED).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadContract } from '../../src/platform/contracts/contracts.js';
import type { ProviderCallContext } from '../../src/providers/provider.js';
import { ensureXWebhook, subscribeXUser, xCrcResponse } from '../../src/providers/webhooks/x-webhooks.js';
import { multipartBody } from '../../src/providers/x/x.media.js';
import { X_API } from '../../src/providers/x/x.rules.js';
import { media, published, REDIRECT, startXHarness, type XHarness } from '../providers/x-harness.js';
import { underContract, violationsOf } from '../support/contracts.js';

describe('X adapter under the X API v2 description', () => {
  let h: XHarness;
  let ctx: ProviderCallContext;
  let callback: FastifyInstance;

  before(async () => {
    h = await startXHarness();
    h.sim.ledger.checkAnswers = true;
    const tokens = await h.connect('contract_user');
    const [account] = await h.provider.lookupAccounts({ tokens });
    ctx = { accessToken: tokens.accessToken, externalAccountId: account!.externalAccountId, channelSettings: { handle: 'contract_user' } };
    callback = Fastify({ logger: false });
    callback.get('/x-hook', async (req) =>
      xCrcResponse(String((req.query as { crc_token?: string }).crc_token), h.sim.state.consumerSecret ?? ''),
    );
    await callback.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await h.sim.close();
    await callback.close();
  });

  it('the API version record follows the vendored description', async () => {
    const x = await loadContract('x');
    assert.equal(X_API.contract, 'x');
    assert.equal(X_API.descriptionVersion, x.version);
    assert.equal(X_API.descriptionDate, x.source.committedAt.slice(0, 10));
  });

  it('account lookup and token refresh', async () => {
    const tokens = await h.connect('contract_refresh');
    await underContract(h.sim.ledger, 'account lookup', () => h.provider.lookupAccounts({ tokens }), ['getUsersMe']);
    const refreshed = await h.provider.oauth.refresh({ refreshToken: tokens.refreshToken, accessToken: tokens.accessToken });
    assert.ok(refreshed.accessToken);
  });

  it('publishes text, images (one-shot upload with alt text), a video and a GIF (chunked upload with status polling)', async () => {
    await underContract(
      h.sim.ledger,
      'publish text',
      () => h.provider.publish(ctx, { text: 'contract text', media: [], settings: {}, idempotencyKey: 'k1' }),
      ['createPosts'],
    );
    await underContract(
      h.sim.ledger,
      'publish images',
      async () =>
        published(
          await h.provider.publish(ctx, {
            text: 'contract images',
            media: [media('image', 3000, 'alt words'), media('image', 2000)],
            settings: {},
            idempotencyKey: 'k2',
          }),
        ),
      ['mediaUpload', 'createMediaMetadata', 'createPosts'],
    );
    for (const kind of ['video', 'gif'] as const) {
      await underContract(
        h.sim.ledger,
        `publish ${kind}`,
        async () => {
          const first = await h.provider.publish(ctx, {
            text: `contract ${kind}`,
            media: [media(kind, 1_500_000)],
            settings: {},
            idempotencyKey: `k-${kind}`,
          });
          return h.pollUntilPublished(ctx, first);
        },
        ['initializeMediaUpload', 'appendMediaUpload', 'finalizeMediaUpload', 'getMediaUploadStatus', 'createPosts'],
      );
    }
  });

  it('first comment, reply, comment list, hide, permalink, metrics and recent-posts reconciliation', async () => {
    const since = new Date(Date.now() - 1000);
    const post = published(await h.provider.publish(ctx, { text: 'contract thread', media: [], settings: {}, idempotencyKey: 'k3' }));
    const comment = await underContract(
      h.sim.ledger,
      'first comment',
      () => h.provider.postComment(ctx, { providerPostId: post.providerPostId, text: 'first!' }),
      ['createPosts'],
    );
    const fan = h.sim.state.seedReply(post.providerPostId, { username: 'a_fan', text: 'nice' });
    await underContract(
      h.sim.ledger,
      'reply',
      () => h.provider.postComment(ctx, { providerPostId: post.providerPostId, text: 'thanks', replyToCommentId: fan.id }),
      ['createPosts'],
    );
    const { result: comments } = await underContract(
      h.sim.ledger,
      'comment list',
      () => h.provider.listComments(ctx, { providerPostId: post.providerPostId, limit: 50 }),
      ['searchPostsRecent'],
    );
    assert.ok(comments.some((c) => c.providerCommentId === comment.result.providerCommentId));
    await underContract(
      h.sim.ledger,
      'hide',
      () => h.provider.hideComment!(ctx, { providerCommentId: fan.id, providerPostId: post.providerPostId, hidden: true }),
      ['hidePostsReply'],
    );
    await underContract(h.sim.ledger, 'permalink', () => h.provider.fetchPermalink(ctx, post.providerPostId), ['getPostsById']);
    await underContract(h.sim.ledger, 'analytics', () => h.provider.fetchPostAnalytics(ctx, { providerPostId: post.providerPostId }), [
      'getPostsById',
    ]);
    await underContract(h.sim.ledger, 'metrics sync', () => h.provider.fetchPostMetrics!(ctx, { providerPostId: post.providerPostId }), [
      'getPostsByIds',
    ]);
    const { result: found } = await underContract(
      h.sim.ledger,
      'recent-posts reconciliation',
      () =>
        h.provider.findRecentPost!(ctx, {
          text: 'contract thread',
          since,
          until: new Date(Date.now() + 1000),
          excludeIds: [],
          mediaKinds: [],
          settings: {},
        }),
      ['getUsersPosts'],
    );
    assert.equal(found.status, 'found');
  });

  it('provider tools and webhook provisioning', async () => {
    h.sim.state.user('contract_brand');
    await underContract(h.sim.ledger, 'mention search', () => h.provider.runTool(ctx, 'mentionSearch', { query: '@contract_brand' }), [
      'searchUsers',
    ]);
    await underContract(h.sim.ledger, 'community search', () => h.provider.runTool(ctx, 'communitySearch', { query: 'makers' }), [
      'searchCommunities',
    ]);
    const address = callback.server.address() as { port: number };
    const { result: hook } = await underContract(
      h.sim.ledger,
      'webhook registration',
      () =>
        ensureXWebhook({
          apiBaseUrl: h.sim.baseUrls.apiBaseUrl,
          timeoutMs: 5000,
          appBearerToken: h.sim.state.appBearerToken,
          url: `http://127.0.0.1:${address.port}/x-hook`,
        }),
      ['getWebhooks', 'createWebhooks'],
    );
    await underContract(
      h.sim.ledger,
      'account subscription',
      () =>
        subscribeXUser({ apiBaseUrl: h.sim.baseUrls.apiBaseUrl, timeoutMs: 5000, webhookId: hook.id, userAccessToken: ctx.accessToken }),
      ['createAccountActivitySubscription'],
    );
  });

  it('rejects the old command form of POST /2/media/upload (INIT, APPEND, FINALIZE) as X does', async () => {
    const from = h.sim.ledger.contractChecks.length;
    const { body, contentType } = multipartBody({
      command: 'INIT',
      media_type: 'image/png',
      total_bytes: '3000',
      media_category: 'tweet_image',
    });
    const res = await fetch(`${h.sim.baseUrls.uploadBaseUrl}/media/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.accessToken}`, 'content-type': contentType },
      body,
    });
    assert.equal(res.status, 400);
    const answer = (await res.json()) as { type: string; errors: Array<{ message: string }> };
    assert.equal(answer.type, 'https://api.x.com/2/problems/invalid-request');
    const fields = violationsOf(h.sim.ledger, from).map((v) => `${v.operation} ${v.field}`);
    for (const field of ['body.command', 'body.total_bytes', 'body.media_type', 'body.media']) {
      assert.ok(fields.includes(`mediaUpload (POST /2/media/upload) ${field}`), fields.join('\n'));
    }
  });

  it('a request without the OAuth 2.0 user token is refused before any handler', async () => {
    const res = await fetch(`${h.sim.baseUrls.apiBaseUrl}/users/me`, { headers: {} });
    assert.equal(res.status, 401);
    assert.ok(REDIRECT);
  });
});
