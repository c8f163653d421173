/**
 * Whether something still needs a media item, so DELETE can refuse (409 media_item_in_use) instead of
 * pulling bytes out from under a scheduled publish. The media library does not know the publishing
 * tables; the composition root subscribes the publishing area's check (e.g. "a scheduled or queued
 * publish target references this item"). Without subscribed checks nothing references media.
 */

import type { Subscribers } from '../../platform/events/subscribers.js';
import type { Executor } from '../database.js';

export interface MediaReference {
  /** what holds the reference, e.g. "publish_target" */
  kind: string;
  id: string;
}

export type MediaReferenceCheck = (db: Executor, organizationId: string, mediaLibraryItemId: string) => Promise<MediaReference[]>;

export type MediaReferenceChecks = Subscribers<MediaReferenceCheck>;

export async function findMediaReferences(
  checks: MediaReferenceChecks,
  db: Executor,
  organizationId: string,
  mediaLibraryItemId: string,
): Promise<MediaReference[]> {
  const found: MediaReference[] = [];
  for (const check of checks.all()) found.push(...(await check(db, organizationId, mediaLibraryItemId)));
  return found;
}
