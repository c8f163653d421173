/**
 * Media of a publish plan: resolves library items of the organization (with the facts the probe
 * recorded) and client-given MediaInput, and at publish time turns them into what adapters need — a
 * signed public URL of our content route and a byte stream for platforms that take uploads.
 */
import type { AppDeps } from '../../app-deps.js';
import type { Executor } from '../../platform/db/database.js';
import { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import type { MediaStore } from '../../platform/media-store/media-store.js';
import { loadEncryptionKey } from '../../platform/secrets/encryption.js';
import type { PublishMediaItem } from '../../providers/provider.js';
import { mediaStoreFromConfig } from '../media/media.module.js';
import { MediaUrlSigner } from '../media/media-signed-url.js';
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
  private readonly signer: MediaUrlSigner;
  private storeInstance: MediaStore | null = null;
  private readonly client: GuardedHttpClient;

  constructor(private readonly deps: AppDeps) {
    const env = deps.config.env;
    this.signer = new MediaUrlSigner(
      loadEncryptionKey(env.SERVICE_ENCRYPTION_KEY, deps.config.dataDir),
      deps.config.publicBaseUrl,
      env.SERVICE_MEDIA_SIGNED_URL_TTL_SECONDS,
    );
    this.client = new GuardedHttpClient({
      allowAddresses: [...deps.config.outboundAllowAddresses],
      environment: env.NODE_ENV,
    });
  }

  private get store(): MediaStore {
    this.storeInstance ??= mediaStoreFromConfig(this.deps);
    return this.storeInstance;
  }

  /** Plan media in order: `media[]` first, then `mediaLibraryItemIds[]`; unknown ids become issues. */
  async resolve(
    db: Executor,
    organizationId: string,
    inputs: MediaInputT[],
    libraryIds: string[],
  ): Promise<{ media: PlanMedia[]; issues: PlanIssue[] }> {
    const ids = [...new Set([...inputs.map((m) => m.mediaLibraryItemId).filter((x): x is string => !!x), ...libraryIds])];
    const rows = ids.length
      ? await db
          .selectFrom('media_library_items')
          .selectAll()
          .where('organization_id', '=', organizationId)
          .where('id', 'in', ids)
          .execute()
      : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const issues: PlanIssue[] = [];
    const media: PlanMedia[] = [];
    const fromLibrary = (id: string, path: string[], altText: string | null): PlanMedia | null => {
      const row = byId.get(id);
      if (row?.lifecycle_state !== 'active') {
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
      const md = (row.metadata ?? {}) as Record<string, unknown>;
      return {
        mediaLibraryItemId: row.id,
        kind: row.kind,
        url: this.signer.sign(organizationId, row.id, this.deps.clock.now().getTime()).url,
        mimeType: row.mime_type,
        bytes: Number(row.bytes),
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
    const ids = items.map((m) => m.mediaLibraryItemId).filter((x): x is string => !!x);
    const rows = ids.length
      ? await db
          .selectFrom('media_library_items')
          .select(['id', 'storage_key', 'lifecycle_state'])
          .where('organization_id', '=', organizationId)
          .where('id', 'in', ids)
          .execute()
      : [];
    const keys = new Map(rows.filter((r) => r.lifecycle_state === 'active').map((r) => [r.id, r.storage_key]));
    const now = this.deps.clock.now().getTime();
    return items.map((m) => {
      const key = m.mediaLibraryItemId ? keys.get(m.mediaLibraryItemId) : undefined;
      if (m.mediaLibraryItemId && !key) throw new Error(`media item ${m.mediaLibraryItemId} is no longer available`);
      const url = key ? (this.store.publicUrl(key) ?? this.signer.sign(organizationId, m.mediaLibraryItemId!, now).url) : m.url;
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
          if (key) {
            const obj = await this.store.get(key);
            if (!obj) throw new Error(`media bytes of ${m.mediaLibraryItemId} are missing`);
            return obj.body as AsyncIterable<Uint8Array>;
          }
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
