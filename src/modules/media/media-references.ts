/**
 * Whether something still needs a media item, so DELETE can refuse (409 media_item_in_use) instead of
 * pulling bytes out from under a scheduled publish. The media library does not know the publishing
 * tables; the publishing module registers a check here (e.g. "a scheduled or queued publish target
 * references this item") when it is loaded. Without registered checks nothing references media.
 */
import type { Executor } from '../../platform/db/database.js';

export interface MediaReference {
  /** what holds the reference, e.g. "publish_target" */
  kind: string;
  id: string;
}

export type MediaReferenceCheck = (db: Executor, organizationId: string, mediaLibraryItemId: string) => Promise<MediaReference[]>;

const checks = new Set<MediaReferenceCheck>();

/** Registers a check; returns a function that removes it (tests). */
export function registerMediaReferenceCheck(check: MediaReferenceCheck): () => void {
  checks.add(check);
  return () => checks.delete(check);
}

export async function findMediaReferences(db: Executor, organizationId: string, mediaLibraryItemId: string): Promise<MediaReference[]> {
  const found: MediaReference[] = [];
  for (const check of checks) found.push(...(await check(db, organizationId, mediaLibraryItemId)));
  return found;
}
