/**
 * Shared setup for the TikTok adapter tests: the TikTok simulator, an adapter pointed at it (5 MiB
 * chunks), the Login Kit authorize -> token flow per fake creator, media fixtures and the ProviderError
 * assertion.
 */
import assert from 'node:assert/strict';
import type { OAuthTokens, ProviderCallContext, PublishMediaItem, PublishRequest, SocialProvider } from '../../src/providers/provider.js';
import { createTiktokProvider } from '../../src/providers/tiktok/tiktok.provider.js';
import { type RunningTiktokSimulator, startTiktokSimulator } from '../../src/sandbox/simulators/tiktok.simulator.js';
import { streamedItem } from '../support/simulators.js';

export const MiB = 1024 * 1024;
export const REDIRECT = 'https://app.example.test/v1/channel-accounts/oauth/callback/tiktok';

export function videoItem(bytes: number, durationSeconds = 12): PublishMediaItem {
  return streamedItem(
    { kind: 'video', mimeType: 'video/mp4', url: 'https://cdn.example.test/v.mp4', durationSeconds },
    Buffer.alloc(bytes, 7),
    MiB,
  );
}

export function imageItem(n: number): PublishMediaItem {
  return streamedItem({ kind: 'image', mimeType: 'image/jpeg', url: `https://cdn.example.test/p${n}.jpg` }, Buffer.alloc(1000));
}

export const baseSettings = {
  privacy_level: 'PUBLIC_TO_EVERYONE',
  disable_comment: false,
  disable_duet: false,
  disable_stitch: false,
  brand_content_toggle: false,
  brand_organic_toggle: false,
};

export function request(media: PublishMediaItem[], settings: Record<string, unknown> = {}, text = 'hello tiktok'): PublishRequest {
  return {
    text,
    media,
    settings: { ...baseSettings, ...settings },
    idempotencyKey: 'tgt_1',
  };
}

export { rejectsWith as expectProviderError } from '../support/provider-errors.js';

export interface TiktokHarness {
  sim: RunningTiktokSimulator;
  provider: SocialProvider;
  makeProvider(timeoutMs?: number): SocialProvider;
  connect(scopes?: string[], user?: string): Promise<OAuthTokens>;
  channel(user?: string): Promise<ProviderCallContext>;
  pollUntilDone(
    ctx: ProviderCallContext,
    pollToken: string,
  ): Promise<{
    status: 'published';
    providerPostId: string;
    url: string | null;
  }>;
}

export async function startTiktokHarness(): Promise<TiktokHarness> {
  const sim = await startTiktokSimulator({ processingDelayMs: 20 });
  const makeProvider = (timeoutMs = 5000) =>
    createTiktokProvider(
      {
        clientId: sim.state.clientKey,
        clientSecret: sim.state.clientSecret,
        redirectUri: REDIRECT,
        ...sim.baseUrls,
        timeoutMs,
      },
      { chunkSizeBytes: 5 * MiB, pollAfterMs: 10 },
    );
  const provider = makeProvider();

  async function connect(scopes = provider.oauth.defaultScopes, user?: string) {
    const url = new URL(
      provider.oauth.authorizationUrl({
        state: 'st-1',
        redirectUri: REDIRECT,
        scopes,
      }),
    );
    if (user) url.searchParams.set('sandbox_user', user);
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 302);
    const location = new URL(res.headers.get('location') ?? '');
    assert.equal(location.searchParams.get('state'), 'st-1');
    return provider.oauth.exchangeCode({
      code: location.searchParams.get('code') ?? '',
      redirectUri: REDIRECT,
    });
  }

  async function channel(user?: string): Promise<ProviderCallContext> {
    const tokens = await connect(undefined, user);
    return {
      accessToken: tokens.accessToken,
      externalAccountId: tokens.extra.open_id ?? '',
      channelSettings: {},
    };
  }

  async function pollUntilDone(ctx: ProviderCallContext, pollToken: string) {
    for (let i = 0; i < 100; i += 1) {
      const r = await provider.pollPublish(ctx, pollToken);
      if (r.status === 'published') return r;
      await new Promise((res) => setTimeout(res, 10));
    }
    assert.fail('publish never completed');
  }

  return { sim, provider, makeProvider, connect, channel, pollUntilDone };
}
