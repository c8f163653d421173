/** The Pinterest description and title limits through the plan preview route (API v5 create Pin: 800 and 100). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { putChannel } from '../support/channels.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('pinterest limits in the plan preview', () => {
  let ctx: TestContext;
  let auth: Record<string, string>;
  let brandId: string;
  let channelAccountId: string;

  before(async () => {
    ctx = await createTestContext();
    const org = await ctx.createOrganization();
    auth = org.auth;
    ({ brandId } = await ctx.createBrand(org.organizationId, 'Pins'));
    channelAccountId = await putChannel(ctx, org, {
      platform: 'pinterest',
      externalAccountId: 'pin-user-1',
      displayName: 'Pins',
      token: 'pina_test_token',
      brandId,
    });
  });
  after(() => ctx.close());

  const preview = async (text: string, title: string) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/publish/plans/preview',
      headers: auth,
      payload: {
        brandId,
        text,
        media: [{ kind: 'image', url: 'https://cdn.example.com/pin.jpg', bytes: 1000 }],
        targets: [{ platform: 'pinterest', channelAccountId, settings: { boardId: '123', title } }],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    return (body.issues as Array<{ code: string; severity: string }>).filter((i) => i.severity === 'blocking').map((i) => i.code);
  };

  it('accepts an 800-character description and a 100-character title', async () => {
    const codes = await preview('d'.repeat(800), 't'.repeat(100));
    assert.ok(!codes.includes('text_too_long'), codes.join(','));
    assert.ok(!codes.includes('setting_too_long'), codes.join(','));
  });

  it('blocks an 801-character description and a 101-character title', async () => {
    const codes = await preview('d'.repeat(801), 't'.repeat(101));
    assert.ok(codes.includes('text_too_long'), codes.join(','));
    assert.ok(codes.includes('setting_too_long'), codes.join(','));
  });
});
