/**
 * Media endpoints of the X simulator, as the X API v2 description has them: POST /2/media/upload (one-shot,
 * multipart media and media_category), the chunked POST /2/media/upload/initialize (JSON), /{id}/append
 * (multipart segment_index and media) and /{id}/finalize, GET /2/media/upload?media_id= for the processing
 * of videos and GIFs, and POST /2/media/metadata for alt text. All uploads count as operation media_upload.
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

function newMedia(ownerId: string, category: string, mediaType: string, totalBytes: number): XSimMedia {
  const id = nextId();
  return {
    id,
    mediaKey: `${CATEGORIES[category]?.keyPrefix ?? '3'}_${id}`,
    ownerId,
    mediaType,
    category,
    totalBytes,
    segments: new Map(),
    finalized: false,
    readyAt: Number.POSITIVE_INFINITY,
    failure: null,
    altText: null,
  };
}

export function registerXMediaRoutes(app: FastifyInstance, ctx: XSimContext): void {
  const { state } = ctx;

  function ownedMedia(userId: string, id: string | undefined): XSimMedia {
    const m = state.media.get(id ?? '');
    if (!m || m.ownerId !== userId) throw invalidRequest('Invalid media_id.', 'media_id');
    return m;
  }

  /** Ends an upload: the bytes are all there; videos and GIFs then process for a while (or fail). */
  function finalize(m: XSimMedia) {
    m.finalized = true;
    const asyncProcessing = CATEGORIES[m.category]?.async ?? false;
    m.readyAt = asyncProcessing ? Date.now() + state.mediaProcessingMs : Date.now();
    if (asyncProcessing) m.failure = state.takeMediaFailure();
    const data: Record<string, unknown> = { id: m.id, media_key: m.mediaKey, size: m.totalBytes, expires_after_secs: 86_400 };
    if (asyncProcessing) data.processing_info = { state: 'pending', check_after_secs: 1 };
    return { status: 200, body: { data } };
  }

  function category(name: string | undefined) {
    const c = CATEGORIES[name ?? ''];
    if (!c) throw invalidRequest('media_category must be tweet_image, tweet_gif or tweet_video.', 'media_category');
    return c;
  }

  // one-shot upload (multipart: media, media_category)
  app.post(
    '/2/media/upload',
    simulate(ctx, 'media_upload', (req) => {
      const token = authorize(ctx, req, ['media.write'], 'media_upload', 50_000);
      const form = req.body as MultipartFields;
      const c = category(form.fields.media_category);
      const media = form.files.media;
      if (!media || media.length === 0 || media.length > c.maxBytes) {
        throw invalidRequest(`media must be 1 byte to ${c.maxBytes} bytes for ${form.fields.media_category}.`, 'media');
      }
      const m = newMedia(token.userId, form.fields.media_category ?? '', '', media.length);
      m.segments.set(0, media.length);
      state.media.set(m.id, m);
      return finalize(m);
    }),
  );

  // chunked upload: initialize (JSON), append (multipart: segment_index, media), finalize
  app.post(
    '/2/media/upload/initialize',
    simulate(ctx, 'media_upload', (req) => {
      const token = authorize(ctx, req, ['media.write'], 'media_upload', 50_000);
      const f = req.body as { media_type?: string; total_bytes?: number; media_category?: string };
      const c = category(f.media_category);
      if (!c.types.includes(f.media_type ?? '')) throw invalidRequest(`media_type ${f.media_type} is not supported.`, 'media_type');
      const total = Number(f.total_bytes);
      if (!Number.isInteger(total) || total <= 0 || total > c.maxBytes) {
        throw invalidRequest(`total_bytes must be between 1 and ${c.maxBytes} for ${f.media_category}.`, 'total_bytes');
      }
      const m = newMedia(token.userId, f.media_category ?? '', f.media_type ?? '', total);
      state.media.set(m.id, m);
      return { status: 200, body: { data: { id: m.id, media_key: m.mediaKey, expires_after_secs: 86_400 } } };
    }),
  );

  app.post(
    '/2/media/upload/:id/append',
    simulate(ctx, 'media_upload', (req) => {
      const token = authorize(ctx, req, ['media.write'], 'media_upload', 50_000);
      const m = ownedMedia(token.userId, (req.params as { id: string }).id);
      if (m.finalized) throw invalidRequest('The upload is already finalized.', 'id');
      const form = req.body as MultipartFields;
      const index = Number(form.fields.segment_index);
      const chunk = form.files.media;
      if (!Number.isInteger(index) || index < 0 || index > 999) throw invalidRequest('segment_index must be 0-999.', 'segment_index');
      if (!chunk || chunk.length === 0 || chunk.length > 5 * MB) throw invalidRequest('media must be 1 byte to 5 MB.', 'media');
      m.segments.set(index, chunk.length);
      return { status: 200, body: { data: { expires_at: Math.floor(Date.now() / 1000) + 86_400 } } };
    }),
  );

  app.post(
    '/2/media/upload/:id/finalize',
    simulate(ctx, 'media_upload', (req) => {
      const token = authorize(ctx, req, ['media.write'], 'media_upload', 50_000);
      const m = ownedMedia(token.userId, (req.params as { id: string }).id);
      const received = [...m.segments.values()].reduce((a, b) => a + b, 0);
      if (received !== m.totalBytes) throw invalidRequest(`File size mismatch: received ${received} of ${m.totalBytes} bytes.`, 'id');
      return finalize(m);
    }),
  );

  app.get(
    '/2/media/upload',
    simulate(ctx, 'media_status', (req) => {
      const token = authorize(ctx, req, ['media.write'], 'media_status', 50_000);
      const q = req.query as Record<string, string | undefined>;
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
            associated_metadata: { alt_text: { text: alt } },
          },
        },
      };
    }),
  );
}
