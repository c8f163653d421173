/**
 * Shared pieces of the adapter tests against the platform simulators: call contexts and tokens, media
 * items that stream their bytes, the OAuth round trip, and a simulator mounted in a host app.
 */
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { OAuthTokens, ProviderCallContext, PublishMediaItem, SocialProvider } from '../../src/providers/provider.js';
import { FailureQueue, SimulatorLedger } from '../../src/sandbox/simulator-kit.js';
import type { MetaSimState } from '../../src/sandbox/simulators/meta/meta-state.js';

export function ctxFor(accessToken: string, externalAccountId = ''): ProviderCallContext {
  return { accessToken, externalAccountId, channelSettings: {} };
}

export function tokensOf(accessToken: string, refreshToken: string | null = null): OAuthTokens {
  return { accessToken, refreshToken, expiresAt: null, refreshTokenExpiresAt: null, scopes: [], extra: {} };
}

/** A media item whose bytes are `data`, read in chunks of `chunkBytes`. */
export function streamedItem(item: Omit<PublishMediaItem, 'bytes' | 'open'>, data: Buffer, chunkBytes = data.length): PublishMediaItem {
  return {
    ...item,
    bytes: data.length,
    async open() {
      return (async function* () {
        for (let i = 0; i < data.length; i += chunkBytes) yield data.subarray(i, i + chunkBytes);
      })();
    },
  };
}

/** Follows the authorization URL (a simulator approves at once) and exchanges the code. */
export async function authorize(
  provider: SocialProvider,
  redirectUri: string,
  options: { state?: string; scopes?: string[]; pkce?: { verifier: string; challenge: string } } = {},
): Promise<OAuthTokens> {
  const url = provider.oauth.authorizationUrl({
    state: options.state ?? 's',
    redirectUri,
    scopes: options.scopes ?? [],
    ...(options.pkce ? { codeChallenge: options.pkce.challenge } : {}),
  });
  const res = await fetch(url, { redirect: 'manual' });
  const code = new URL(res.headers.get('location') ?? '').searchParams.get('code') ?? '';
  return provider.oauth.exchangeCode({ code, redirectUri, ...(options.pkce ? { codeVerifier: options.pkce.verifier } : {}) });
}

export interface MountedSimulator {
  origin: string;
  ledger: SimulatorLedger;
  close(): Promise<void>;
}

/**
 * A host app with a platform simulator mounted under `prefix`, as sandbox mode serves it; `prepare` adds
 * the host's own routes and parsers first.
 */
export async function mountSimulator<O extends { ledger: SimulatorLedger; failures: FailureQueue }>(
  plugin: FastifyPluginAsync<O>,
  prefix: string,
  options: Omit<O, 'ledger' | 'failures'>,
  prepare?: (host: FastifyInstance) => unknown,
): Promise<MountedSimulator> {
  const host = Fastify({ logger: false, forceCloseConnections: true });
  await prepare?.(host);
  const ledger = new SimulatorLedger();
  await host.register(plugin, { ...options, ledger, failures: new FailureQueue(), prefix } as O & { prefix: string });
  const origin = await host.listen({ host: '127.0.0.1', port: 0 });
  return { origin, ledger, close: () => host.close() };
}

/** The settings that point the service's X adapter at a standalone X simulator, with the app's credentials. */
export function xSimulatorEnv(
  sim: { baseUrls: { apiBaseUrl: string; authBaseUrl: string; uploadBaseUrl: string } },
  clientId: string,
  clientSecret: string,
): Record<string, string> {
  return {
    SERVICE_X_CLIENT_ID: clientId,
    SERVICE_X_CLIENT_SECRET: clientSecret,
    SERVICE_X_API_BASE_URL: sim.baseUrls.apiBaseUrl,
    SERVICE_X_AUTH_BASE_URL: sim.baseUrls.authBaseUrl,
    SERVICE_X_UPLOAD_BASE_URL: sim.baseUrls.uploadBaseUrl,
  };
}

/** The simulator family that serves each platform in sandbox mode. */
export const SIMULATOR_FAMILY: Record<string, string> = {
  instagram_business: 'meta',
  instagram_standalone: 'meta',
  facebook_page: 'meta',
  threads: 'meta',
  youtube: 'google',
  pinterest: 'pinterest',
  tiktok: 'tiktok',
  x: 'x',
};

/**
 * Page access tokens of the Meta simulator's seeded pages, as a page admin's long-lived user token with
 * pages_show_list and pages_manage_posts yields them (GET /me/accounts): one per page id asked.
 */
export function metaPageTokens(state: MetaSimState, pageIds: readonly string[]): string[] {
  const user = state.issueToken({
    family: 'facebook',
    kind: 'user',
    subjectId: state.seed.fbUserId,
    userId: null,
    scopes: ['pages_show_list', 'pages_manage_posts'],
    longLived: true,
    ttlSeconds: null,
  });
  return pageIds.map((id) => state.pageToken(id, user).token);
}
