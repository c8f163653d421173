/** Shared steps of the comments tests: publish a post on a simulator, then talk to the comment routes. */
import assert from 'node:assert/strict';
import { commentsRepository } from '../../src/modules/comments/comments.repository.js';
import { COMMENT_ID_PREFIX } from '../../src/modules/comments/comments.schemas.js';
import { newId } from '../../src/platform/ids.js';
import type { Platform } from '../../src/providers/provider.js';
import { addAudienceComment } from '../../src/sandbox/simulators/meta/meta-comments.js';
import {
  call,
  connectPlatform,
  createPlatformOrg,
  type PlatformHarness,
  publishingFixture,
  publishNow,
  settle,
  uploadMedia,
} from '../publishing/platform-harness.js';
import type { Org } from '../publishing/publishing-harness.js';
import type { TestContext } from '../support/harness.js';

export { call };

export interface Published {
  org: Org;
  channelAccountId: string;
  externalAccountId: string;
  postTargetId: string;
  providerPostId: string;
  platform: Platform;
}

/** A fresh organization with a connected channel and one published post. */
export async function publishedPost(h: PlatformHarness, platform: Platform, org?: Org): Promise<Published> {
  const o = org ?? (await createPlatformOrg(h, `comments ${platform} ${Math.random().toString(36).slice(2, 8)}`));
  const channel = await connectPlatform(h, o, platform);
  const media = platform.startsWith('instagram') ? [await uploadMedia(h, o, publishingFixture('photo-640.jpg'), 'photo.jpg')] : [];
  const jobId = await publishNow(
    h,
    o,
    { platform, channelAccountId: channel.channelAccountId },
    `comments on ${platform} ${Date.now()}`,
    media,
  );
  const job = await settle(h, o, jobId);
  const t = job.targets[0]!;
  assert.equal(t.state, 'published', JSON.stringify(job));
  return {
    org: o,
    channelAccountId: channel.channelAccountId,
    externalAccountId: channel.externalAccountId,
    postTargetId: (t as { postTargetId?: string }).postTargetId ?? String((t as Record<string, unknown>).id ?? ''),
    providerPostId: t.providerPostId,
    platform,
  };
}

/** An audience comment through the simulator (the sandbox control route does the same). */
export function audienceComment(h: PlatformHarness, p: Published, body: string, parentId?: string, handle = 'fan_one'): string {
  if (p.platform === 'x') {
    return h.x.state.seedReply(parentId ?? p.providerPostId, { username: handle, text: body }).id;
  }
  const id = addAudienceComment(h.meta.state, {
    postId: p.providerPostId,
    body,
    authorHandle: handle,
    authorName: handle,
    parentId: parentId ?? null,
  });
  assert.ok(id, 'comment added');
  return id;
}

export function syncBody(p: Published, extra: Record<string, unknown> = {}) {
  return {
    organizationId: p.org.organizationId,
    brandId: p.org.brandId,
    channelAccountId: p.channelAccountId,
    platform: p.platform,
    providerPostId: p.providerPostId,
    ...extra,
  };
}

/** Stores an audience comment on facebook_page that needs a reply, straight in the table; answers its id. */
export async function storeComment(
  ctx: TestContext,
  where: { organizationId: string; brandId: string; channelAccountId?: string },
  body: string,
): Promise<string> {
  const at = new Date();
  const id = newId(COMMENT_ID_PREFIX);
  await commentsRepository.insert(ctx.database.db, {
    id,
    organization_id: where.organizationId,
    brand_id: where.brandId,
    channel_account_id: where.channelAccountId ?? newId('cha'),
    platform: 'facebook_page',
    post_target_id: null,
    provider_post_id: '1_2',
    provider_comment_id: '1_2_3',
    parent_provider_comment_id: null,
    body,
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
  return id;
}

/** Syncs the post's comments (not a dry run) and answers the sync answer and the channel's comment list. */
export async function syncComments(h: PlatformHarness, p: Published) {
  const r = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { dryRun: false }));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const list = (await call(h, p.org, 'GET', `/v1/social-comments?channelAccountId=${p.channelAccountId}`)).body.data as Array<
    Record<string, any>
  >;
  return { sync: r.body, list };
}
