/**
 * What the publishing area does with a platform's own notice about a post (provider webhooks): find
 * the targets that published it, and, for a video the platform reports live, poll a target still
 * `processing` at once and fill in the public URL a published target lacks.
 */
import { ensurePublishQueues, sendTargetJob } from './publish-queue.js';
import type { PublishingDeps } from './publishing.deps.js';
import { targetsRepository } from './targets.repository.js';

export interface NoticedTarget {
  id: string;
  organizationId: string;
  brandId: string;
  channelAccountId: string;
  platform: string;
  providerPostId: string;
  state: string;
}

export class ProviderNotices {
  constructor(private readonly deps: PublishingDeps) {}

  /** Targets across organizations that hold this platform post (the notice names no organization). */
  async targetsOfPost(
    platforms: readonly string[],
    channelAccountIds: readonly string[],
    providerPostId: string,
  ): Promise<NoticedTarget[]> {
    if (platforms.length === 0 || channelAccountIds.length === 0) return [];
    const rows = await targetsRepository.ofPost(this.deps.database.db, { platforms, channelAccountIds, providerPostId });
    return rows.map((r) => ({
      id: r.id,
      organizationId: r.organization_id,
      brandId: r.brand_id,
      channelAccountId: r.channel_account_id,
      platform: r.platform,
      providerPostId: r.provider_post_id!,
      state: r.state,
    }));
  }

  /** The platform reports the video live: 'polled' (processing target polled now), 'url_recorded', or 'unchanged'. */
  async videoLive(organizationId: string, targetId: string, url: string | null): Promise<'polled' | 'url_recorded' | 'unchanged'> {
    const db = this.deps.database.db;
    const now = this.deps.clock.now();
    const t = await targetsRepository.stateOf(db, organizationId, targetId);
    if (!t) return 'unchanged';
    if (t.state === 'processing') {
      await ensurePublishQueues(this.deps.jobs);
      // a poll only reads the platform; the engine ignores it when the target moved on meanwhile
      await db.transaction().execute(async (tx) => {
        await sendTargetJob(this.deps.jobs, tx, { targetId, organizationId, version: t.version, step: 'poll' }, null);
      });
      return 'polled';
    }
    if (t.state === 'published' && t.provider_url === null && url) {
      return (await targetsRepository.recordUrl(db, organizationId, targetId, url, now)) ? 'url_recorded' : 'unchanged';
    }
    return 'unchanged';
  }
}
