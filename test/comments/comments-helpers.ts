/** Shared steps of the comments tests: publish a post on a simulator, then talk to the comment routes. */
import assert from 'node:assert/strict';
import type { Platform } from '../../src/providers/provider.js';
import { addAudienceComment } from '../../src/sandbox/simulators/meta/sim-comments.js';
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
