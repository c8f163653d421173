/**
 * A channel account as a client makes one after its own OAuth flow: the access token stored in the
 * service's token vault, then PUT /v1/channel-accounts with its reference.
 */
import assert from 'node:assert/strict';
import type { Platform } from '../../src/platform/social-platforms.js';
import type { TestContext } from './harness.js';

export interface ChannelInput {
  platform: Platform;
  externalAccountId: string;
  brandId?: string;
  displayName?: string;
  handle?: string;
  /** the access token stored for it (default: a placeholder the simulators do not check) */
  token?: string;
}

/** Stores the token, creates (201) or updates (200) the channel account, and answers its id. */
export async function putChannel(
  ctx: Pick<TestContext, 'app' | 'root' | 'database'>,
  org: { organizationId: string; auth: Record<string, string> },
  input: ChannelInput,
): Promise<string> {
  const accessTokenRef = await ctx.root.shared.vault.store(ctx.database.db, {
    organizationId: org.organizationId,
    platform: input.platform,
    kind: 'access',
    token: input.token ?? 'token',
    at: new Date(),
  });
  const res = await ctx.app.inject({
    method: 'PUT',
    url: '/v1/channel-accounts',
    headers: org.auth,
    payload: {
      organizationId: org.organizationId,
      platform: input.platform,
      externalAccountId: input.externalAccountId,
      displayName: input.displayName ?? `${input.platform} channel`,
      accessTokenRef,
      ...(input.brandId ? { brandId: input.brandId } : {}),
      ...(input.handle ? { handle: input.handle } : {}),
    },
  });
  assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
  return res.json().channelAccountId;
}
