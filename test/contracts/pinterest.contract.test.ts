/**
 * Pinterest API v5 contract: every adapter operation we use on Pinterest runs through the real adapter
 * against the Pinterest simulator, which checks each request against the vendored description
 * (contracts/pinterest, with its corrections); with `checkAnswers` on, each simulator answer is checked
 * against the response schemas. Pinterest has no comments API and no webhooks for Pins; the video bytes go
 * to the upload_url POST /v5/media hands out (a storage bucket's form POST, outside the API description).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadContract } from '../../src/platform/contracts/contracts.js';
import { PINTEREST_API } from '../../src/providers/pinterest/pinterest.rules.js';
import type { ProviderCallContext } from '../../src/providers/provider.js';
import { type PinterestHarness, REDIRECT, startPinterestHarness, videoItem } from '../providers/pinterest-harness.js';
import { underContract, violationsOf } from '../support/contracts.js';

describe('Pinterest adapter under the Pinterest API v5 description', () => {
  let h: PinterestHarness;
  let ctx: ProviderCallContext;

  before(async () => {
    h = await startPinterestHarness();
    h.sim.ledger.checkAnswers = true;
    ctx = h.freshContext();
  });
  after(() => h.close());

  it('the API version record follows the vendored description', async () => {
    const pinterest = await loadContract('pinterest');
    assert.equal(PINTEREST_API.contract, 'pinterest');
    assert.equal(PINTEREST_API.descriptionVersion, pinterest.version);
    assert.equal(PINTEREST_API.descriptionDate, pinterest.source.committedAt.slice(0, 10));
  });

  it('token exchange, refresh and account lookup', async () => {
    const res = await fetch(h.pin.oauth.authorizationUrl({ state: 's', redirectUri: REDIRECT, scopes: h.pin.oauth.defaultScopes }), {
      redirect: 'manual',
    });
    const code = new URL(res.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const { result: tokens } = await underContract(
      h.sim.ledger,
      'token exchange',
      () => h.pin.oauth.exchangeCode({ code, redirectUri: REDIRECT }),
      ['oauth/token'],
    );
    await underContract(
      h.sim.ledger,
      'token refresh',
      () => h.pin.oauth.refresh({ refreshToken: tokens.refreshToken, accessToken: tokens.accessToken }),
      ['oauth/token'],
    );
    await underContract(h.sim.ledger, 'account lookup', () => h.pin.lookupAccounts({ tokens }), ['user_account/get']);
  });

  it('publishes an image Pin, a carousel Pin (2 to 5 images) and a video Pin', async () => {
    await underContract(h.sim.ledger, 'image Pin', () => h.pin.publish(ctx, h.request([h.image('/pin.png', 'a pin')])), ['pins/create']);
    const { result: carousel } = await underContract(
      h.sim.ledger,
      'carousel Pin',
      () => h.pin.publish(ctx, h.request([h.image('/pin.png', 'first'), h.image(), h.image(), h.image(), h.image()])),
      ['pins/create'],
    );
    assert.equal(carousel.status, 'published');
    const stored = h.sim.state.pins.get(carousel.status === 'published' ? carousel.providerPostId : '');
    assert.equal((stored?.resource.media as { items?: unknown[] } | undefined)?.items?.length, 5);
    await underContract(
      h.sim.ledger,
      'video Pin',
      async () => {
        const first = await h.pin.publish(ctx, h.request([videoItem()]));
        assert.equal(first.status, 'processing');
        return h.pin.pollPublish(ctx, first.status === 'processing' ? first.pollToken : '');
      },
      ['media/create', 'media/get', 'pins/create'],
    );
  });

  it('a carousel of 6 images is refused by the description, as Pinterest refuses it', async () => {
    const from = h.sim.ledger.contractChecks.length;
    const res = await fetch(`${h.sim.baseUrls.apiBaseUrl}/pins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        board_id: h.firstBoardId(),
        media_source: { source_type: 'multiple_image_urls', items: Array.from({ length: 6 }, () => ({ url: `${h.imageBase}/pin.png` })) },
      }),
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { code: number }).code, 1);
    assert.ok(
      violationsOf(h.sim.ledger, from).some(
        (v) => v.operation === 'pins/create (POST /v5/pins)' && v.field.startsWith('body.media_source'),
      ),
    );
  });

  it('permalink, analytics, metrics sync, recent-posts reconciliation and the board list', async () => {
    const since = new Date(Date.now() - 2000);
    const published = await h.pin.publish(ctx, h.request([h.image()], {}, 'contract reconciliation'));
    const id = published.status === 'published' ? published.providerPostId : '';
    await underContract(h.sim.ledger, 'permalink', () => h.pin.fetchPermalink(ctx, id), ['pins/get']);
    await underContract(h.sim.ledger, 'analytics', () => h.pin.fetchPostAnalytics(ctx, { providerPostId: id }), ['pins/analytics']);
    await underContract(h.sim.ledger, 'metrics sync', () => h.pin.fetchPostMetrics!(ctx, { providerPostId: id }), ['pins/analytics']);
    const { result: found } = await underContract(
      h.sim.ledger,
      'recent-posts reconciliation',
      () =>
        h.pin.findRecentPost!(ctx, {
          text: 'contract reconciliation',
          since,
          until: new Date(Date.now() + 2000),
          excludeIds: [],
          mediaKinds: ['image'],
          settings: {},
        }),
      ['pins/list'],
    );
    assert.equal(found.status, 'found');
    await underContract(h.sim.ledger, 'board list', () => h.pin.runTool(ctx, 'boardList', {}), ['boards/list']);
  });
});
