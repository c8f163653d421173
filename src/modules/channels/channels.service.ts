/**
 * Channel accounts: list, upsert (on organization + platform + externalAccountId), patch and
 * disconnect. Refs name stored secrets (token-vault.ts); tokens never leave this module unencrypted
 * except into an adapter call.
 */

import { decodeCursor, page } from '../../http/pagination.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertOwnOrganization } from '../../platform/organization-guard.js';
import { disconnectChannel } from './channel-disconnect.js';
import type { ChannelsDeps } from './channels.deps.js';

export type { ChannelsDeps } from './channels.deps.js';

import { recordChannelStateEvent } from './channel-events.js';
import { assertTransition, type ChannelAccountState, INITIAL_STATES } from './channel-states.js';
import { brandOf, toChannelAccount } from './channels.mapper.js';
import { channelsRepository } from './channels.repository.js';
import type { ChannelAccountListQueryT, ChannelAccountPatchT, ChannelAccountT, ChannelAccountUpsertT } from './channels.schemas.js';

const notFound = (id: string) =>
  new AppError('channel_account_not_found', {
    message: `No channel account ${id} in the principal organization.`,
  });

function parseInstant(value: string | null | undefined, field: string): Date | null | undefined {
  if (value === undefined || value === null) return value;
  const d = new Date(value);
  if (Number.isNaN(d.getTime()))
    throw new AppError('invalid_public_channel_account_request', {
      message: `${field} is not a date-time.`,
      fields: [{ path: [field], source: 'body' }],
    });
  return d;
}

export class ChannelsService {
  constructor(private readonly deps: ChannelsDeps) {}

  async list(organizationId: string, q: ChannelAccountListQueryT) {
    const limit = q.limit ?? 50;
    const filters = {
      brandId: q.brandId,
      platform: q.platform,
      state: q.state,
    };
    const afterId = decodeCursor(q.cursor, filters, 'invalid_public_channel_account_query');
    const rows = await channelsRepository.list(this.deps.db, organizationId, {
      ...filters,
      afterId,
      limit,
    });
    const { data, nextCursor } = page(rows, limit, (r) => r.id, filters);
    const brands = await this.deps.brands.names(
      this.deps.db,
      organizationId,
      data.map((r) => r.brand_id),
    );
    return { data: data.map((r) => toChannelAccount(r, r.brand_id ? brands.get(r.brand_id) : undefined)), nextCursor };
  }

  async get(organizationId: string, id: string): Promise<ChannelAccountT> {
    const row = await channelsRepository.get(this.deps.db, organizationId, id);
    if (!row) throw notFound(id);
    return toChannelAccount(row, await brandOf(this.deps.brands, this.deps.db, row));
  }

  private async assertBrand(organizationId: string, brandId: string | null | undefined): Promise<void> {
    if (brandId && !(await this.deps.brands.brand(this.deps.db, organizationId, brandId))) {
      throw new AppError('brand_not_found', {
        message: `No brand ${brandId} in the principal organization.`,
        fields: [{ path: ['brandId'], source: 'body' }],
      });
    }
  }

  async upsert(organizationId: string, body: ChannelAccountUpsertT): Promise<{ created: boolean; channel: ChannelAccountT }> {
    assertOwnOrganization(organizationId, body.organizationId);
    await this.assertBrand(organizationId, body.brandId);
    const tokenExpiresAt = parseInstant(body.tokenExpiresAt, 'tokenExpiresAt');
    const state: ChannelAccountState = body.state ?? 'connected';
    const now = this.deps.clock.now();
    const { vault } = this.deps;
    const result = await this.deps.db.transaction().execute(async (tx) => {
      const existing = await channelsRepository.lockByExternal(tx, organizationId, body.platform, body.externalAccountId);
      await vault.assertResolvable(tx, organizationId, body.accessTokenRef, 'accessTokenRef', existing?.id ?? null);
      if (body.refreshTokenRef)
        await vault.assertResolvable(tx, organizationId, body.refreshTokenRef, 'refreshTokenRef', existing?.id ?? null);
      if (!existing) {
        if (!INITIAL_STATES.includes(state)) {
          throw new AppError('channel_account_invalid_transition', {
            message: `A channel account cannot be created in state ${state}.`,
            details: { from: null, to: state },
          });
        }
        const id = newId('cha');
        await channelsRepository.insert(tx, {
          id,
          organizationId,
          brandId: body.brandId ?? null,
          platform: body.platform,
          externalAccountId: body.externalAccountId,
          displayName: body.displayName,
          handle: body.handle ?? null,
          platformAppId: body.platformAppId ?? null,
          state,
          scopes: body.scopes ?? [],
          accessTokenRef: body.accessTokenRef,
          refreshTokenRef: body.refreshTokenRef ?? null,
          tokenExpiresAt: tokenExpiresAt ?? null,
          at: now,
        });
        await vault.attach(tx, organizationId, id, [body.accessTokenRef, body.refreshTokenRef ?? null]);
        await recordChannelStateEvent(this.deps.events, tx, organizationId, id, null);
        return { created: true, id };
      }
      assertTransition(existing.state, state);
      const refreshTokenRef = body.refreshTokenRef === undefined ? existing.refresh_token_ref : body.refreshTokenRef;
      await channelsRepository.update(tx, organizationId, existing.id, {
        brand_id: body.brandId === undefined ? existing.brand_id : body.brandId,
        display_name: body.displayName,
        handle: body.handle === undefined ? existing.handle : body.handle,
        platform_app_id: body.platformAppId === undefined ? existing.platform_app_id : body.platformAppId,
        state,
        state_reason: state === existing.state ? existing.state_reason : null,
        scopes: body.scopes ?? existing.scopes,
        access_token_ref: body.accessTokenRef,
        refresh_token_ref: refreshTokenRef,
        token_expires_at: tokenExpiresAt === undefined ? existing.token_expires_at : tokenExpiresAt,
        pending_choices: null,
        refresh_failures: 0,
        updated_at: now,
      });
      await vault.attach(tx, organizationId, existing.id, [body.accessTokenRef, refreshTokenRef]);
      // secrets the channel held before and no longer names are deleted
      await vault.deleteForChannel(tx, organizationId, existing.id, [body.accessTokenRef, refreshTokenRef]);
      await recordChannelStateEvent(this.deps.events, tx, organizationId, existing.id, existing.state);
      return { created: false, id: existing.id };
    });
    return {
      created: result.created,
      channel: await this.get(organizationId, result.id),
    };
  }

  async patch(organizationId: string, id: string, body: ChannelAccountPatchT): Promise<ChannelAccountT> {
    assertOwnOrganization(organizationId, body.organizationId);
    const fields = ['brandId', 'displayName', 'handle', 'state', 'tokenExpiresAt', 'additionalSettings'] as const;
    if (!fields.some((f) => body[f] !== undefined)) {
      throw new AppError('invalid_public_channel_account_request', {
        message: `Send at least one of ${fields.join(', ')} besides organizationId.`,
        fields: [{ path: [], source: 'body' }],
      });
    }
    if (body.state === 'deleted') {
      throw new AppError('invalid_public_channel_account_request', {
        message: 'Disconnect a channel with DELETE /v1/channel-accounts/{channelAccountId}; it revokes its tokens.',
        fields: [{ path: ['state'], source: 'body' }],
      });
    }
    const tokenExpiresAt = parseInstant(body.tokenExpiresAt, 'tokenExpiresAt');
    await this.assertBrand(organizationId, body.brandId);
    const now = this.deps.clock.now();
    await this.deps.db.transaction().execute(async (tx) => {
      const row = await channelsRepository.lock(tx, organizationId, id);
      if (!row) throw notFound(id);
      if (body.state !== undefined) {
        assertTransition(row.state, body.state);
        if (
          body.state === 'connected' &&
          row.state !== 'connected' &&
          !(await this.deps.vault.resolve(tx, organizationId, row.access_token_ref))
        ) {
          throw new AppError('channel_account_not_connected', {
            message:
              'The channel has no usable token; connect it with POST /v1/channel-accounts/connect-url or PUT it with a token reference.',
          });
        }
      }
      await channelsRepository.update(tx, organizationId, id, {
        ...(body.brandId !== undefined ? { brand_id: body.brandId } : {}),
        ...(body.displayName !== undefined ? { display_name: body.displayName } : {}),
        ...(body.handle !== undefined ? { handle: body.handle } : {}),
        ...(body.state !== undefined && body.state !== row.state ? { state: body.state, state_reason: null } : {}),
        ...(tokenExpiresAt !== undefined ? { token_expires_at: tokenExpiresAt } : {}),
        ...(body.additionalSettings !== undefined ? { additional_settings: JSON.stringify(body.additionalSettings) } : {}),
        updated_at: now,
      });
      await recordChannelStateEvent(this.deps.events, tx, organizationId, id, row.state);
    });
    return this.get(organizationId, id);
  }

  disconnect(organizationId: string, id: string, body: { organizationId: string; reason?: string }): Promise<ChannelAccountT> {
    return disconnectChannel(this.deps, organizationId, id, body);
  }
}
