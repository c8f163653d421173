/**
 * The shared path of every way bytes enter the library (JSON upload, multipart upload, remote import):
 * spool to a temp file while hashing and cutting at the limit -> decide the type from the bytes ->
 * dedup within the organization -> move into the media store -> insert the row.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { MediaStore } from '../../platform/media-store/media-store.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { Db, Executor } from '../database.js';
import { fileReader } from './byte-reader.js';
import { type MediaRow, mediaRepository } from './media.repository.js';
import { MediaProbeError, probeMedia } from './media-probe.js';
import { MediaTooLargeError, type SpooledMedia, spoolToFile } from './media-spool.js';

export interface IngestInput {
  organizationId: string;
  source: AsyncIterable<Uint8Array> | Readable;
  maxBytes: number;
  /** checked after the bytes arrived (multipart fields may follow the file) */
  brandId: () => string | null;
  /** extra metadata recorded with the item (altText, fileName, sourceUrl) */
  extra: () => Record<string, unknown>;
}

export interface IngestResult {
  row: MediaRow;
  /** false when the same bytes already existed in the organization */
  created: boolean;
}

export class MediaIngest {
  /** Runs in the transaction that inserts a new item (the composition root records media.ready here). */
  onCreated: ((tx: Executor, row: MediaRow) => Promise<void>) | null = null;

  constructor(
    private readonly db: Db,
    /** the brands area's read port (an item's brand must exist) */
    private readonly brands: BrandsReadPort,
    private readonly store: MediaStore,
    private readonly spoolDir: string,
    private readonly now: () => Date,
  ) {}

  async spoolPath(): Promise<string> {
    await mkdir(this.spoolDir, { recursive: true });
    return join(this.spoolDir, `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}.upload`);
  }

  /** Spools a stream to a temp file (hash, size, prefix), cutting at maxBytes. */
  async spool(source: AsyncIterable<Uint8Array> | Readable, maxBytes: number): Promise<SpooledMedia> {
    const path = await this.spoolPath();
    try {
      return await spoolToFile(source, path, maxBytes);
    } catch (error) {
      if (error instanceof MediaTooLargeError) {
        throw new AppError('media_file_too_large', { message: `The file is larger than the maximum of ${error.limit} bytes.` });
      }
      throw error;
    }
  }

  async ingest(input: IngestInput): Promise<IngestResult> {
    return this.ingestSpooled(await this.spool(input.source, input.maxBytes), input);
  }

  /** Probes, dedups and stores an already spooled file; the spool file is always removed. */
  async ingestSpooled(spooled: SpooledMedia, input: Omit<IngestInput, 'source' | 'maxBytes'>): Promise<IngestResult> {
    const path = spooled.path;
    try {
      if (spooled.bytes === 0) throw new AppError('invalid_public_media_upload_request', { message: 'The media is empty.' });
      const reader = await fileReader(path);
      let facts: Awaited<ReturnType<typeof probeMedia>>;
      try {
        facts = await probeMedia(spooled.prefix, reader);
      } catch (error) {
        if (error instanceof MediaProbeError) throw new AppError('invalid_public_media_upload_request', { message: error.message });
        throw error;
      } finally {
        await reader.close();
      }
      const brandId = input.brandId();
      if (brandId !== null && !(await this.brands.brand(this.db, input.organizationId, brandId))) {
        throw new AppError('brand_not_found', {
          message: `No brand ${brandId} in the principal organization.`,
          fields: [{ path: ['brandId'], source: 'body' }],
        });
      }
      const existing = await mediaRepository.findActiveBySha(this.db, input.organizationId, spooled.sha256);
      if (existing) return { row: existing, created: false };

      const id = newId('med');
      const storageKey = `${input.organizationId}/${id}.${facts.extension}`;
      await this.store.putFile(storageKey, path, { contentType: facts.mimeType });
      const extra = Object.fromEntries(Object.entries(input.extra()).filter(([, v]) => v !== undefined && v !== null));
      const row = await this.db
        .transaction()
        .execute(async (tx) => {
          const inserted = await mediaRepository.insertUnlessDuplicate(tx, {
            id,
            organizationId: input.organizationId,
            brandId,
            kind: facts.kind,
            mimeType: facts.mimeType,
            sha256: spooled.sha256,
            bytes: spooled.bytes,
            storageBackend: this.store.backend,
            storageKey,
            metadata: { ...facts.metadata, ...extra },
            at: this.now(),
          });
          if (inserted && this.onCreated) await this.onCreated(tx, inserted);
          return inserted;
        })
        .catch(async (error: unknown) => {
          // never leave bytes without a row
          await this.store.delete(storageKey).catch(() => undefined);
          throw error;
        });
      if (row) return { row, created: true };
      // Lost a race with an identical upload: keep theirs, drop our copy.
      await this.store.delete(storageKey);
      const winner = await mediaRepository.findActiveBySha(this.db, input.organizationId, spooled.sha256);
      if (!winner) throw new AppError('internal_server_error');
      return { row: winner, created: false };
    } finally {
      await rm(path, { force: true });
    }
  }
}
