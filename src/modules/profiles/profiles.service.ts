/**
 * Publishing profiles: a named set of a brand's channels with their per-channel settings, schedule
 * settings (including the brand's saved batch policy) and comment settings. One default per brand.
 */

import { decodeCursor, page } from '../../http/pagination.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertOwnOrganization } from '../../platform/organization-guard.js';
import { slugify } from '../../platform/slug.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import type { Db, Executor } from '../database.js';
import { type ProfileChannelView, toProfile } from './profiles.mapper.js';
import { type ProfileValues, profilesRepository } from './profiles.repository.js';
import { invalidProfile, normalizeBatchPolicy, profileNotFound } from './profiles.rules.js';
import type { PublishingProfileSaveT, PublishingProfileT } from './profiles.schemas.js';

/** The other areas' read ports a profile's save and answers use: its channels' facts, its brand. */
export interface ProfilesServicePorts {
  channels: Pick<ChannelsReadPort, 'factsForPublishing'>;
  brands: Pick<BrandsReadPort, 'brand' | 'names'>;
}

export class ProfilesService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ports: ProfilesServicePorts,
  ) {}

  async list(organizationId: string, q: { brandId?: string; limit?: number; cursor?: string }) {
    const limit = q.limit ?? 50;
    const filters = { brandId: q.brandId };
    const afterId = decodeCursor(q.cursor, filters, 'invalid_public_publishing_profile_query');
    const rows = await profilesRepository.list(this.db, organizationId, {
      brandId: q.brandId,
      afterId,
      limit,
    });
    const { data, nextCursor } = page(rows, limit, (r) => r.id, filters);
    const channels = await this.channelViews(
      this.db,
      organizationId,
      data.map((p) => p.id),
    );
    const brands = await this.ports.brands.names(
      this.db,
      organizationId,
      data.map((p) => p.brand_id),
    );
    return {
      data: data.map((p) =>
        toProfile(
          p,
          brands.get(p.brand_id),
          channels.filter((c) => c.row.profile_id === p.id),
        ),
      ),
      nextCursor,
    };
  }

  async get(organizationId: string, id: string, db: Executor = this.db): Promise<PublishingProfileT> {
    const row = await profilesRepository.get(db, organizationId, id);
    if (!row) throw profileNotFound(id);
    const brands = await this.ports.brands.names(db, organizationId, [row.brand_id]);
    return toProfile(row, brands.get(row.brand_id), await this.channelViews(db, organizationId, [id]));
  }

  /**
   * The channels of some profiles with their accounts' name, handle and state, read through the channels
   * area's port; an entry whose account no longer exists is left out.
   */
  private async channelViews(db: Executor, organizationId: string, profileIds: string[]): Promise<ProfileChannelView[]> {
    const rows = await profilesRepository.channelsOf(db, organizationId, profileIds);
    const facts = await this.ports.channels.factsForPublishing(
      db,
      organizationId,
      rows.map((r) => r.channel_account_id),
    );
    return rows.flatMap((row) => {
      const channel = facts.get(row.channel_account_id);
      return channel ? [{ row, channel }] : [];
    });
  }

  async save(organizationId: string, body: PublishingProfileSaveT): Promise<{ created: boolean; profile: PublishingProfileT }> {
    assertOwnOrganization(organizationId, body.organizationId);
    if (!(await this.ports.brands.brand(this.db, organizationId, body.brandId)))
      throw new AppError('brand_not_found', {
        message: `No brand ${body.brandId} in the principal organization.`,
        fields: [{ path: ['brandId'], source: 'body' }],
      });
    const name = body.name.trim();
    if (!name) throw invalidProfile('name must not be blank.', [{ path: ['name'], source: 'body' }]);
    const slug = body.slug ? body.slug.trim() : slugify(name);
    if (!/^[a-z0-9][a-z0-9-]{0,119}$/.test(slug))
      throw invalidProfile('slug must be lowercase letters, digits and dashes (1-120).', [{ path: ['slug'], source: 'body' }]);
    const scheduleSettings: Record<string, unknown> = {
      ...(body.scheduleSettings ?? {}),
    };
    if (scheduleSettings.batchPolicy !== undefined) scheduleSettings.batchPolicy = normalizeBatchPolicy(scheduleSettings.batchPolicy);
    const lateness = scheduleSettings.maxLatenessMinutes;
    if (
      lateness !== undefined &&
      lateness !== null &&
      !(Number.isInteger(lateness) && (lateness as number) >= 0 && (lateness as number) <= 10080)
    )
      throw invalidProfile('scheduleSettings.maxLatenessMinutes must be an integer from 0 to 10080, or null.', [
        { path: ['scheduleSettings', 'maxLatenessMinutes'], source: 'body' },
      ]);
    const inputs = body.channels ?? [];
    await this.assertChannels(organizationId, body.brandId, inputs);
    const now = this.clock.now();

    const { created, id } = await this.db.transaction().execute(async (tx) => {
      const existing = body.profileId
        ? await profilesRepository.getForUpdate(tx, organizationId, body.profileId)
        : await profilesRepository.findBySlug(tx, organizationId, body.brandId, slug);
      if (body.profileId && !existing) throw profileNotFound(body.profileId);
      if (existing && existing.brand_id !== body.brandId)
        throw invalidProfile('A profile cannot move to another brand.', [{ path: ['brandId'], source: 'body' }]);
      const clash = await profilesRepository.findBySlug(tx, organizationId, body.brandId, slug);
      if (clash && clash.id !== existing?.id)
        throw invalidProfile(`Another profile of this brand has slug ${slug}.`, [{ path: ['slug'], source: 'body' }]);
      if (body.isDefault) {
        // moving the default: the brand's previous default stops being one in the same transaction
        await profilesRepository.clearDefault(tx, organizationId, body.brandId, now);
      }
      const values: ProfileValues = {
        name,
        slug,
        description: body.description ?? null,
        is_default: body.isDefault ?? false,
        schedule_settings: JSON.stringify(scheduleSettings),
        comment_settings: JSON.stringify(body.commentSettings ?? {}),
        updated_at: now,
      };
      const id = existing?.id ?? newId('pro');
      if (existing) await profilesRepository.update(tx, organizationId, id, values);
      else await profilesRepository.insert(tx, organizationId, { id, brandId: body.brandId, createdAt: now }, values);
      await this.replaceChannels(tx, organizationId, body.brandId, id, inputs, now);
      return { created: !existing, id };
    });
    return { created, profile: await this.get(organizationId, id) };
  }

  private async assertChannels(
    organizationId: string,
    brandId: string,
    inputs: NonNullable<PublishingProfileSaveT['channels']>,
  ): Promise<void> {
    const seen = new Set<string>();
    inputs.forEach((c, i) => {
      if (seen.has(c.channelAccountId))
        throw invalidProfile(`Channel ${c.channelAccountId} is listed twice.`, [
          { path: ['channels', String(i), 'channelAccountId'], source: 'body' },
        ]);
      seen.add(c.channelAccountId);
    });
    const found = await this.ports.channels.factsForPublishing(this.db, organizationId, [...seen]);
    inputs.forEach((c, i) => {
      const at = (f: string) => [{ path: ['channels', String(i), f], source: 'body' as const }];
      const ch = found.get(c.channelAccountId);
      if (!ch || ch.state === 'deleted')
        throw invalidProfile(`No channel account ${c.channelAccountId} in the principal organization.`, at('channelAccountId'));
      if (ch.brandId !== brandId)
        throw invalidProfile(`Channel account ${c.channelAccountId} belongs to another brand.`, at('channelAccountId'));
      if (ch.platform !== c.platform)
        throw invalidProfile(`Channel account ${c.channelAccountId} is a ${ch.platform} channel, not ${c.platform}.`, at('platform'));
    });
  }

  private async replaceChannels(
    tx: Executor,
    organizationId: string,
    brandId: string,
    profileId: string,
    inputs: NonNullable<PublishingProfileSaveT['channels']>,
    now: Date,
  ) {
    const keep = inputs.map((c) => c.channelAccountId);
    await profilesRepository.removeChannelsExcept(tx, organizationId, profileId, keep);
    for (const [i, c] of inputs.entries()) {
      const values = {
        platform: c.platform,
        position: c.position ?? i,
        enabled: c.enabled ?? true,
        settings: JSON.stringify(c.settings ?? {}),
        updated_at: now,
      };
      await profilesRepository.upsertChannel(
        tx,
        organizationId,
        { id: newId('ppc'), brandId, profileId, channelAccountId: c.channelAccountId, createdAt: now },
        values,
      );
    }
  }

  async delete(organizationId: string, id: string): Promise<void> {
    if (!(await profilesRepository.delete(this.db, organizationId, id))) throw profileNotFound(id);
  }
}
