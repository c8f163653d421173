import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFacebookPageProvider } from '../../src/providers/facebook-page/facebook-page.provider.js';
import { FACEBOOK_PAGE_CAPABILITY } from '../../src/providers/facebook-page/facebook-page.rules.js';
import { INSTAGRAM_BUSINESS_CAPABILITY } from '../../src/providers/instagram-business/instagram-business.rules.js';
import { INSTAGRAM_STANDALONE_CAPABILITY } from '../../src/providers/instagram-standalone/instagram-standalone.rules.js';
import { categorizeGraphError, graphErrorToProviderError, metaRetryAfterSeconds } from '../../src/providers/meta-shared/graph-errors.js';
import { THREADS_CAPABILITY } from '../../src/providers/threads/threads.rules.js';
import { META_SANDBOX_APP, metaSandboxBaseUrls, metaSimulatorPlugin } from '../../src/sandbox/simulators/meta.simulator.js';
import { mountSimulator } from '../support/simulators.js';
import { connect, ctxFor, postOf, REDIRECT_URI } from './meta-harness.js';

const err = (code: number, subcode?: number, extra: Record<string, unknown> = {}) => ({
  message: 'm',
  type: 'OAuthException',
  code,
  subcode: subcode ?? null,
  isTransient: false,
  userMessage: null,
  fbtraceId: null,
  ...extra,
});

describe('Meta Graph error mapping', () => {
  it('maps the documented codes to categories', () => {
    const cases: Array<[number, ReturnType<typeof err> | null, string]> = [
      [400, err(190), 'auth_expired'],
      [400, err(190, 460), 'auth_expired'],
      [400, err(102), 'auth_expired'],
      [400, err(4), 'rate_limited'],
      [400, err(17), 'rate_limited'],
      [400, err(32), 'rate_limited'],
      [400, err(613), 'rate_limited'],
      [400, err(80001), 'rate_limited'],
      [400, err(80002), 'rate_limited'],
      [400, err(9, 2207042), 'rate_limited'],
      [429, null, 'rate_limited'],
      [500, err(1), 'transient'],
      [503, err(2, undefined, { isTransient: true }), 'transient'],
      [502, null, 'transient'],
      [400, err(9007, 2207027), 'transient'],
      [400, err(100), 'user_content'],
      [400, err(506), 'user_content'],
      [400, err(9004, 2207052), 'user_content'],
      [400, err(36003, 2207009), 'user_content'],
      [403, err(10), 'platform_rejected'],
      [403, err(200), 'platform_rejected'],
      [400, err(368), 'platform_rejected'],
    ];
    for (const [status, body, expected] of cases)
      assert.equal(categorizeGraphError(status, body), expected, `${status} ${body?.code}/${body?.subcode}`);
  });

  it('reads estimated_time_to_regain_access (minutes) and Retry-After', () => {
    assert.equal(
      metaRetryAfterSeconds({
        'x-business-use-case-usage': JSON.stringify({
          '1': [{ type: 'pages', estimated_time_to_regain_access: 7 }],
        }),
      }),
      420,
    );
    assert.equal(metaRetryAfterSeconds({ 'retry-after': '30' }), 30);
    assert.equal(metaRetryAfterSeconds({ 'x-app-usage': '{"call_count":100}' }), null);
  });

  it('keeps tokens out of the stored provider response', () => {
    const e = graphErrorToProviderError('facebook_page', 400, {}, { error: { message: 'bad', code: 100 }, access_token: 'EAAsecret' });
    assert.doesNotMatch(JSON.stringify(e.providerResponse), /EAAsecret/);
    assert.doesNotMatch(e.message, /EAAsecret/);
  });
});

describe('Meta capabilities', () => {
  it('carry the documented text and item limits', () => {
    assert.equal(INSTAGRAM_BUSINESS_CAPABILITY.maxTextLength, 2200);
    assert.equal(INSTAGRAM_STANDALONE_CAPABILITY.mediaRule.maxItems, 10);
    assert.equal(THREADS_CAPABILITY.maxTextLength, 500);
    assert.equal(THREADS_CAPABILITY.mediaRule.maxItems, 20);
    assert.equal(FACEBOOK_PAGE_CAPABILITY.maxTextLength, 63206);
    for (const c of [INSTAGRAM_BUSINESS_CAPABILITY, INSTAGRAM_STANDALONE_CAPABILITY, THREADS_CAPABILITY, FACEBOOK_PAGE_CAPABILITY]) {
      assert.deepEqual(
        c.settingsFields,
        (c.settingRules ?? []).map((r) => r.field),
      );
      assert.ok(c.plugNames.includes('firstComment'));
    }
  });
});

describe('Meta simulator mounted under a prefix (sandbox mode)', () => {
  it('serves the OAuth round trip and publishing under the prefix', async () => {
    const sim = await mountSimulator(metaSimulatorPlugin, '/sandbox/meta', {});
    try {
      const origin = sim.origin;
      const urls = metaSandboxBaseUrls(origin, '/sandbox/meta');
      assert.equal(urls.facebook_page.apiBaseUrl, `${origin}/sandbox/meta/facebook/graph/v25.0`);
      const provider = createFacebookPageProvider({
        ...urls.facebook_page,
        clientId: META_SANDBOX_APP.clientId,
        clientSecret: META_SANDBOX_APP.clientSecret,
        redirectUri: REDIRECT_URI,
        timeoutMs: 2_000,
      });
      const tokens = await connect(provider);
      const [page] = await provider.lookupAccounts({ tokens });
      assert.ok(page?.accountAccessToken);
      const result = await provider.publish(ctxFor(page.accountAccessToken, page.externalAccountId), postOf('sandbox post', 'sb'));
      assert.equal(result.status, 'published');
      assert.equal(sim.ledger.posts.length, 1);
    } finally {
      await sim.close();
    }
  });
});
