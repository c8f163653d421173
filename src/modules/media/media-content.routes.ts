/**
 * GET /v1/media/{id}/content: the bytes with the sniffed Content-Type, a strong ETag, single-range
 * support and long cache headers. Two ways in: a bearer credential with media:read (the item must be
 * in its organization), or a signed expiring URL (the item's publicUrl) without any credential. The
 * route therefore does not declare `auth` and checks the credential itself.
 */
import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorResponses, PUBLIC_AUTH_ERRORS } from '../../http/shared-schemas.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { MediaContentQuery, MediaParams } from './media.schemas.js';
import type { MediaService } from './media.service.js';
import { decideRange, etagOf, notModified, rangeApplies } from './media-content.js';
import { ALLOWED_MEDIA_TYPES } from './media-probe.js';
import type { MediaUrlSigner } from './media-signed-url.js';

const YEAR_SECONDS = 31_536_000;

/** The answer is the stored bytes, never JSON: one entry per media type the library accepts. */
const rawBytes = Object.fromEntries(
  Object.keys(ALLOWED_MEDIA_TYPES).map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
);

/** What the content route takes of the area's module: the library and the signed URLs' verifier. */
export interface MediaContentServices {
  media: MediaService;
  signer: MediaUrlSigner;
}

export function registerMediaContentRoute(root: FastifyInstance, clock: Clock, module: MediaContentServices): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  /** The organization whose item may be served, and how long a cache may keep it. */
  async function authorize(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    query: { org?: string; expires?: string; signature?: string },
  ) {
    const nowMs = clock.now().getTime();
    if (query.signature !== undefined || query.expires !== undefined || query.org !== undefined) {
      const verdict = query.org ? module.signer.verify(query.org, id, query.expires, query.signature, nowMs) : 'invalid';
      if (verdict !== 'valid') {
        throw new AppError('public_api_token_forbidden', {
          message:
            verdict === 'expired'
              ? 'The signed media URL has expired; read the item again for a fresh publicUrl.'
              : 'The media URL signature is not valid.',
        });
      }
      const ttl = Math.min(YEAR_SECONDS, Math.max(0, Math.floor(Number(query.expires) - nowMs / 1000)));
      return { organizationId: query.org as string, cacheControl: `public, max-age=${ttl}, immutable` };
    }
    // the public API's own checks: gate, origin, bearer, scope and the shared rate limit
    const principal = await root.authorizePublic(request, reply, 'media:read');
    return { organizationId: principal.organizationId, cacheControl: `private, max-age=${YEAR_SECONDS}, immutable` };
  }

  app.get(
    '/v1/media/:mediaLibraryItemId/content',
    {
      config: { validationCode: 'invalid_public_media_query' },
      schema: {
        operationId: 'getMediaContent',
        // decided at run time (a signed URL needs no credential), so not in the route's auth config
        'x-scope': 'media:read',
        tags: ['Media'],
        summary: 'Media bytes (Range, ETag); unauthenticated only through the signed publicUrl',
        description:
          'Signed URL: `?org={organizationId}&expires={unix seconds}&signature={HMAC-SHA256, base64url}`, as found in publicUrl. Without a signature a bearer credential with media:read is required. Supports a single `Range: bytes=` range (206, or 416 media_range_not_satisfiable), If-None-Match (304) and If-Range.',
        security: [{ publicBearer: [] }, {}],
        params: MediaParams,
        querystring: MediaContentQuery,
        response: {
          200: { description: 'the media bytes, with the Content-Type decided at upload', content: rawBytes },
          206: { description: 'the requested byte range', content: rawBytes },
          304: { type: 'null', description: 'not modified (If-None-Match matched the ETag)' },
          ...errorResponses('media_library_item_not_found', 'media_range_not_satisfiable', ...PUBLIC_AUTH_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const id = request.params.mediaLibraryItemId;
      const access = await authorize(request, reply, id, request.query);
      const row = await module.media.getRow(access.organizationId, id);
      if (row.lifecycle_state !== 'active') throw new AppError('media_library_item_not_found');
      const etag = etagOf(row.sha256);
      reply.headers({
        etag,
        'accept-ranges': 'bytes',
        'cache-control': access.cacheControl,
        'x-content-type-options': 'nosniff',
        'content-disposition': 'inline',
      });
      if (notModified(request.headers['if-none-match'], etag)) return reply.code(304).send();
      const ifRange = [request.headers['if-range']].flat()[0];
      const decision = rangeApplies(ifRange, etag) ? decideRange(request.headers.range, row.bytes) : { kind: 'full' as const };
      if (decision.kind === 'unsatisfiable') {
        throw new AppError('media_range_not_satisfiable', {
          message: `The range ${request.headers.range} is outside the ${row.bytes} bytes of the content.`,
          headers: { 'content-range': `bytes */${row.bytes}` },
        });
      }
      const range = decision.kind === 'partial' ? { start: decision.start, end: decision.end } : undefined;
      if (request.method === 'HEAD') {
        // headers only: an empty stream keeps our Content-Length (Fastify's HEAD handling would drain a real one)
        const length = range ? range.end - range.start + 1 : row.bytes;
        reply.headers({ 'content-type': row.mime_type, 'content-length': String(length) });
        if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${row.bytes}`);
        return reply.send(Readable.from([]));
      }
      const stored = await module.media.content(row, range);
      reply.header('content-type', row.mime_type);
      reply.header('content-length', String(stored.range.end - stored.range.start + 1));
      if (range) {
        reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${stored.size}`);
      }
      return reply.send(stored.body);
    },
  );
}
