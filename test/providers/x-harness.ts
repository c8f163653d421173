/**
 * Shared setup for the X adapter tests: the X simulator, an adapter pointed at it, the PKCE authorize ->
 * token flow per fake account, media fixtures and the ProviderError assertion.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { OAuthTokens, ProviderCallContext, PublishMediaItem, PublishResult, SocialProvider } from '../../src/providers/provider.js';
import { createXProvider } from '../../src/providers/x/x.provider.js';
import { type RunningXSimulator, startXSimulator } from '../../src/sandbox/simulators/x.simulator.js';
import { streamedItem } from '../support/simulators.js';

export const REDIRECT = 'https://app.example.test/v1/channel-accounts/oauth/callback/x';
export const MiB = 1024 * 1024;

export function media(kind: 'image' | 'gif' | 'video', bytes: number, altText?: string): PublishMediaItem {
  const mimeType = kind === 'image' ? 'image/png' : kind === 'gif' ? 'image/gif' : 'video/mp4';
  const item = { kind, mimeType, url: `https://cdn.example.test/m.${kind}`, altText, durationSeconds: kind === 'video' ? 10 : undefined };
  return streamedItem(item, Buffer.alloc(bytes, 3), 1_000_000);
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return {
    verifier,
    challenge: createHash('sha256').update(verifier).digest('base64url'),
  };
}

export { rejectsWith as expectProviderError } from '../support/provider-errors.js';

export const published = (r: PublishResult) => {
  assert.equal(r.status, 'published');
  return r as Extract<PublishResult, { status: 'published' }>;
};

export interface XHarness {
  sim: RunningXSimulator;
  provider: SocialProvider;
  makeProvider(timeoutMs?: number, secret?: string | null): SocialProvider;
  authorizeCode(user: string, scopes?: string[]): Promise<{ code: string; verifier: string }>;
  connect(user: string, scopes?: string[]): Promise<OAuthTokens>;
  channel(user: string): Promise<ProviderCallContext>;
  pollUntilPublished(ctx: ProviderCallContext, first: PublishResult): Promise<Extract<PublishResult, { status: 'published' }>>;
}

export async function startXHarness(): Promise<XHarness> {
  const sim = await startXSimulator({ mediaProcessingMs: 30 });
  const makeProvider = (timeoutMs = 5000, secret: string | null = sim.state.clientSecret) =>
    createXProvider(
      {
        clientId: sim.state.clientId,
        clientSecret: secret,
        redirectUri: REDIRECT,
        ...sim.baseUrls,
        timeoutMs,
      },
      { minPollAfterMs: 10 },
    );
  const provider = makeProvider();

  async function authorizeCode(user: string, scopes = provider.oauth.defaultScopes) {
    const { verifier, challenge } = pkce();
    const url = new URL(
      provider.oauth.authorizationUrl({
        state: 'st-x',
        redirectUri: REDIRECT,
        scopes,
        codeChallenge: challenge,
      }),
    );
    url.searchParams.set('sandbox_user', user);
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 302);
    const location = new URL(res.headers.get('location') ?? '');
    assert.equal(location.searchParams.get('state'), 'st-x');
    return { code: location.searchParams.get('code') ?? '', verifier };
  }

  async function connect(user: string, scopes?: string[]) {
    const { code, verifier } = await authorizeCode(user, scopes);
    return provider.oauth.exchangeCode({
      code,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
  }

  async function channel(user: string): Promise<ProviderCallContext> {
    const tokens = await connect(user);
    return {
      accessToken: tokens.accessToken,
      externalAccountId: '',
      channelSettings: { handle: user },
    };
  }

  async function pollUntilPublished(ctx: ProviderCallContext, first: PublishResult) {
    let r = first;
    for (let i = 0; i < 100 && r.status === 'processing'; i += 1) {
      await new Promise((res) => setTimeout(res, 10));
      r = await provider.pollPublish(ctx, r.pollToken);
    }
    return published(r);
  }

  return {
    sim,
    provider,
    makeProvider,
    authorizeCode,
    connect,
    channel,
    pollUntilPublished,
  };
}
