/**
 * The shared pieces every process builds once from its dependencies: the provider registry, the
 * token vault, the media stores, the guarded outbound clients and the subscriber lists of cross-area
 * reactions. Only the composition root (composition.ts) calls this.
 */
import type { AppDeps } from '../modules/app-deps.js';
import { TokenVault } from '../modules/channels/channels.module.js';
import { type GuardedClientOptions, GuardedHttpClient } from '../platform/http-client/guarded-client.js';
import { MediaStores } from '../platform/media-store/create-media-store.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { providerRegistryFromConfig } from './provider-configs.js';

export interface SharedPieces {
  registry: ProviderRegistry;
  vault: TokenVault;
  mediaStores: MediaStores;
  /** a guarded outbound client with the test address allow-list applied (extra options per use) */
  outbound(options?: Omit<GuardedClientOptions, 'allowAddresses' | 'environment'>): GuardedHttpClient;
}

export function buildSharedPieces(deps: AppDeps): SharedPieces {
  const { config } = deps;
  const env = config.env;
  return {
    registry: providerRegistryFromConfig(config, {}, deps.metrics),
    vault: new TokenVault(deps.encryptor, config),
    mediaStores: new MediaStores({
      dataDir: config.dataDir,
      s3: env.SERVICE_MEDIA_S3_BUCKET
        ? {
            bucket: env.SERVICE_MEDIA_S3_BUCKET,
            region: env.SERVICE_MEDIA_S3_REGION,
            endpoint: env.SERVICE_MEDIA_S3_ENDPOINT,
            forcePathStyle: env.SERVICE_MEDIA_S3_FORCE_PATH_STYLE,
            accessKeyId: env.SERVICE_MEDIA_S3_ACCESS_KEY_ID,
            secretAccessKey: env.SERVICE_MEDIA_S3_SECRET_ACCESS_KEY,
            prefix: env.SERVICE_MEDIA_S3_PREFIX,
            publicBaseUrl: env.SERVICE_MEDIA_S3_PUBLIC_BASE_URL,
          }
        : undefined,
    }),
    outbound: (options = {}) =>
      new GuardedHttpClient({ ...options, allowAddresses: config.outboundAllowAddresses, environment: env.NODE_ENV }),
  };
}
