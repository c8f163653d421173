/** Disconnecting a channel account (DELETE /v1/channel-accounts/{id}) and its disconnectSummary. */
import { retryOnConflict } from '../../platform/db/retry.js';
import { AppError } from '../../platform/errors.js';
import { assertOwnOrganization } from '../../platform/organization-guard.js';
import { recordChannelStateEvent } from './channel-events.js';
import { assertTransition } from './channel-states.js';
import type { ChannelsDeps } from './channels.deps.js';
import { brandOf, toChannelAccount } from './channels.mapper.js';
import { channelsRepository } from './channels.repository.js';
import type { ChannelAccountT, DisconnectSummaryT } from './channels.schemas.js';
import { emptyDisconnectCounts, runDisconnectHooks } from './disconnect-hooks.js';

const notFound = (id: string) =>
  new AppError('channel_account_not_found', {
    message: `No channel account ${id} in the principal organization.`,
  });

/**
 * Disconnects a channel: revokes its token at the platform (best effort, before the transaction so
 * no database lock waits on the network), then in one transaction deletes its stored secrets, runs the
 * other areas' disconnect hooks (profiles, publishing, batches) and moves it to `deleted`.
 */
export async function disconnectChannel(
  deps: ChannelsDeps,
  organizationId: string,
  id: string,
  body: { organizationId: string; reason?: string },
): Promise<ChannelAccountT> {
  assertOwnOrganization(organizationId, body.organizationId);
  const { db, vault, registry } = deps;
  const before = await channelsRepository.get(db, organizationId, id);
  if (!before) throw notFound(id);
  let revoked = 0;
  if (before.state !== 'deleted') {
    const provider = registry.get(before.platform);
    const token = await vault.resolve(db, organizationId, before.access_token_ref);
    if (token && provider.oauth.supportsRevoke) {
      try {
        await provider.oauth.revoke({
          accessToken: token,
          externalAccountId: before.external_account_id,
        });
        revoked = 1;
      } catch {
        // best effort: the platform may already consider the token dead; the secret is deleted anyway
      }
    }
  }
  const now = deps.clock.now();
  // the hooks move the channel's publish targets, which the worker's claims and outcomes lock in
  // another order: a deadlock aborts this transaction, which then runs again whole
  const summary = await retryOnConflict(() =>
    db.transaction().execute(async (tx): Promise<DisconnectSummaryT> => {
      const row = await channelsRepository.lock(tx, organizationId, id);
      if (!row) throw notFound(id);
      if (row.state === 'deleted')
        return { alreadyDisconnected: true, revokedChannelTokenCount: 0, revokedProviderTokenSecretCount: 0, ...emptyDisconnectCounts() };
      assertTransition(row.state, 'deleted');
      const deletedSecrets =
        (await vault.deleteForChannel(tx, organizationId, id)) +
        (await vault.deleteRefs(tx, organizationId, [row.access_token_ref, row.refresh_token_ref]));
      const hookCounts = await runDisconnectHooks(deps.disconnects, tx, organizationId, id, now);
      await channelsRepository.update(tx, organizationId, id, {
        state: 'deleted',
        state_reason: body.reason ?? 'disconnected',
        access_token_ref: null,
        refresh_token_ref: null,
        token_expires_at: null,
        pending_choices: null,
        next_refresh_at: null,
        updated_at: now,
      });
      await recordChannelStateEvent(deps.events, tx, organizationId, id, row.state);
      return {
        alreadyDisconnected: false,
        ...hookCounts,
        revokedChannelTokenCount: revoked,
        revokedProviderTokenSecretCount: deletedSecrets,
      };
    }),
  );
  const row = (await channelsRepository.get(db, organizationId, id))!;
  return toChannelAccount(row, await brandOf(deps.brands, db, row), summary);
}
