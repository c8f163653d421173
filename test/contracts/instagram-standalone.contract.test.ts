/**
 * Instagram with Instagram Login under Meta's own node specs (contracts/instagram-graph: the IG-only
 * user and media nodes, the IG comment and container nodes, and the token endpoints from their reference
 * pages): every adapter operation runs against the Meta simulator, whose guard checks each request and,
 * here, each answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createInstagramStandaloneProvider } from '../../src/providers/instagram-standalone/instagram-standalone.provider.js';
import { INSTAGRAM_STANDALONE_API } from '../../src/providers/instagram-standalone/instagram-standalone.rules.js';
import { GRAPH_API_VERSION } from '../../src/providers/meta-shared/meta-api-version.js';
import type { ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { ctxFor, type MetaHarness, startMetaHarness } from '../providers/meta-harness.js';
import { underContract, verdictOf } from '../support/contracts.js';
import { assertRecordFollowsDescription } from './api-record.js';
import { commentsUnderContract, connectUnderContract, publishUnderContract, reconcileUnderContract } from './meta-contract-flow.js';

const CONTAINER = ['createContainer', 'readNode', 'mediaPublish'];

describe('instagram_standalone contract: every request and answer against the Instagram API description', () => {
  let h: MetaHarness;
  let provider: SocialProvider;
  let ig: ProviderCallContext;

  before(async () => {
    h = await startMetaHarness();
    provider = createInstagramStandaloneProvider(h.config('instagram_standalone'));
  });
  after(() => h.close());

  test('connect: code exchange, long-lived token, refresh, the account', async () => {
    const { tokens, accounts } = await connectUnderContract(h, provider, {
      connect: ['oauthAccessToken', 'longLivedToken'],
      refresh: ['refreshToken'],
      lookup: ['me'],
    });
    ig = ctxFor(tokens.accessToken, accounts[0]!.externalAccountId);
  });

  test('publish image, video, reel, story and carousel', async () => {
    await publishUnderContract(h, provider, ig, { name: 'image', text: 'Latte art', media: (x) => [x.image()], calls: CONTAINER }, 's1');
    await publishUnderContract(h, provider, ig, { name: 'video', text: 'A clip', media: (x) => [x.video()], calls: CONTAINER }, 's2');
    await publishUnderContract(
      h,
      provider,
      ig,
      { name: 'reel', text: 'A reel', media: (x) => [x.video()], settings: { postType: 'reel' }, calls: CONTAINER },
      's3',
    );
    await publishUnderContract(
      h,
      provider,
      ig,
      { name: 'story', text: '', media: (x) => [x.image()], settings: { postType: 'story' }, calls: CONTAINER },
      's4',
    );
    await publishUnderContract(
      h,
      provider,
      ig,
      { name: 'carousel', text: 'Two', media: (x) => [x.image(), x.image()], calls: CONTAINER },
      's5',
    );
  });

  test('comments, metrics, reconciliation and tools', async () => {
    const postId = await publishUnderContract(
      h,
      provider,
      ig,
      { name: 'image', text: 'Talk to me', media: (x) => [x.image()], calls: CONTAINER },
      's6',
    );
    await commentsUnderContract(h, provider, ig, postId, {
      comment: ['createComment'],
      reply: ['createReply'],
      list: ['mediaComments', 'commentReplies'],
      hide: ['hideComment'],
    });
    await underContract(h.sim.ledger, 'analytics', () => provider.fetchPostAnalytics(ig, { providerPostId: postId }), ['mediaInsights']);
    await underContract(h.sim.ledger, 'permalink', () => provider.fetchPermalink(ig, postId), ['readNode']);
    await reconcileUnderContract(h, provider, ig, 'Talk to me', ['image'], ['userMedia']);
    await underContract(h.sim.ledger, 'pageProfile tool', () => provider.runTool(ig, 'pageProfile', {}), ['me']);
  });

  test('the description rejects what the Instagram API refuses', async () => {
    const wrongGrant = await verdictOf('instagram-graph', {
      method: 'GET',
      path: '/refresh_access_token?grant_type=fb_exchange_token&access_token=t',
      headers: {},
    });
    assert.ok(wrongGrant.violations.some((v) => v.field === 'query.grant_type'));
    const badField = await verdictOf('instagram-graph', {
      method: 'GET',
      path: `/${GRAPH_API_VERSION}/me?fields=user_id,fan_count&access_token=t`,
      headers: {},
    });
    assert.ok(badField.violations.some((v) => v.field === 'query.fields'));
  });

  test('the API version record follows the vendored description', async () => {
    await assertRecordFollowsDescription(INSTAGRAM_STANDALONE_API);
  });
});
