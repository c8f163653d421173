/** What the analytics tests share: posts published through the API on the simulators, and the sync request. */
import assert from 'node:assert/strict';
import type { Platform } from '../../src/providers/provider.js';
import { connectPlatform, type PlatformHarness, publishNow, settle, uploadMedia } from '../publishing/platform-harness.js';
import type { Org } from '../publishing/publishing-harness.js';

export interface PublishedPost {
  platform: Platform;
  channelAccountId: string;
  postTargetId: string;
  providerPostId: string;
  publishedAt: number;
}

/** Connects the platform, publishes one post now (with media when given) and waits until it is published. */
export async function publishPost(
  h: PlatformHarness,
  org: Org,
  platform: Platform,
  settings: (externalAccountId: string) => Record<string, unknown>,
  media?: [Buffer, string],
): Promise<PublishedPost> {
  const channel = await connectPlatform(h, org, platform);
  const mediaIds = media ? [await uploadMedia(h, org, media[0], media[1])] : [];
  const jobId = await publishNow(
    h,
    org,
    { platform, channelAccountId: channel.channelAccountId, settings: settings(channel.externalAccountId) },
    `${platform} analytics ${Date.now()}`,
    mediaIds,
  );
  const job = await settle(h, org, jobId, 30_000);
  const t = job.targets[0]!;
  assert.equal(t.state, 'published', JSON.stringify(job));
  return {
    platform,
    channelAccountId: channel.channelAccountId,
    postTargetId: t.postTargetId as string,
    providerPostId: t.providerPostId,
    publishedAt: Date.now(),
  };
}

/** The body of POST /v1/analytics/sync for a published post. */
export function syncRequest(org: Org, p: PublishedPost, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    organizationId: org.organizationId,
    brandId: org.brandId,
    channelAccountId: p.channelAccountId,
    platform: p.platform,
    providerPostId: p.providerPostId,
    postTargetId: p.postTargetId,
    ...extra,
  };
}
