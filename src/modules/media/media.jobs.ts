/**
 * Removal of deleted media: the job deletes the stored bytes first and the row second, so a crash in
 * between leaves a row in `deleting` that the retried job finishes (deleting missing bytes succeeds).
 */

import type { MediaStores } from '../../platform/media-store/create-media-store.js';
import { defineJob } from '../../platform/queue/job-queue.js';
import type { Db } from '../database.js';
import { mediaRepository } from './media.repository.js';

export const MEDIA_DELETE_JOB = 'media.delete';

export interface MediaDeleteData {
  organizationId: string;
  mediaLibraryItemId: string;
}

/** Queue options shared by the sender (ensureQueue) and the worker. */
export const mediaDeleteQueue = { name: MEDIA_DELETE_JOB, queue: { retryLimit: 5, retryBackoff: true }, handler: async () => undefined };

async function removeDeletedMedia(db: Db, stores: MediaStores, data: MediaDeleteData): Promise<'removed' | 'skipped'> {
  const row = await mediaRepository.get(db, data.organizationId, data.mediaLibraryItemId);
  if (row?.lifecycle_state !== 'deleting') return 'skipped';
  await stores.for(row.storage_backend).delete(row.storage_key);
  await mediaRepository.deleteRow(db, data.organizationId, data.mediaLibraryItemId);
  return 'removed';
}

export function mediaDeleteJob(db: Db, stores: MediaStores) {
  return defineJob<MediaDeleteData>({
    name: MEDIA_DELETE_JOB,
    queue: mediaDeleteQueue.queue,
    concurrency: 4,
    handler: async (data) => {
      await removeDeletedMedia(db, stores, data);
    },
  });
}
