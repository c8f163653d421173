/**
 * Media endpoints of the X simulator: POST /2/media/upload with the INIT / APPEND / FINALIZE commands
 * (multipart/form-data), GET /2/media/upload?command=STATUS for async processing of videos and GIFs, and
 * POST /2/media/metadata for alt text.
 */
import type { FastifyInstance } from 'fastify';
import { authorize, invalidRequest, type MultipartFields, simulate, type XSimContext } from './x-http.js';
import { nextId, type XSimMedia } from './x-state.js';

const MB = 1024 * 1024;
const CATEGORIES: Record<string, { maxBytes: number; types: string[]; keyPrefix: string; async: boolean }> = {
  tweet_image: {
    maxBytes: 5 * MB,
    types: ['image/jpeg', 'image/png', 'image/webp'],
    keyPrefix: '3',
    async: false,
  },
  tweet_gif: {
    maxBytes: 15 * MB,
    types: ['image/gif'],
    keyPrefix: '16',
    async: true,
  },
  tweet_video: {
    maxBytes: 512 * MB,
    types: ['video/mp4', 'video/quicktime'],
    keyPrefix: '7',
    async: true,
  },
};

function processingInfo(m: XSimMedia) {
  if (m.failure && m.readyAt <= Date.now()) {
    return {
      state: 'failed',
      progress_percent: 100,
      error: { code: 1, name: m.failure.name, message: m.failure.message },
    };
  }
  if (m.readyAt <= Date.now()) return { state: 'succeeded', progress_percent: 100 };
  return { state: 'in_progress', check_after_secs: 1, progress_percent: 50 };
}

export function registerXMediaRoutes(app: FastifyInstance, ctx: XSimContext): void {
  const { state } = ctx;

  function ownedMedia(userId: string, id: string | undefined): XSimMedia {
    const m = state.media.get(id ?? '');
    if (!m || m.ownerId !== userId) throw invalidRequest('Invalid media_id.', 'media_id');
    return m;
  }

  app.post(
    '/2/media/upload',
    simulate(ctx, 'media_upload', (req) => {
      const token = authorize(ctx, req, ['media.write'], 'media_upload', 50_000);
      const form = (req.body ?? { fields: {}, files: {} }) as MultipartFields;
      const f = form.fields ?? {};
      if (f.command === 'INIT') {
        const category = CATEGORIES[f.media_category ?? ''];
        if (!category) throw invalidRequest('media_category must be tweet_image, tweet_gif or tweet_video.', 'media_category');
        if (!category.types.includes(f.media_type ?? ''))
          throw invalidRequest(`media_type ${f.media_type} is not supported.`, 'media_type');
        const total = Number(f.total_bytes);
        if (!Number.isInteger(total) || total <= 0 || total > category.maxBytes) {
          throw invalidRequest(`total_bytes must be between 1 and ${category.maxBytes} for ${f.media_category}.`, 'total_bytes');
        }
        const id = nextId();
        const media: XSimMedia = {
          id,
          mediaKey: `${category.keyPrefix}_${id}`,
          ownerId: token.userId,
          mediaType: f.media_type ?? '',
          category: f.media_category ?? '',
          totalBytes: total,
          segments: new Map(),
          finalized: false,
          readyAt: Number.POSITIVE_INFINITY,
          failure: null,
          altText: null,
        };
        state.media.set(id, media);
        return {
          status: 200,
          body: {
            data: { id, media_key: media.mediaKey, expires_after_secs: 86_400 },
          },
        };
      }
      if (f.command === 'APPEND') {
        const m = ownedMedia(token.userId, f.media_id);
        if (m.finalized) throw invalidRequest('The upload is already finalized.', 'media_id');
        const index = Number(f.segment_index);
        const chunk = form.files?.media;
        if (!Number.isInteger(index) || index < 0 || index > 999) throw invalidRequest('segment_index must be 0-999.', 'segment_index');
        if (!chunk || chunk.length === 0 || chunk.length > 5 * MB) throw invalidRequest('media must be 1 byte to 5 MB.', 'media');
        m.segments.set(index, chunk.length);
        return { status: 204 };
      }
      if (f.command === 'FINALIZE') {
        const m = ownedMedia(token.userId, f.media_id);
        const received = [...m.segments.values()].reduce((a, b) => a + b, 0);
        if (received !== m.totalBytes) {
          throw invalidRequest(`File size mismatch: received ${received} of ${m.totalBytes} bytes.`, 'media_id');
        }
        m.finalized = true;
        const asyncProcessing = CATEGORIES[m.category]?.async ?? false;
        m.readyAt = asyncProcessing ? Date.now() + state.mediaProcessingMs : Date.now();
        if (asyncProcessing) m.failure = state.takeMediaFailure();
        const data: Record<string, unknown> = {
          id: m.id,
          media_key: m.mediaKey,
          size: m.totalBytes,
          expires_after_secs: 86_400,
        };
        if (asyncProcessing) data.processing_info = { state: 'pending', check_after_secs: 1 };
        return { status: 200, body: { data } };
      }
      throw invalidRequest('command must be INIT, APPEND or FINALIZE.', 'command');
    }),
  );

  app.get(
    '/2/media/upload',
    simulate(ctx, 'media_status', (req) => {
      const token = authorize(ctx, req, ['media.write'], 'media_status', 50_000);
      const q = req.query as Record<string, string | undefined>;
      if (q.command !== 'STATUS') throw invalidRequest('command must be STATUS.', 'command');
      const m = ownedMedia(token.userId, q.media_id);
      if (!m.finalized) throw invalidRequest('The upload is not finalized.', 'media_id');
      return {
        status: 200,
        body: {
          data: {
            id: m.id,
            media_key: m.mediaKey,
            processing_info: processingInfo(m),
          },
        },
      };
    }),
  );

  app.post(
    '/2/media/metadata',
    simulate(ctx, 'media_metadata', (req) => {
      const token = authorize(ctx, req, ['media.write'], 'media_metadata', 50_000);
      const body = (req.body ?? {}) as {
        id?: string;
        metadata?: { alt_text?: { text?: string } };
      };
      const m = ownedMedia(token.userId, body.id);
      const alt = body.metadata?.alt_text?.text;
      if (typeof alt !== 'string' || alt.length > 1000) throw invalidRequest('alt_text.text must be at most 1000 characters.', 'metadata');
      m.altText = alt;
      return {
        status: 200,
        body: {
          data: {
            id: m.id,
            associated_metadata: true,
            alt_text: { text: alt },
          },
        },
      };
    }),
  );
}
