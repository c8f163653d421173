/**
 * Streams incoming media bytes to a local file while hashing (sha256), counting and keeping the first
 * bytes for type detection. Memory stays bounded by the stream's chunk size plus the probe prefix;
 * the upload is cut the moment it passes the byte limit.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Enough for file-type's signatures and for image headers in all but unusual JPEGs. */
export const PROBE_PREFIX_BYTES = 64 * 1024;

/** Buffer size of the spool's streams: with the 16 KiB default every chunk waits for its own write. */
export const STREAM_BUFFER_BYTES = 1024 * 1024;

export class MediaTooLargeError extends Error {
  override readonly name = 'MediaTooLargeError';
  constructor(readonly limit: number) {
    super(`the media is larger than the limit of ${limit} bytes`);
  }
}

export interface SpooledMedia {
  path: string;
  bytes: number;
  sha256: string;
  prefix: Buffer;
}

export async function spoolToFile(source: AsyncIterable<Uint8Array> | Readable, path: string, maxBytes: number): Promise<SpooledMedia> {
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let headBytes = 0;
  let bytes = 0;
  const meter = new Transform({
    highWaterMark: STREAM_BUFFER_BYTES,
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > maxBytes) return callback(new MediaTooLargeError(maxBytes));
      if (headBytes < PROBE_PREFIX_BYTES) {
        const slice = chunk.subarray(0, PROBE_PREFIX_BYTES - headBytes);
        head.push(Buffer.from(slice));
        headBytes += slice.length;
      }
      // hand the chunk to the file first so the disk write (thread pool) overlaps the hashing
      this.push(chunk);
      hash.update(chunk);
      callback();
    },
  });
  try {
    await pipeline(source, meter, createWriteStream(path, { flags: 'wx', highWaterMark: STREAM_BUFFER_BYTES }));
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return {
    path,
    bytes,
    sha256: hash.digest('hex'),
    prefix: Buffer.concat(head),
  };
}

/**
 * Removes spool files left by a process that stopped mid-upload. Only files older than the longest a
 * request may take are removed, so uploads in progress in another process sharing the directory stay.
 */
export async function removeOrphanedSpoolFiles(dir: string, olderThanMs: number, now = Date.now()): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!name.endsWith('.upload')) continue;
    const path = join(dir, name);
    try {
      if (now - (await stat(path)).mtimeMs < olderThanMs) continue;
      await rm(path, { force: true });
      removed++;
    } catch {
      /* removed meanwhile */
    }
  }
  return removed;
}
