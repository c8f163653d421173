/**
 * Media library rules: uploads (JSON base64 or a stream), listing, reading, content access and the
 * delete lifecycle (active -> deleting -> removed by a job). No Fastify here.
 */

import { Readable } from 'node:stream';
import { decodeCursor, page } from '../../http/pagination.js';
import { AppError } from '../../platform/errors.js';
import type { EventOutbox } from '../../platform/events/outbox.js';
import type { MediaStores } from '../../platform/media-store/create-media-store.js';
import type { StoredObject } from '../../platform/media-store/media-store.js';
import { assertOwnOrganization } from '../../platform/organization-guard.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { Db } from '../database.js';
import { MEDIA_DELETE_JOB, mediaDeleteQueue } from './media.jobs.js';
import { type MediaRow, mediaRepository } from './media.repository.js';
import type { MediaLibraryItemT, MediaListQueryT, MediaUploadRequestT } from './media.schemas.js';
import type { MediaIngest } from './media-ingest.js';
import { findMediaReferences, type MediaReferenceChecks } from './media-references.js';
import type { MediaUrlSigner } from './media-signed-url.js';
import type { SpooledMedia } from './media-spool.js';

export interface MediaServiceDeps {
  db: Db;
  /** the brands area's read port (an item's brand must exist) */
  brands: BrandsReadPort;
  stores: MediaStores;
  ingest: MediaIngest;
  signer: MediaUrlSigner;
  jobs: JobQueue;
  now: () => Date;
  maxUploadBytes: number;
  /** largest file accepted as JSON base64 (<= maxUploadBytes) */
  maxJsonUploadBytes: number;
  uploadsEnabled: () => boolean;
  events?: EventOutbox;
  /** what other areas check before an item may be deleted (subscribed by the composition root) */
  references: MediaReferenceChecks;
}

const BASE64_LOOSE = /^[A-Za-z0-9+/_\-\r\n\t ]*={0,2}[\r\n\t ]*$/;

function invalidBase64(message = 'dataBase64 is not valid base64.'): AppError {
  return new AppError('invalid_public_media_upload_request', { message, fields: [{ path: ['dataBase64'], source: 'body' }] });
}

/**
 * Decodes raw base64 (standard or URL alphabet) or a `data:<type>;base64,` URL; the declared type is
 * ignored (the bytes decide). Node's decoder skips characters outside the alphabet, so the decoded
 * length tells whether anything was skipped: only then is the (slower) character check needed, to
 * tell line-wrapped base64 from garbage.
 */
function decodeDataBase64(value: string): Buffer {
  let start = 0;
  if (value.startsWith('data:')) {
    const comma = value.indexOf(',');
    if (comma < 0 || !/;base64$/i.test(value.slice(0, comma)))
      throw invalidBase64('A data URL must be base64 encoded (data:<type>;base64,<data>).');
    start = comma + 1;
  }
  const payload = start > 0 ? value.slice(start) : value;
  if (payload.length === 0) throw invalidBase64('dataBase64 is empty.');
  const decoded = Buffer.from(payload, 'base64');
  let padding = 0;
  for (let i = payload.length - 1; i >= 0 && payload[i] === '='; i--) padding++;
  const expected = Math.floor(((payload.length - padding) * 3) / 4);
  // a length of 4n+1 characters cannot be base64 even though the decoder accepts it
  if (decoded.length === expected && padding <= 2 && payload.length % 4 !== 1) return decoded;
  if (!BASE64_LOOSE.test(payload)) throw invalidBase64();
  const compact = payload.replace(/\s/g, '');
  const pad = compact.length - compact.replace(/=+$/, '').length;
  if (compact.length % 4 === 1 || pad > 2 || decoded.length !== Math.floor(((compact.length - pad) * 3) / 4)) throw invalidBase64();
  return decoded;
}

export class MediaService {
  constructor(private readonly deps: MediaServiceDeps) {}

  assertUploadsEnabled(): void {
    if (!this.deps.uploadsEnabled()) throw new AppError('media_upload_write_disabled');
  }

  async assertBrand(organizationId: string, brandId: string): Promise<void> {
    if (!(await this.deps.brands.brand(this.deps.db, organizationId, brandId))) {
      throw new AppError('brand_not_found', {
        message: `No brand ${brandId} in the principal organization.`,
        fields: [{ path: ['brandId'], source: 'body' }],
      });
    }
  }

  toItem(row: MediaRow): MediaLibraryItemT {
    const active = row.lifecycle_state === 'active';
    const publicUrl = active
      ? (this.deps.stores.for(row.storage_backend).publicUrl(row.storage_key) ??
        this.deps.signer.sign(row.organization_id, row.id, this.deps.now().getTime()).url)
      : null;
    return {
      mediaLibraryItemId: row.id,
      organizationId: row.organization_id,
      brandId: row.brand_id,
      kind: row.kind,
      mimeType: row.mime_type,
      publicUrl,
      contentAvailable: active,
      sha256: row.sha256,
      bytes: row.bytes,
      lifecycleState: row.lifecycle_state,
      metadata: row.metadata,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  async uploadJson(organizationId: string, body: MediaUploadRequestT): Promise<{ item: MediaLibraryItemT; created: boolean }> {
    this.assertUploadsEnabled();
    assertOwnOrganization(organizationId, body.organizationId);
    const bytes = decodeDataBase64(body.dataBase64);
    if (bytes.length > this.deps.maxJsonUploadBytes) {
      throw new AppError('media_file_too_large', {
        message:
          bytes.length > this.deps.maxUploadBytes
            ? `The file is larger than the maximum of ${this.deps.maxUploadBytes} bytes.`
            : `A JSON base64 upload may carry at most ${this.deps.maxJsonUploadBytes} bytes; send larger files (up to ${this.deps.maxUploadBytes} bytes) as multipart/form-data.`,
      });
    }
    return this.uploadStream(organizationId, Readable.from([bytes]), () => ({
      brandId: body.brandId ?? null,
      altText: body.altText ?? null,
      fileName: body.fileName,
    }));
  }

  /** Multipart and JSON uploads; `fields` is read after the bytes arrived. */
  async uploadStream(
    organizationId: string,
    source: AsyncIterable<Uint8Array> | Readable,
    fields: () => { brandId: string | null; altText: string | null; fileName?: string },
  ): Promise<{ item: MediaLibraryItemT; created: boolean }> {
    const { row, created } = await this.deps.ingest.ingest({
      organizationId,
      source,
      maxBytes: this.deps.maxUploadBytes,
      brandId: () => fields().brandId,
      extra: () => ({ altText: fields().altText, fileName: fields().fileName }),
    });
    return { item: this.toItem(row), created };
  }

  /** Multipart: the file was spooled while the remaining form fields were read. */
  async uploadSpooled(
    organizationId: string,
    spooled: SpooledMedia,
    fields: { brandId: string | null; altText: string | null; fileName?: string },
  ): Promise<{ item: MediaLibraryItemT; created: boolean }> {
    const { row, created } = await this.deps.ingest.ingestSpooled(spooled, {
      organizationId,
      brandId: () => fields.brandId,
      extra: () => ({ altText: fields.altText, fileName: fields.fileName }),
    });
    return { item: this.toItem(row), created };
  }

  async list(organizationId: string, query: MediaListQueryT) {
    const limit = query.limit ?? 50;
    const filters = { brandId: query.brandId, kind: query.kind };
    const afterId = decodeCursor(query.cursor, filters, 'invalid_public_media_query');
    const rows = await mediaRepository.list(this.deps.db, organizationId, { ...filters, afterId, limit });
    const { data, nextCursor } = page(rows, limit, (r) => r.id, filters);
    return { data: data.map((r) => this.toItem(r)), nextCursor };
  }

  async getRow(organizationId: string, id: string): Promise<MediaRow> {
    const row = await mediaRepository.get(this.deps.db, organizationId, id);
    if (!row) throw new AppError('media_library_item_not_found');
    return row;
  }

  async get(organizationId: string, id: string): Promise<MediaLibraryItemT> {
    return this.toItem(await this.getRow(organizationId, id));
  }

  /** Marks the item deleting and enqueues the removal in the same transaction. */
  async delete(organizationId: string, id: string): Promise<MediaLibraryItemT> {
    await this.deps.jobs.ensureQueue(mediaDeleteQueue);
    const row = await this.deps.db.transaction().execute(async (tx) => {
      const current = await mediaRepository.get(tx, organizationId, id);
      if (!current) throw new AppError('media_library_item_not_found');
      if (current.lifecycle_state === 'deleting') return current;
      const references = await findMediaReferences(this.deps.references, tx, organizationId, id);
      if (references.length > 0) {
        throw new AppError('media_item_in_use', {
          message: `The media item is referenced by ${references.length} scheduled publish target(s); cancel or change them first.`,
          details: { references },
        });
      }
      const marked = await mediaRepository.markDeleting(tx, organizationId, id, this.deps.now());
      if (!marked) throw new AppError('media_library_item_not_found');
      await this.deps.events?.record(tx, { organizationId, type: 'media.deleted', data: this.toItem(marked) });
      await this.deps.jobs.send(MEDIA_DELETE_JOB, { organizationId, mediaLibraryItemId: id }, { tx, retryLimit: 5, retryBackoff: true });
      return marked;
    });
    return this.toItem(row);
  }

  /** The stored bytes of an active item (optionally a range); 404 when gone or being deleted. */
  async content(row: MediaRow, range?: { start: number; end: number }): Promise<StoredObject> {
    if (row.lifecycle_state !== 'active') throw new AppError('media_library_item_not_found');
    const stored = await this.deps.stores.for(row.storage_backend).get(row.storage_key, range);
    if (!stored) throw new AppError('media_library_item_not_found', { message: 'The media content is no longer available.' });
    return stored;
  }
}
