/** Gates: live comment writes answer 403 with the gate's code before any platform call. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/platform/ids.js';
import { createTestContext } from '../support/harness.js';
import { storeComment } from './comments-helpers.js';

describe('comment gates', () => {
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
        const channelAccountId = newId('cha');
        const id = await storeComment(ctx, { organizationId: o.organizationId, brandId, channelAccountId }, 'Hello?');
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
