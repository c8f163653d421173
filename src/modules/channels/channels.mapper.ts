/** A channel account row and its brand's name (brands read port) -> the ChannelAccount response shape. */
import type { BrandName, BrandsReadPort } from '../brands/brands.module.js';
import type { Executor } from '../database.js';
import type { ChannelRow } from './channels.repository.js';
import type { ChannelAccountT, DisconnectSummaryT } from './channels.schemas.js';

/** The name and slug of the channel's brand (none when the channel has no brand). */
export async function brandOf(brands: Pick<BrandsReadPort, 'names'>, db: Executor, row: ChannelRow): Promise<BrandName | undefined> {
  if (!row.brand_id) return undefined;
  return (await brands.names(db, row.organization_id, [row.brand_id])).get(row.brand_id);
}

export function toChannelAccount(row: ChannelRow, brand: BrandName | undefined, disconnectSummary?: DisconnectSummaryT): ChannelAccountT {
  return {
    channelAccountId: row.id,
    organizationId: row.organization_id,
    brandId: row.brand_id,
    brandName: brand?.name ?? null,
    brandSlug: brand?.slug ?? null,
    platform: row.platform,
    platformAppId: row.platform_app_id,
    externalAccountId: row.external_account_id,
    displayName: row.display_name,
    handle: row.handle,
    state: row.state,
    tokenExpiresAt: row.token_expires_at ? new Date(row.token_expires_at).toISOString() : null,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    ...(disconnectSummary ? { disconnectSummary } : {}),
  };
}
