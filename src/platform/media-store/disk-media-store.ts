/**
 * Media bytes on the local disk, under `<dataDir>/media`. Writes go to `<root>/.tmp` first and are
 * renamed into place, so a crash mid-write leaves only a temp file, never a half object under a key.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, constants, mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertValidKey,
  assertValidRange,
  type ByteRange,
  type MediaStore,
  type MediaStoreHealth,
  type StoredObject,
} from './media-store.js';

export class DiskMediaStore implements MediaStore {
  readonly backend = 'disk' as const;
  readonly tempDir: string;

  constructor(readonly root: string) {
    this.tempDir = join(root, '.tmp');
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    return join(this.root, key);
  }

  /** A fresh path in the store's temp dir (same filesystem, so a later rename is atomic). */
  async tempPath(): Promise<string> {
    await mkdir(this.tempDir, { recursive: true });
    return join(this.tempDir, `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}.part`);
  }

  async put(key: string, source: AsyncIterable<Uint8Array> | Readable): Promise<{ size: number }> {
    const target = this.pathOf(key);
    const temp = await this.tempPath();
    try {
      await pipeline(source, createWriteStream(temp, { flags: 'wx' }));
      return await this.moveInto(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async putFile(key: string, path: string): Promise<{ size: number }> {
    const target = this.pathOf(key);
    try {
      return await this.moveInto(path, target);
    } catch (error) {
      // Another filesystem: copy through a temp file, then drop the source.
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      const result = await this.put(key, createReadStream(path));
      await unlink(path);
      return result;
    }
  }

  private async moveInto(from: string, target: string): Promise<{ size: number }> {
    await mkdir(dirname(target), { recursive: true });
    await rename(from, target);
    return { size: (await stat(target)).size };
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    const path = this.pathOf(key);
    const found = await this.head(key);
    if (!found) return null;
    assertValidRange(range, found.size);
    const chosen = range ?? { start: 0, end: Math.max(found.size - 1, 0) };
    const body = createReadStream(path, found.size === 0 ? {} : { start: chosen.start, end: chosen.end });
    return { size: found.size, body, range: chosen };
  }

  async head(key: string): Promise<{ size: number } | null> {
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? { size: info.size } : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async health(): Promise<MediaStoreHealth> {
    try {
      await mkdir(this.tempDir, { recursive: true });
      await access(this.root, constants.W_OK);
      return { ok: true, backend: 'disk' };
    } catch (error) {
      return {
        ok: false,
        backend: 'disk',
        detail: `media directory not writable (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      };
    }
  }

  publicUrl(): string | null {
    return null;
  }
}
