/**
 * What other areas (publishing) may ask of the media library: the facts of some items with a signed
 * content URL, and at publish time a fresh URL and the bytes of the active ones. Every read takes the
 * caller's executor.
 */
import type { MediaStore } from '../../platform/media-store/media-store.js';
import type { Executor } from '../database.js';
import { mediaRepository } from './media.repository.js';
import type { MediaUrlSigner } from './media-signed-url.js';

interface MediaFacts {
  id: string;
  kind: 'image' | 'video' | 'gif';
  mimeType: string;
  bytes: number;
  metadata: Record<string, unknown>;
  /** false while the item is being deleted */
  active: boolean;
  /** a signed URL of the item's content route */
  url: string;
}

interface MediaForPublish {
  /** the store's public URL of the bytes, else a fresh signed URL of the content route */
  url: string;
  /** the stored bytes (throws when they are missing) */
  open(): Promise<AsyncIterable<Uint8Array>>;
}

export interface MediaReadPort {
  /** The organization's items among `ids` (unknown ids are absent). */
  getForPublishing(db: Executor, organizationId: string, ids: string[]): Promise<Map<string, MediaFacts>>;
  /** The organization's active items among `ids`, ready to hand to a platform (others are absent). */
  openForPublishing(db: Executor, organizationId: string, ids: string[]): Promise<Map<string, MediaForPublish>>;
}

export function mediaReadPort(deps: { signer: MediaUrlSigner; store: MediaStore; now: () => Date }): MediaReadPort {
  const { signer, store } = deps;
  return {
    async getForPublishing(db, organizationId, ids) {
      const now = deps.now().getTime();
      const out = new Map<string, MediaFacts>();
      for (const row of await mediaRepository.many(db, organizationId, ids))
        out.set(row.id, {
          id: row.id,
          kind: row.kind,
          mimeType: row.mime_type,
          bytes: row.bytes,
          metadata: (row.metadata ?? {}) as Record<string, unknown>,
          active: row.lifecycle_state === 'active',
          url: signer.sign(organizationId, row.id, now).url,
        });
      return out;
    },

    async openForPublishing(db, organizationId, ids) {
      const keys = await mediaRepository.activeKeys(db, organizationId, ids);
      const now = deps.now().getTime();
      const out = new Map<string, MediaForPublish>();
      for (const [id, key] of keys)
        out.set(id, {
          url: store.publicUrl(key) ?? signer.sign(organizationId, id, now).url,
          open: async () => {
            const obj = await store.get(key);
            if (!obj) throw new Error(`media bytes of ${id} are missing`);
            return obj.body as AsyncIterable<Uint8Array>;
          },
        });
      return out;
    },
  };
}
