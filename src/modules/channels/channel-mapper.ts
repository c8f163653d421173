import type { ChannelRow } from './channels.repository.js';
import type { ChannelAccountT, DisconnectSummaryT } from './channels.schemas.js';

export function toChannelAccount(row: ChannelRow, disconnectSummary?: DisconnectSummaryT): ChannelAccountT {
  return {
    channelAccountId: row.id,
    organizationId: row.organization_id,
    brandId: row.brand_id,
    brandName: row.brand_name,
    brandSlug: row.brand_slug,
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
