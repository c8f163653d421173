/** Kysely queries of the media library. Every query is confined to one organization. */

import type { Selectable } from 'kysely';
import { keysetPage } from '../../platform/db/keyset.js';
import type { Executor } from '../database.js';
import type { MediaLibraryItemsTable } from './media.tables.js';

export type MediaRow = Selectable<MediaLibraryItemsTable>;

export interface NewMediaRow {
  id: string;
  organizationId: string;
  brandId: string | null;
  kind: MediaLibraryItemsTable['kind'];
  mimeType: string;
  sha256: string;
  bytes: number;
  storageBackend: 'disk' | 's3';
  storageKey: string;
  metadata: Record<string, unknown>;
  at: Date;
}

/** bigint comes back as a string from some drivers; normalise here. */
function normalise(row: MediaRow): MediaRow {
  return { ...row, bytes: Number(row.bytes) };
}

/** Every column of the organization's library items, a query to narrow further. */
function itemsOf(db: Executor, organizationId: string) {
  return db.selectFrom('media_library_items').selectAll().where('organization_id', '=', organizationId);
}

export const mediaRepository = {
  /** Inserts unless an active item with the same bytes exists; returns null on that conflict. */
  async insertUnlessDuplicate(db: Executor, row: NewMediaRow): Promise<MediaRow | null> {
    const inserted = await db
      .insertInto('media_library_items')
      .values({
        id: row.id,
        organization_id: row.organizationId,
        brand_id: row.brandId,
        kind: row.kind,
        mime_type: row.mimeType,
        sha256: row.sha256,
        bytes: row.bytes,
        storage_backend: row.storageBackend,
        storage_key: row.storageKey,
        metadata: JSON.stringify(row.metadata),
        created_at: row.at,
        updated_at: row.at,
      })
      .onConflict((oc) => oc.columns(['organization_id', 'sha256']).where('lifecycle_state', '=', 'active').doNothing())
      .returningAll()
      .executeTakeFirst();
    return inserted ? normalise(inserted) : null;
  },

  async findActiveBySha(db: Executor, organizationId: string, sha256: string): Promise<MediaRow | null> {
    const row = await itemsOf(db, organizationId).where('sha256', '=', sha256).where('lifecycle_state', '=', 'active').executeTakeFirst();
    return row ? normalise(row) : null;
  },

  async get(db: Executor, organizationId: string, id: string): Promise<MediaRow | null> {
    const row = await itemsOf(db, organizationId).where('id', '=', id).executeTakeFirst();
    return row ? normalise(row) : null;
  },

  /** The organization's items among `ids` (unknown ids are absent). */
  async many(db: Executor, organizationId: string, ids: string[]): Promise<MediaRow[]> {
    if (ids.length === 0) return [];
    const rows = await itemsOf(db, organizationId).where('id', 'in', ids).execute();
    return rows.map(normalise);
  },

  /** Storage keys of the organization's active items among `ids`. */
  async activeKeys(db: Executor, organizationId: string, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom('media_library_items')
      .select(['id', 'storage_key', 'lifecycle_state'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
    return new Map(rows.filter((r) => r.lifecycle_state === 'active').map((r) => [r.id, r.storage_key]));
  },

  /** A page ordered by id (creation order), fetched with limit + 1. */
  async list(
    db: Executor,
    organizationId: string,
    q: { brandId?: string; kind?: MediaRow['kind']; afterId: string | null; limit: number },
  ): Promise<MediaRow[]> {
    let query = itemsOf(db, organizationId);
    if (q.brandId) query = query.where('brand_id', '=', q.brandId);
    if (q.kind) query = query.where('kind', '=', q.kind);
    const rows = await keysetPage(query, 'id', q.afterId, q.limit).execute();
    return rows.map(normalise);
  },

  /** active -> deleting; returns the row when this call made the change. */
  async markDeleting(db: Executor, organizationId: string, id: string, at: Date): Promise<MediaRow | null> {
    const row = await db
      .updateTable('media_library_items')
      .set({ lifecycle_state: 'deleting', updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('lifecycle_state', '=', 'active')
      .returningAll()
      .executeTakeFirst();
    return row ? normalise(row) : null;
  },

  async deleteRow(db: Executor, organizationId: string, id: string): Promise<void> {
    await db
      .deleteFrom('media_library_items')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('lifecycle_state', '=', 'deleting')
      .execute();
  },
};
