/**
 * Builds the eight SocialProviders from configuration. Each adapter gets its ProviderAppConfig from
 * SERVICE_<PLATFORM>_* (providerEnv) over its own <P>_ENDPOINTS defaults. In sandbox mode
 * (SERVICE_PROVIDER_MODE=sandbox) every adapter points at the simulators this same process serves
 * under /sandbox/<family> and app credentials default to the simulators' sandbox values.
 * `overrides` lets tests point an adapter at a standalone simulator.
 */
import { type Config, providerEnv } from '../config.js';
import type { ProviderCallObserver } from '../platform/metrics/metrics.js';
import { PLATFORM_FAMILY, SANDBOX_APP_CREDENTIALS, sandboxBaseUrls } from '../sandbox/sandbox-urls.js';
import { createFacebookPageProvider } from './facebook-page/facebook-page.provider.js';
import { FACEBOOK_PAGE_ENDPOINTS } from './facebook-page/facebook-page.rules.js';
import { createInstagramBusinessProvider } from './instagram-business/instagram-business.provider.js';
import { INSTAGRAM_BUSINESS_ENDPOINTS } from './instagram-business/instagram-business.rules.js';
import { createInstagramStandaloneProvider } from './instagram-standalone/instagram-standalone.provider.js';
import { INSTAGRAM_STANDALONE_ENDPOINTS } from './instagram-standalone/instagram-standalone.rules.js';
import { observeProvider } from './observed-provider.js';
import { createPinterestProvider } from './pinterest/pinterest.provider.js';
import { PINTEREST_ENDPOINTS } from './pinterest/pinterest.rules.js';
import { PLATFORMS, type Platform, type ProviderAppConfig, type SocialProvider } from './provider.js';
import { createThreadsProvider } from './threads/threads.provider.js';
import { THREADS_ENDPOINTS } from './threads/threads.rules.js';
import { createTiktokProvider } from './tiktok/tiktok.provider.js';
import { TIKTOK_ENDPOINTS } from './tiktok/tiktok.rules.js';
import { createXProvider } from './x/x.provider.js';
import { X_ENDPOINTS } from './x/x.rules.js';
import { createYoutubeProvider } from './youtube/youtube.provider.js';
import { YOUTUBE_ENDPOINTS } from './youtube/youtube.rules.js';

interface Endpoints {
  apiBaseUrl: string;
  authBaseUrl: string;
  uploadBaseUrl: string;
}

const ADAPTERS: Record<
  Platform,
  {
    create: (config: ProviderAppConfig) => SocialProvider;
    endpoints: Endpoints;
  }
> = {
  instagram_business: {
    create: createInstagramBusinessProvider,
    endpoints: INSTAGRAM_BUSINESS_ENDPOINTS,
  },
  instagram_standalone: {
    create: createInstagramStandaloneProvider,
    endpoints: INSTAGRAM_STANDALONE_ENDPOINTS,
  },
  facebook_page: {
    create: createFacebookPageProvider,
    endpoints: FACEBOOK_PAGE_ENDPOINTS,
  },
  threads: { create: createThreadsProvider, endpoints: THREADS_ENDPOINTS },
  youtube: {
    create: (c) => createYoutubeProvider(c),
    endpoints: YOUTUBE_ENDPOINTS,
  },
  pinterest: {
    create: createPinterestProvider,
    endpoints: PINTEREST_ENDPOINTS,
  },
  tiktok: {
    create: (c) => createTiktokProvider(c),
    endpoints: TIKTOK_ENDPOINTS,
  },
  x: { create: (c) => createXProvider(c), endpoints: X_ENDPOINTS },
};

export type ProviderOverrides = Partial<Record<Platform, Partial<ProviderAppConfig>>>;

export interface ProviderRegistry {
  readonly mode: 'live' | 'sandbox';
  get(platform: Platform): SocialProvider;
  all(): SocialProvider[];
  /** the app configuration the adapter was built with (connect-url checks it; never returned to clients) */
  appConfig(platform: Platform): Readonly<ProviderAppConfig>;
}

/** Each platform's effective app configuration (exported for the sandbox plugin and tests). */
export function providerAppConfigs(config: Config, overrides: ProviderOverrides = {}): Record<Platform, ProviderAppConfig> {
  const sandbox = config.env.SERVICE_PROVIDER_MODE === 'sandbox';
  const simulated = sandbox ? sandboxBaseUrls(config.publicBaseUrl) : null;
  const out = {} as Record<Platform, ProviderAppConfig>;
  for (const platform of PLATFORMS) {
    const env = providerEnv(config, platform);
    const defaults = ADAPTERS[platform].endpoints;
    const creds = sandbox ? SANDBOX_APP_CREDENTIALS[PLATFORM_FAMILY[platform]] : null;
    out[platform] = {
      clientId: env.clientId ?? creds?.clientId ?? null,
      clientSecret: env.clientSecret ?? creds?.clientSecret ?? null,
      redirectUri: env.redirectUri,
      apiBaseUrl: simulated?.[platform].apiBaseUrl ?? env.apiBaseUrl ?? defaults.apiBaseUrl,
      authBaseUrl: simulated?.[platform].authBaseUrl ?? env.authBaseUrl ?? defaults.authBaseUrl,
      uploadBaseUrl: simulated?.[platform].uploadBaseUrl ?? env.uploadBaseUrl ?? defaults.uploadBaseUrl,
      timeoutMs: config.env.SERVICE_PROVIDER_TIMEOUT_MS,
      ...overrides[platform],
    };
  }
  return out;
}

/** `observer` (the metrics port) counts and times every call to a platform. */
export function createProviderRegistry(
  config: Config,
  overrides: ProviderOverrides = {},
  observer?: ProviderCallObserver,
): ProviderRegistry {
  const configs = providerAppConfigs(config, overrides);
  const providers = new Map<Platform, SocialProvider>();
  for (const platform of PLATFORMS) {
    const provider = ADAPTERS[platform].create(configs[platform]);
    providers.set(platform, observer ? observeProvider(provider, observer) : provider);
  }
  return {
    mode: config.env.SERVICE_PROVIDER_MODE,
    get: (platform) => {
      const p = providers.get(platform);
      if (!p) throw new Error(`no provider for ${platform}`);
      return p;
    },
    all: () => PLATFORMS.map((p) => providers.get(p)!),
    appConfig: (platform) => configs[platform],
  };
}
