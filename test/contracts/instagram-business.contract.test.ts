/**
 * Instagram with Facebook Login under Meta's own node specs (contracts/facebook-graph: IGUser, IGMedia,
 * IGComment, the container node): every adapter operation runs against the Meta simulator, whose guard
 * checks each request and, here, each answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createInstagramBusinessProvider } from '../../src/providers/instagram-business/instagram-business.provider.js';
import { INSTAGRAM_BUSINESS_API } from '../../src/providers/instagram-business/instagram-business.rules.js';
import { GRAPH_API_VERSION } from '../../src/providers/meta-shared/meta-api-version.js';
import type { ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { ctxFor, type MetaHarness, startMetaHarness } from '../providers/meta-harness.js';
import { underContract, verdictOf } from '../support/contracts.js';
import { assertRecordFollowsDescription } from './api-record.js';
import {
  commentsUnderContract,
  connectUnderContract,
  provisionUnderContract,
  publishUnderContract,
  reconcileUnderContract,
} from './meta-contract-flow.js';

const CONTAINER = ['igUserCreateContainer', 'readNode', 'igUserMediaPublish'];

describe('instagram_business contract: every request and answer against the Graph API node specs', () => {
  let h: MetaHarness;
  let provider: SocialProvider;
  let ig: ProviderCallContext;

  before(async () => {
    h = await startMetaHarness();
    provider = createInstagramBusinessProvider(h.config('instagram_business'));
  });
  after(() => h.close());

  test('connect: code exchange, long-lived token, refresh, linked Instagram accounts', async () => {
    const { tokens, accounts } = await connectUnderContract(h, provider, {
      connect: ['oauthAccessToken', 'userPermissions'],
      refresh: ['oauthAccessToken'],
      lookup: ['userAccounts'],
    });
    ig = ctxFor(tokens.accessToken, accounts[0]!.externalAccountId);
  });

  test('publish image, video, reel, story and carousel', async () => {
    await publishUnderContract(h, provider, ig, { name: 'image', text: 'Latte art', media: (x) => [x.image()], calls: CONTAINER }, 'i1');
    await publishUnderContract(h, provider, ig, { name: 'video', text: 'A clip', media: (x) => [x.video()], calls: CONTAINER }, 'i2');
    await publishUnderContract(
      h,
      provider,
      ig,
      { name: 'reel', text: 'A reel', media: (x) => [x.video()], settings: { postType: 'reel', shareToFeed: true }, calls: CONTAINER },
      'i3',
    );
    await publishUnderContract(
      h,
      provider,
      ig,
      { name: 'story', text: '', media: (x) => [x.image()], settings: { postType: 'story' }, calls: CONTAINER },
      'i4',
    );
    await publishUnderContract(
      h,
      provider,
      ig,
      { name: 'carousel', text: 'Three', media: (x) => [x.image(), x.video(), x.image()], calls: CONTAINER },
      'i5',
    );
  });

  test('comments, metrics, reconciliation, tools and webhook provisioning', async () => {
    const postId = await publishUnderContract(
      h,
      provider,
      ig,
      { name: 'image', text: 'Talk to me', media: (x) => [x.image()], calls: CONTAINER },
      'i6',
    );
    await commentsUnderContract(h, provider, ig, postId, {
      comment: ['createComment'],
      reply: ['igCommentReply'],
      list: ['objectComments', 'igCommentReplies'],
      hide: ['updateComment'],
    });
    await underContract(h.sim.ledger, 'analytics', () => provider.fetchPostAnalytics(ig, { providerPostId: postId }), ['objectInsights']);
    await underContract(h.sim.ledger, 'permalink', () => provider.fetchPermalink(ig, postId), ['readNode']);
    await reconcileUnderContract(h, provider, ig, 'Talk to me', ['image'], ['igUserMedia']);
    await underContract(h.sim.ledger, 'pageProfile tool', () => provider.runTool(ig, 'pageProfile', {}), ['readNode']);
    await underContract(h.sim.ledger, 'mentionSearch tool', () => provider.runTool(ig, 'mentionSearch', { query: 'sandbox.tea' }), [
      'readNode',
    ]);
    await provisionUnderContract(h, 'instagram_business', 'instagram', ['comments']);
  });

  test('the description rejects what the Graph API refuses', async () => {
    const noCreation = await verdictOf('facebook-graph', {
      method: 'POST',
      path: `/${GRAPH_API_VERSION}/1789/media_publish`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: { access_token: 't' },
    });
    assert.deepEqual(
      noCreation.violations.map((v) => v.field),
      ['body.creation_id'],
    );
    const typo = await verdictOf('facebook-graph', {
      method: 'POST',
      path: `/${GRAPH_API_VERSION}/1789/media`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: { access_token: 't', image_urls: 'https://example.com/a.jpg' },
    });
    assert.deepEqual(
      typo.violations.map((v) => v.field),
      ['body.image_urls'],
    );
  });

  test('the API version record follows the vendored description', async () => {
    await assertRecordFollowsDescription(INSTAGRAM_BUSINESS_API);
  });
});
