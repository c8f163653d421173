/**
 * Facebook Pages under Meta's own node specs (contracts/facebook-graph): every adapter operation runs
 * against the Meta simulator, whose guard checks each request against the description and, here, each
 * answer against its response schemas.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createFacebookPageProvider } from '../../src/providers/facebook-page/facebook-page.provider.js';
import { FACEBOOK_PAGE_API } from '../../src/providers/facebook-page/facebook-page.rules.js';
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

describe('facebook_page contract: every request and answer against the Graph API node specs', () => {
  let h: MetaHarness;
  let provider: SocialProvider;
  let page: ProviderCallContext;

  before(async () => {
    h = await startMetaHarness();
    provider = createFacebookPageProvider(h.config('facebook_page'));
  });
  after(() => h.close());

  test('connect: code exchange, long-lived token, refresh, granted permissions, Pages', async () => {
    const { accounts } = await connectUnderContract(h, provider, {
      connect: ['oauthAccessToken', 'userPermissions'],
      refresh: ['oauthAccessToken', 'userPermissions'],
      lookup: ['userAccounts'],
    });
    const first = accounts.find((a) => a.externalAccountId === h.sim.state.seed.pageId);
    assert.ok(first?.accountAccessToken);
    page = ctxFor(first.accountAccessToken, first.externalAccountId);
  });

  test('publish text, link, photo, album and video', async () => {
    await publishUnderContract(
      h,
      provider,
      page,
      { name: 'text', text: 'Fresh roast today', media: () => [], calls: ['pageFeedPost'] },
      'c1',
    );
    await publishUnderContract(
      h,
      provider,
      page,
      { name: 'link', text: 'Menu', media: () => [], settings: { link: 'https://example.com/menu' }, calls: ['pageFeedPost'] },
      'c2',
    );
    await publishUnderContract(
      h,
      provider,
      page,
      { name: 'photo', text: 'One photo', media: (x) => [x.image()], calls: ['pagePhotoPost'] },
      'c3',
    );
    await publishUnderContract(
      h,
      provider,
      page,
      { name: 'album', text: 'Two photos', media: (x) => [x.image(), x.image()], calls: ['pagePhotoPost', 'pageFeedPost'] },
      'c4',
    );
    await publishUnderContract(
      h,
      provider,
      page,
      { name: 'video', text: 'A clip', media: (x) => [x.video()], settings: { videoTitle: 'Clip' }, calls: ['pageVideoPost', 'readNode'] },
      'c5',
    );
  });

  test('comments, metrics, reconciliation, tools and webhook provisioning', async () => {
    const postId = await publishUnderContract(
      h,
      provider,
      page,
      { name: 'text', text: 'Comment on me', media: () => [], calls: ['pageFeedPost'] },
      'c6',
    );
    await commentsUnderContract(h, provider, page, postId, {
      comment: ['createComment'],
      reply: ['createComment'],
      list: ['objectComments'],
      hide: ['updateComment'],
    });
    await underContract(h.sim.ledger, 'analytics', () => provider.fetchPostAnalytics(page, { providerPostId: postId }), ['objectInsights']);
    await underContract(h.sim.ledger, 'metrics', () => provider.fetchPostMetrics!(page, { providerPostId: postId }), ['objectInsights']);
    await underContract(h.sim.ledger, 'permalink', () => provider.fetchPermalink(page, postId), ['readNode']);
    await reconcileUnderContract(h, provider, page, 'Comment on me', [], ['pagePosts']);
    await underContract(h.sim.ledger, 'pageProfile tool', () => provider.runTool(page, 'pageProfile', {}), ['readNode']);
    await underContract(h.sim.ledger, 'mentionSearch tool', () => provider.runTool(page, 'mentionSearch', { query: 'cafe' }), [
      'pagesSearch',
    ]);
    await provisionUnderContract(h, 'facebook_page', 'page', ['feed']);
  });

  test('the description rejects what the Graph API refuses', async () => {
    const v = GRAPH_API_VERSION;
    const unknown = await verdictOf('facebook-graph', {
      method: 'POST',
      path: `/${v}/123/feed`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: { access_token: 't', messages: 'typo' },
    });
    assert.deepEqual(
      unknown.violations.map((x) => x.field),
      ['body.messages'],
    );
    const badField = await verdictOf('facebook-graph', { method: 'GET', path: `/${v}/123?fields=id,nmae&access_token=t`, headers: {} });
    assert.ok(badField.violations.some((x) => x.field === 'query.fields'));
  });

  test('the simulator answers an invalid request with the Graph error body', async () => {
    const res = await fetch(`${h.sim.baseUrls.facebook_page.apiBaseUrl}/${page.externalAccountId}/feed`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: page.accessToken, mesage: 'typo' }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: number; type: string; message: string; fbtrace_id: string } };
    assert.equal(body.error.code, 100);
    assert.equal(body.error.type, 'OAuthException');
    assert.match(body.error.message, /body\.mesage/);
    assert.ok(body.error.fbtrace_id);
  });

  test('the API version record follows the vendored description', async () => {
    await assertRecordFollowsDescription(FACEBOOK_PAGE_API);
  });
});
