/**
 * Wires the media library from the application's dependencies: store (disk or S3), guarded outbound
 * client, import budgets on the configured counter store, URL signer, services and the delete job.
 */
import { join } from 'node:path';
import type { AppDeps, StorageHealth } from '../../app-deps.js';
import { selectStore } from '../../platform/counters/store-selection.js';
import { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { type MediaStoreConfig, MediaStores } from '../../platform/media-store/create-media-store.js';
import type { MediaStore } from '../../platform/media-store/media-store.js';
import { loadEncryptionKey } from '../../platform/secrets/encryption.js';
import { mediaDeleteJob } from './media.jobs.js';
import { MediaService } from './media.service.js';
import { MediaImportService } from './media-import.service.js';
import { ImportBudget } from './media-import-budget.js';
import { MediaIngest } from './media-ingest.js';
import { MediaUrlSigner } from './media-signed-url.js';

export interface MediaModule {
  store: MediaStore;
  media: MediaService;
  imports: MediaImportService;
  signer: MediaUrlSigner;
  ingest: MediaIngest;
  maxUploadBytes: number;
  /** largest file accepted as JSON base64 (held in memory whole) */
  maxJsonUploadBytes: number;
  storageHealth(): Promise<StorageHealth>;
}

function storeConfig(deps: Pick<AppDeps, 'config'>): MediaStoreConfig {
  const env = deps.config.env;
  return {
    dataDir: deps.config.dataDir,
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
  };
}

/** Where items of each backend live (reads and deletes follow the row's backend). */
export function mediaStoresFromConfig(deps: Pick<AppDeps, 'config'>): MediaStores {
  return new MediaStores(storeConfig(deps));
}

/** The primary store (where new bytes go). */
export function mediaStoreFromConfig(deps: Pick<AppDeps, 'config'>): MediaStore {
  return mediaStoresFromConfig(deps).primary;
}

export function createMediaModule(deps: AppDeps): MediaModule {
  const env = deps.config.env;
  const now = () => deps.clock.now();
  const stores = mediaStoresFromConfig(deps);
  const store = stores.primary;
  const client = new GuardedHttpClient({ allowAddresses: [...deps.config.outboundAllowAddresses], environment: env.NODE_ENV });
  const budget = new ImportBudget(
    () => selectStore(env.SERVICE_REMOTE_MEDIA_IMPORT_BUDGET_STORE, deps.counters),
    () => now().getTime(),
  );
  const signer = new MediaUrlSigner(
    loadEncryptionKey(env.SERVICE_ENCRYPTION_KEY, deps.config.dataDir),
    deps.config.publicBaseUrl,
    env.SERVICE_MEDIA_SIGNED_URL_TTL_SECONDS,
  );
  const ingest = new MediaIngest(deps.database.db, store, mediaSpoolDir(deps.config), now);
  const media = new MediaService({
    db: deps.database.db,
    stores,
    ingest,
    signer,
    jobs: deps.jobs,
    now,
    maxUploadBytes: env.SERVICE_MEDIA_MAX_UPLOAD_BYTES,
    maxJsonUploadBytes: Math.min(env.SERVICE_MEDIA_MAX_JSON_UPLOAD_BYTES, env.SERVICE_MEDIA_MAX_UPLOAD_BYTES),
    uploadsEnabled: () => deps.config.gateOpen('SERVICE_MEDIA_UPLOAD_WRITE_ENABLED'),
    events: deps.events,
  });
  // a new item is ready once its row exists (uploads and imports share the ingest path)
  ingest.onCreated = (tx, row) =>
    deps.events.record(tx, { organizationId: row.organization_id, type: 'media.ready', data: media.toItem(row) }).then(() => undefined);
  return {
    store,
    media,
    imports: new MediaImportService(media, ingest, client, budget),
    signer,
    ingest,
    maxUploadBytes: env.SERVICE_MEDIA_MAX_UPLOAD_BYTES,
    maxJsonUploadBytes: Math.min(env.SERVICE_MEDIA_MAX_JSON_UPLOAD_BYTES, env.SERVICE_MEDIA_MAX_UPLOAD_BYTES),
    async storageHealth() {
      const health = await store.health();
      return {
        ok: health.ok,
        mediaStorage: { configured: true, backend: health.backend, ok: health.ok, ...(health.detail ? { detail: health.detail } : {}) },
      };
    },
  };
}

/** The worker's media jobs (runtime.ts jobDefinitions). */
export function mediaJobDefinitions(deps: AppDeps) {
  return [mediaDeleteJob(deps.database.db, mediaStoresFromConfig(deps))];
}

/** Where uploads are spooled before they are stored (local to the process). */
export const mediaSpoolDir = (config: { dataDir: string }) => join(config.dataDir, 'media', '.tmp');
