/**
 * Chooses the media backend from configuration: S3 when a bucket is configured, else disk under the
 * data dir. Both share the port in media-store.ts.
 */
import { join } from 'node:path';
import { DiskMediaStore } from './disk-media-store.js';
import type { MediaStore } from './media-store.js';
import { S3MediaStore, type S3MediaStoreOptions } from './s3-media-store.js';

export interface MediaStoreConfig {
  dataDir: string;
  /** the S3 store's options; the region defaults to us-east-1 and the temp dir lies under the data dir */
  s3?: Omit<S3MediaStoreOptions, 'region' | 'tempDir'> & { region?: string };
}

function createMediaStore(config: MediaStoreConfig): MediaStore {
  if (config.s3?.bucket) {
    return new S3MediaStore({
      ...config.s3,
      region: config.s3.region ?? 'us-east-1',
      tempDir: join(config.dataDir, 'media', '.tmp'),
    });
  }
  return new DiskMediaStore(join(config.dataDir, 'media'));
}

/**
 * Every backend an item may live on: the primary (where new bytes go) and, for items written before
 * the configuration changed, the other one when it can be reached. Rows record their backend, so
 * reads and deletes always go where the bytes are.
 */
export class MediaStores {
  readonly primary: MediaStore;
  private readonly disk: MediaStore;
  private readonly s3: MediaStore | null;

  constructor(config: MediaStoreConfig) {
    this.primary = createMediaStore(config);
    this.disk = this.primary.backend === 'disk' ? this.primary : createMediaStore({ dataDir: config.dataDir });
    this.s3 = this.primary.backend === 's3' ? this.primary : null;
  }

  /** The store holding items of `backend`; throws when that backend is not configured any more. */
  for(backend: 'disk' | 's3'): MediaStore {
    const store = backend === 'disk' ? this.disk : this.s3;
    if (!store) throw new Error(`media stored on ${backend} but that backend is not configured`);
    return store;
  }
}
