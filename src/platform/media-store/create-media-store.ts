/**
 * Chooses the media backend from configuration: S3 when a bucket is configured, else disk under the
 * data dir. Both share the port in media-store.ts.
 */
import { join } from 'node:path';
import { DiskMediaStore } from './disk-media-store.js';
import type { MediaStore } from './media-store.js';
import { S3MediaStore } from './s3-media-store.js';

export interface MediaStoreConfig {
  dataDir: string;
  s3?: {
    bucket: string;
    region?: string;
    endpoint?: string;
    forcePathStyle?: boolean;
    accessKeyId?: string;
    secretAccessKey?: string;
    prefix?: string;
    publicBaseUrl?: string;
  };
}

export function createMediaStore(config: MediaStoreConfig): MediaStore {
  if (config.s3?.bucket) {
    return new S3MediaStore({
      ...config.s3,
      region: config.s3.region ?? 'us-east-1',
      tempDir: join(config.dataDir, 'media', '.tmp'),
    });
  }
  return new DiskMediaStore(join(config.dataDir, 'media'));
}
