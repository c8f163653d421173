/** Gates: live comment writes answer 403 with the gate's code before any platform call. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commentsRepository } from '../../src/modules/comments/comments.repository.js';
import { COMMENT_ID_PREFIX } from '../../src/modules/comments/comments.schemas.js';
import { newId } from '../../src/platform/ids.js';
import { createTestContext } from '../support/harness.js';

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
