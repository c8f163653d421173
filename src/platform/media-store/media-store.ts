/**
 * The MediaStore port: where media bytes live. Disk (under the data dir) by default, any S3-compatible
 * bucket when configured. Keys are chosen by the media module (never by a client) and are checked here
 * so a bad key can never escape the disk root or the bucket prefix.
 */
import type { Readable } from 'node:stream';

export interface ByteRange {
  /** first byte, inclusive */
  start: number;
  /** last byte, inclusive */
  end: number;
}

export interface StoredObject {
  /** total size of the object */
  size: number;
  /** the requested bytes (the whole object when no range was asked) */
  body: Readable;
  range: ByteRange;
}

export interface MediaStoreHealth {
  ok: boolean;
  backend: 'disk' | 's3';
  /** short reason when not ok; never contains credentials */
  detail?: string;
}

export interface PutOptions {
  contentType?: string;
}

export interface MediaStore {
  readonly backend: 'disk' | 's3';
  /** Writes a stream under `key` atomically: readers see the whole object or nothing. */
  put(key: string, source: AsyncIterable<Uint8Array> | Readable, options?: PutOptions): Promise<{ size: number }>;
  /**
   * Moves a complete local file under `key` (rename on disk when possible, upload for S3). The file
   * is gone from `path` afterwards.
   */
  putFile(key: string, path: string, options?: PutOptions): Promise<{ size: number }>;
  /** null when the object does not exist. */
  get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  head(key: string): Promise<{ size: number } | null>;
  /** Idempotent: deleting a missing object succeeds. */
  delete(key: string): Promise<void>;
  /** Whether the backend answers (and, for disk, is writable). */
  health(): Promise<MediaStoreHealth>;
  /** A direct public address for the object when the backend has one configured, else null. */
  publicUrl(key: string): string | null;
}

const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export function assertValidKey(key: string): void {
  if (key.length > 512 || !KEY_PATTERN.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`invalid media store key: ${JSON.stringify(key)}`);
  }
}

export function assertValidRange(range: ByteRange | undefined, size: number): void {
  if (!range) return;
  if (!Number.isInteger(range.start) || !Number.isInteger(range.end) || range.start < 0 || range.end < range.start || range.end >= size) {
    throw new RangeError(`byte range ${range.start}-${range.end} is outside 0-${size - 1}`);
  }
}
