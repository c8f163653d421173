/** Kysely queries of channel accounts; every method takes the organization id. */

import { type Selectable, sql, type Updateable } from 'kysely';
import { keysetPage } from '../../platform/db/keyset.js';
import { prepared } from '../../platform/db/prepared.js';
import type { Platform } from '../../providers/provider.js';
import type { Executor } from '../database.js';
import type { ChannelAccountState } from './channel-states.js';
import type { ChannelAccountsTable } from './channels.tables.js';

export type ChannelRow = Selectable<ChannelAccountsTable>;
export type ChannelUpdate = Updateable<ChannelAccountsTable>;

const channels = (db: Executor) => db.selectFrom('channel_accounts as c').selectAll('c');

export const channelsRepository = {
  /** A page ordered by id, limit + 1 rows; deleted channels only when asked for by state. */
  async list(
    db: Executor,
    organizationId: string,
    q: {
      brandId?: string;
      platform?: Platform;
      state?: ChannelAccountState;
      afterId: string | null;
      limit: number;
    },
  ): Promise<ChannelRow[]> {
    let query = channels(db).where('c.organization_id', '=', organizationId);
    if (q.brandId) query = query.where('c.brand_id', '=', q.brandId);
    if (q.platform) query = query.where('c.platform', '=', q.platform);
    query = q.state ? query.where('c.state', '=', q.state) : query.where('c.state', '!=', 'deleted');
    return (await keysetPage(query, 'c.id', q.afterId, q.limit).execute()) as ChannelRow[];
  },

  async get(db: Executor, organizationId: string, id: string): Promise<ChannelRow | null> {
    const row = await channels(db).where('c.organization_id', '=', organizationId).where('c.id', '=', id).executeTakeFirst();
    return (row as ChannelRow | undefined) ?? null;
  },

  /** What other areas may know of some channels of the organization (unknown ids are absent). */
  async factsOf(db: Executor, organizationId: string, ids: string[]) {
    if (ids.length === 0) return [];
    return db
      .selectFrom('channel_accounts')
      .select(['id', 'platform', 'state', 'brand_id', 'display_name', 'handle'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', [...new Set(ids)])
      .execute();
  },

  async stateOf(db: Executor, organizationId: string, id: string): Promise<ChannelAccountState | null> {
    const row = await db
      .selectFrom('channel_accounts')
      .select('state')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.state ?? null;
  },

  /**
   * Channels' call columns with the stored secret each access token names, for (organization, channel)
   * pairs of any organizations: one statement for all.
   */
  async callColumns(db: Executor, refs: ReadonlyArray<{ organizationId: string; channelAccountId: string }>) {
    if (refs.length === 0) return [];
    return (
      db
        .selectFrom('channel_accounts as c')
        .leftJoin('provider_token_secrets as s', (j) =>
          j.onRef('s.id', '=', 'c.access_token_ref').onRef('s.organization_id', '=', 'c.organization_id'),
        )
        .select([
          'c.id',
          'c.organization_id',
          'c.platform',
          'c.state',
          'c.external_account_id',
          'c.access_token_ref',
          'c.additional_settings',
          's.ciphertext as token_ciphertext',
        ])
        // the pairs as two array parameters: one text for any number of pairs, prepared once per connection
        .where(
          sql<boolean>`(c.organization_id, c.id) in (select * from unnest(${refs.map((r) => r.organizationId)}::text[], ${refs.map((r) => r.channelAccountId)}::text[]))`,
        )
        .modifyEnd(prepared)
        .execute()
    );
  },

  /** Locks the row for the rest of the transaction (state changes are checked against the locked state). */
  async lock(tx: Executor, organizationId: string, id: string): Promise<Selectable<ChannelAccountsTable> | null> {
    const row = await channels(tx).where('c.organization_id', '=', organizationId).where('c.id', '=', id).forUpdate().executeTakeFirst();
    return (row as ChannelRow | undefined) ?? null;
  },

  async lockByExternal(
    tx: Executor,
    organizationId: string,
    platform: Platform,
    externalAccountId: string,
  ): Promise<Selectable<ChannelAccountsTable> | null> {
    const row = await channels(tx)
      .where('c.organization_id', '=', organizationId)
      .where('c.platform', '=', platform)
      .where('c.external_account_id', '=', externalAccountId)
      .forUpdate()
      .executeTakeFirst();
    return (row as ChannelRow | undefined) ?? null;
  },

  async insert(
    tx: Executor,
    row: {
      id: string;
      organizationId: string;
      brandId: string | null;
      platform: Platform;
      externalAccountId: string;
      displayName: string;
      handle: string | null;
      platformAppId: string | null;
      state: ChannelAccountState;
      stateReason?: string | null;
      scopes: string[];
      accessTokenRef: string | null;
      refreshTokenRef: string | null;
      tokenExpiresAt: Date | null;
      additionalSettings?: Record<string, unknown>;
      pendingChoices?: unknown[] | null;
      at: Date;
    },
  ): Promise<void> {
    await tx
      .insertInto('channel_accounts')
      .values({
        id: row.id,
        organization_id: row.organizationId,
        brand_id: row.brandId,
        platform: row.platform,
        external_account_id: row.externalAccountId,
        display_name: row.displayName,
        handle: row.handle,
        platform_app_id: row.platformAppId,
        state: row.state,
        state_reason: row.stateReason ?? null,
        scopes: row.scopes,
        access_token_ref: row.accessTokenRef,
        refresh_token_ref: row.refreshTokenRef,
        token_expires_at: row.tokenExpiresAt,
        additional_settings: JSON.stringify(row.additionalSettings ?? {}),
        pending_choices: row.pendingChoices ? JSON.stringify(row.pendingChoices) : null,
        created_at: row.at,
        updated_at: row.at,
      })
      .execute();
  },

  async update(tx: Executor, organizationId: string, id: string, set: ChannelUpdate): Promise<void> {
    await tx.updateTable('channel_accounts').set(set).where('organization_id', '=', organizationId).where('id', '=', id).execute();
  },

  /** Deletes a channel row (the placeholder of a login that offered several accounts); its secrets go by cascade. */
  async delete(tx: Executor, organizationId: string, id: string): Promise<void> {
    await tx.deleteFrom('channel_accounts').where('organization_id', '=', organizationId).where('id', '=', id).execute();
  },

  /**
   * The one lookup across organizations: inbound platform events (provider webhooks) name an account,
   * not an organization. Every change that follows is made with the organization of each row found.
   */
  async byExternalAccountAcrossOrganizations(
    db: Executor,
    platforms: readonly Platform[],
    externalAccountId: string,
  ): Promise<Array<{ id: string; organization_id: string; brand_id: string | null; platform: Platform; state: ChannelAccountState }>> {
    if (platforms.length === 0) return [];
    return db
      .selectFrom('channel_accounts')
      .select(['id', 'organization_id', 'brand_id', 'platform', 'state'])
      .where('platform', 'in', platforms)
      .where('external_account_id', '=', externalAccountId)
      .where('state', '!=', 'deleted')
      .orderBy('id')
      .execute();
  },

  /** Internal provisioning: every channel of a platform in the given states, across organizations. */
  async inStatesAcrossOrganizations(
    db: Executor,
    platform: Platform,
    states: readonly ChannelAccountState[],
  ): Promise<Array<{ id: string; organization_id: string; external_account_id: string; state: ChannelAccountState }>> {
    return db
      .selectFrom('channel_accounts')
      .select(['id', 'organization_id', 'external_account_id', 'state'])
      .where('platform', '=', platform)
      .where('state', 'in', states)
      .orderBy('id')
      .execute();
  },
};
