/**
 * Media of a publish plan: resolves library items of the organization (the facts the probe recorded,
 * read through the media library's port) and client-given MediaInput, and at publish time turns them
 * into what adapters need — a public URL (the store's, else a signed one of our content route) and a
 * byte stream for platforms that take uploads.
 */
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import type { PublishMediaItem } from '../../providers/provider.js';
import type { Executor } from '../database.js';
import type { MediaReadPort } from '../media/media.module.js';
import type { PlanIssue, PlanMedia } from './plan-validation.js';
import type { StoredMedia } from './publishing.tables.js';

export interface MediaInputT {
  mediaLibraryItemId?: string;
  kind: 'image' | 'video' | 'gif';
  url: string;
  mimeType?: string;
  bytes?: number;
  fileSizeBytes?: number;
  durationSeconds?: number;
  thumbnailUrl?: string;
  altText?: string;
  metadata?: Record<string, unknown>;
  [k: string]: unknown;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export class MediaAccess {
  constructor(
    private readonly library: MediaReadPort,
    private readonly client: GuardedHttpClient,
  ) {}

  /** Plan media in order: `media[]` first, then `mediaLibraryItemIds[]`; unknown ids become issues. */
  async resolve(
    db: Executor,
    organizationId: string,
    inputs: MediaInputT[],
    libraryIds: string[],
  ): Promise<{ media: PlanMedia[]; issues: PlanIssue[] }> {
    // most plans carry no media (a batch resolves each of its items' plans)
    if (inputs.length === 0 && libraryIds.length === 0) return { media: [], issues: [] };
    const ids = [...new Set([...inputs.map((m) => m.mediaLibraryItemId).filter((x): x is string => !!x), ...libraryIds])];
    const byId = await this.library.getForPublishing(db, organizationId, ids);
    const issues: PlanIssue[] = [];
    const media: PlanMedia[] = [];
    const fromLibrary = (id: string, path: string[], altText: string | null): PlanMedia | null => {
      const row = byId.get(id);
      if (!row?.active) {
        issues.push({
          targetIndex: null,
          channelAccountId: null,
          path,
          code: row ? 'media_not_available' : 'media_library_item_not_found',
          severity: 'blocking',
          message: row ? `Media item ${id} is being deleted.` : `No media library item ${id} in the organization.`,
        });
        return null;
      }
      const md = row.metadata;
      return {
        mediaLibraryItemId: row.id,
        kind: row.kind,
        url: row.url,
        mimeType: row.mimeType,
        bytes: row.bytes,
        durationSeconds: num(md.durationSeconds),
        width: num(md.width),
        height: num(md.height),
        // the plan's own alt text, else the library item's
        altText: altText ?? (typeof md.altText === 'string' && md.altText ? md.altText : null),
        metadata: md,
        path,
      };
    };
    inputs.forEach((m, i) => {
      const path = ['media', String(i)];
      if (m.mediaLibraryItemId) {
        const item = fromLibrary(m.mediaLibraryItemId, [...path, 'mediaLibraryItemId'], m.altText ?? null);
        if (item) media.push({ ...item, path });
        return;
      }
      const md = m.metadata ?? {};
      media.push({
        mediaLibraryItemId: null,
        kind: m.kind,
        url: m.url,
        mimeType: m.mimeType ?? null,
        bytes: num(m.bytes) ?? num(m.fileSizeBytes),
        durationSeconds: num(m.durationSeconds) ?? num(md.durationSeconds),
        width: num(md.width),
        height: num(md.height),
        altText: m.altText ?? null,
        metadata: {
          ...md,
          ...(m.thumbnailUrl ? { thumbnailUrl: m.thumbnailUrl } : {}),
        },
        path,
      });
    });
    libraryIds.forEach((id, j) => {
      const item = fromLibrary(id, ['mediaLibraryItemIds', String(j)], null);
      if (item) media.push(item);
    });
    return { media, issues };
  }

  /** What an adapter receives for one stored item, with a fresh signed URL for library items. */
  async forPublish(organizationId: string, items: StoredMedia[], db: Executor): Promise<PublishMediaItem[]> {
    if (items.length === 0) return [];
    const ids = items.map((m) => m.mediaLibraryItemId).filter((x): x is string => !!x);
    const library = await this.library.openForPublishing(db, organizationId, ids);
    return items.map((m) => {
      const item = m.mediaLibraryItemId ? library.get(m.mediaLibraryItemId) : undefined;
      if (m.mediaLibraryItemId && !item) throw new Error(`media item ${m.mediaLibraryItemId} is no longer available`);
      const url = item ? item.url : m.url;
      return {
        kind: m.kind,
        mimeType: m.mimeType ?? (m.kind === 'video' ? 'video/mp4' : m.kind === 'gif' ? 'image/gif' : 'image/jpeg'),
        bytes: m.bytes ?? 0,
        url,
        ...(m.durationSeconds !== null ? { durationSeconds: m.durationSeconds } : {}),
        ...(m.width !== null ? { width: m.width } : {}),
        ...(m.height !== null ? { height: m.height } : {}),
        ...(m.altText ? { altText: m.altText } : {}),
        open: async () => {
          if (item) return item.open();
          const res = await this.client.get(m.url);
          if (res.status !== 200) {
            await res.discard();
            throw new Error(`media ${m.url} answered ${res.status}`);
          }
          return res.body;
        },
      };
    });
  }
}

export const toStored = (m: PlanMedia): StoredMedia => {
  const { path: _path, ...rest } = m;
  return rest;
};
