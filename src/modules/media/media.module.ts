/**
 * The media library: uploads, imports, signed content URLs and the delete job. The root hands it the
 * one set of media stores, the guarded outbound client and the reference checks other areas subscribe.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import { selectStore } from '../../platform/counters/store-selection.js';
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import type { MediaStores } from '../../platform/media-store/create-media-store.js';
import type { MediaStore } from '../../platform/media-store/media-store.js';
import type { AppDeps, StorageHealth } from '../app-deps.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import { mediaDeleteJob } from './media.jobs.js';
import { type MediaReadPort, mediaReadPort } from './media.read.js';
import { registerMediaRoutes } from './media.routes.js';
import { MediaService } from './media.service.js';
import { MediaImportService } from './media-import.service.js';
import { ImportBudget } from './media-import-budget.js';
import { MediaIngest } from './media-ingest.js';
import type { MediaReferenceChecks } from './media-references.js';
import { MEDIA_URL_KEY_LABEL, MediaUrlSigner } from './media-signed-url.js';

export type { MediaReadPort } from './media.read.js';
export type { MediaReferenceCheck } from './media-references.js';

export type MediaPorts = Pick<AppDeps, 'config' | 'database' | 'counters' | 'jobs' | 'clock' | 'events' | 'encryptor'> & {
  stores: MediaStores;
  outbound: GuardedHttpClient;
  references: MediaReferenceChecks;
  brands: BrandsReadPort;
};

/** What other areas use of the media library. */
export interface MediaRead {
  /** the items publishing reads (facts, signed URLs, bytes at publish time) */
  publishing: MediaReadPort;
  imports: MediaImportService;
  storageHealth(): Promise<StorageHealth>;
}

export interface MediaModule extends AreaModule<MediaRead> {
  store: MediaStore;
  media: MediaService;
  imports: MediaImportService;
  signer: MediaUrlSigner;
  ingest: MediaIngest;
  maxUploadBytes: number;
  /** largest file accepted as JSON base64 (held in memory whole) */
  maxJsonUploadBytes: number;
}

export function createMediaModule(ports: MediaPorts): MediaModule {
  const env = ports.config.env;
  const now = () => ports.clock.now();
  const { stores, events } = ports;
  const store = stores.primary;
  const budget = new ImportBudget(
    () => selectStore(env.SERVICE_REMOTE_MEDIA_IMPORT_BUDGET_STORE, ports.counters),
    () => now().getTime(),
  );
  const signer = mediaUrlSigner(ports);
  const ingest = new MediaIngest(ports.database.db, ports.brands, store, mediaSpoolDir(ports.config), now);
  const maxUploadBytes = env.SERVICE_MEDIA_MAX_UPLOAD_BYTES;
  const maxJsonUploadBytes = Math.min(env.SERVICE_MEDIA_MAX_JSON_UPLOAD_BYTES, maxUploadBytes);
  const media = new MediaService({
    db: ports.database.db,
    brands: ports.brands,
    stores,
    ingest,
    signer,
    jobs: ports.jobs,
    now,
    maxUploadBytes,
    maxJsonUploadBytes,
    uploadsEnabled: () => ports.config.gateOpen('SERVICE_MEDIA_UPLOAD_WRITE_ENABLED'),
    events,
    references: ports.references,
  });
  // a new item is ready once its row exists (uploads and imports share the ingest path)
  ingest.onCreated = (tx, row) =>
    events.record(tx, { organizationId: row.organization_id, type: 'media.ready', data: media.toItem(row) }).then(() => undefined);
  const imports = new MediaImportService(media, ingest, ports.outbound, budget);
  const storageHealth = async (): Promise<StorageHealth> => {
    const health = await store.health();
    return {
      ok: health.ok,
      mediaStorage: { configured: true, backend: health.backend, ok: health.ok, ...(health.detail ? { detail: health.detail } : {}) },
    };
  };
  const module: MediaModule = {
    store,
    media,
    imports,
    signer,
    ingest,
    maxUploadBytes,
    maxJsonUploadBytes,
    read: { publishing: mediaReadPort({ signer, store, now }), imports, storageHealth },
    jobs: [mediaDeleteJob(ports.database.db, stores)],
    routes: (app: FastifyInstance) => registerMediaRoutes(app, ports.clock, module),
  };
  return module;
}

/** The signer of media content URLs (its key derived from the service encryption key). */
function mediaUrlSigner(ports: Pick<AppDeps, 'config' | 'encryptor'>): MediaUrlSigner {
  return new MediaUrlSigner(
    ports.encryptor.deriveKey(MEDIA_URL_KEY_LABEL),
    ports.config.publicBaseUrl,
    ports.config.env.SERVICE_MEDIA_SIGNED_URL_TTL_SECONDS,
  );
}

/** Where uploads are spooled before they are stored (local to the process). */
export const mediaSpoolDir = (config: { dataDir: string }) => join(config.dataDir, 'media', '.tmp');
/** run by the API process at start: uploads cut off by a crash leave spool files */
export { removeOrphanedSpoolFiles } from './media-spool.js';
