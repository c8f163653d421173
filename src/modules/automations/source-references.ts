/**
 * What a source's config refers to is checked when it is saved, not only when it runs: the channels of
 * `targets`, the `profileId` and the `productIds` must be the caller's (and of the source's brand, where
 * the kind of thing has one); another organization's id is 404 with the referenced kind's not-found
 * code, exactly as reading it would be, so a source can never store a reference to someone else's data.
 * An RSS `feedUrl` is refused at save for whatever needs no DNS (the guarded client's save-time check).
 */
import { AppError, type ErrorCode } from '../../platform/errors.js';
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import type { Executor } from '../database.js';
import type { ProfilesReadPort } from '../profiles/profiles.module.js';
import type { SourceKind } from './automations.schemas.js';

export interface SourceReferencePorts {
  brands: Pick<BrandsReadPort, 'brand' | 'products'>;
  channels: Pick<ChannelsReadPort, 'factsForPublishing'>;
  profiles: Pick<ProfilesReadPort, 'channelsOfProfile'>;
  /** the client feeds are fetched with: its save-time URL check (and allow-list) */
  feedClient: Pick<GuardedHttpClient, 'refuseAtSave'>;
}

const at = (...path: Array<string | number>) => [{ path: ['config', ...path.map(String)], source: 'body' as const }];

export async function checkSourceReferences(
  ports: SourceReferencePorts,
  db: Executor,
  organizationId: string,
  brandId: string,
  kind: SourceKind,
  config: Record<string, unknown>,
  code: ErrorCode,
): Promise<void> {
  if (kind === 'rss_feed' && typeof config.feedUrl === 'string') {
    const problem = ports.feedClient.refuseAtSave(config.feedUrl);
    if (problem) throw new AppError(code, { message: `config.feedUrl is not allowed: ${problem.message}.`, fields: at('feedUrl') });
  }
  if (kind === 'external') return;
  if (typeof config.profileId === 'string') {
    const profile = await ports.profiles.channelsOfProfile(db, organizationId, config.profileId);
    if (!profile)
      throw new AppError('publishing_profile_not_found', {
        message: `No publishing profile ${config.profileId} in the principal organization.`,
        fields: at('profileId'),
      });
  }
  const targets = Array.isArray(config.targets) ? (config.targets as Array<{ channelAccountId?: unknown }>) : [];
  const channelIds = targets.map((t) => t.channelAccountId).filter((id): id is string => typeof id === 'string');
  if (channelIds.length > 0) {
    const facts = await ports.channels.factsForPublishing(db, organizationId, [...new Set(channelIds)]);
    const missing = channelIds.findIndex((id) => !facts.has(id));
    if (missing >= 0)
      throw new AppError('channel_account_not_found', {
        message: `No channel account ${channelIds[missing]} in the principal organization.`,
        fields: at('targets', missing, 'channelAccountId'),
      });
  }
  const productIds = Array.isArray(config.productIds) ? (config.productIds as string[]) : [];
  if (productIds.length > 0) {
    const found = new Set((await ports.brands.products(db, organizationId, brandId, productIds)).map((p) => p.id));
    const missing = productIds.findIndex((id) => !found.has(id));
    if (missing >= 0)
      throw new AppError('product_not_found', {
        message: `No product ${productIds[missing]} in brand ${brandId} of the principal organization.`,
        fields: at('productIds', missing),
      });
  }
}
