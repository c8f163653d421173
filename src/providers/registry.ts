/**
 * Builds the eight SocialProviders from their app configurations. The composition root
 * (src/main/provider-configs.ts) assembles each ProviderAppConfig from settings, sandbox base URLs
 * and the adapters' default endpoints (`defaultEndpoints`); this file knows no configuration source.
 */
import type { ProviderCallObserver } from '../platform/metrics/metrics.js';
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

/** The three base URLs an adapter calls (production defaults, or a simulator's in sandbox mode). */
export type Endpoints = Pick<ProviderAppConfig, 'apiBaseUrl' | 'authBaseUrl' | 'uploadBaseUrl'>;

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

/** The endpoints an adapter uses when its settings name none. */
export function defaultEndpoints(platform: Platform): Endpoints {
  return ADAPTERS[platform].endpoints;
}

/** `observer` (the metrics port) counts and times every call to a platform. */
export function createProviderRegistry(
  mode: 'live' | 'sandbox',
  configs: Record<Platform, ProviderAppConfig>,
  observer?: ProviderCallObserver,
): ProviderRegistry {
  const providers = new Map<Platform, SocialProvider>();
  for (const platform of PLATFORMS) {
    const provider = ADAPTERS[platform].create(configs[platform]);
    providers.set(platform, observer ? observeProvider(provider, observer) : provider);
  }
  return {
    mode,
    get: (platform) => {
      const p = providers.get(platform);
      if (!p) throw new Error(`no provider for ${platform}`);
      return p;
    },
    all: () => PLATFORMS.map((p) => providers.get(p)!),
    appConfig: (platform) => configs[platform],
  };
}
