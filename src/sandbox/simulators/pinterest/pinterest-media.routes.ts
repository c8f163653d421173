/**
 * Video upload of the simulator: POST /v5/media registers an upload and answers upload_url with
 * S3-style upload_parameters; the file is POSTed there as multipart/form-data (answer 204, errors in
 * S3's XML); GET /v5/media/{id} reports registered -> processing -> succeeded.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  beginAuthorized,
  beginOperation,
  dropConnection,
  PIN_ERRORS,
  type PinSimContext,
  publicBase,
  sendPinError,
} from './pinterest-http.js';
import type { PinterestSimulatorState } from './pinterest-state.js';

const MAX_VIDEO_BYTES = 512 * 1024 * 1024;
const SIGNING_KEY = randomBytes(32);

/** Splits a multipart/form-data body into named fields; the `file` part stays binary. */
function parseMultipart(body: Buffer, contentType: string): { fields: Record<string, string>; file: Buffer | null } {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const fields: Record<string, string> = {};
  let file: Buffer | null = null;
  const mark = boundary ? Buffer.from(`--${boundary[1] ?? boundary[2]}`) : null;
  if (!mark) return { fields, file };
  let start = body.indexOf(mark);
  while (start >= 0) {
    const partStart = start + mark.length + 2; // skip CRLF after the boundary
    const next = body.indexOf(mark, partStart);
    if (next < 0) break;
    const part = body.subarray(partStart, next - 2); // drop CRLF before the next boundary
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd >= 0) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      const name = /name="([^"]*)"/i.exec(headers)?.[1];
      const content = part.subarray(headerEnd + 4);
      if (name === 'file') file = content;
      else if (name) fields[name] = content.toString('utf8');
    }
    start = next;
  }
  return { fields, file };
}

function s3Error(reply: FastifyReply, status: number, code: string, message: string) {
  return reply
    .code(status)
    .type('application/xml')
    .send(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

export function registerPinterestMediaRoutes(app: FastifyInstance, state: PinterestSimulatorState, ctx: PinSimContext): void {
  app.post('/v5/media', async (request, reply) => {
    const started = await beginAuthorized(ctx, state, 'media_register', request, reply, ['pins:write']);
    if (!started) return reply;
    const { begun, token } = started;
    const body = (request.body ?? {}) as { media_type?: unknown };
    if (body.media_type !== 'video') {
      return sendPinError(reply, 400, PIN_ERRORS.invalidParameters, 'media_type must be "video".');
    }
    const mediaId = state.newMediaId();
    const key = `uploads/${mediaId.slice(0, 2)}/${mediaId}/video`;
    const signature = createHmac('sha256', SIGNING_KEY).update(key).digest('hex');
    state.media.set(mediaId, {
      ownerId: token.userId,
      status: 'registered',
      key,
      signature,
      readsUntilSucceeded: 0,
      bytes: 0,
    });
    const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
    const answer = {
      media_id: mediaId,
      media_type: 'video',
      upload_url: `${publicBase(request, app.prefix)}/media-upload/`,
      upload_parameters: {
        'x-amz-date': amzDate,
        'x-amz-signature': signature,
        'x-amz-security-token': randomBytes(24).toString('base64'),
        'x-amz-algorithm': 'AWS4-HMAC-SHA256',
        key,
        policy: Buffer.from(
          JSON.stringify({
            expiration: new Date(Date.now() + 3600_000).toISOString(),
          }),
        ).toString('base64'),
        'x-amz-credential': `SIMULATED/${amzDate.slice(0, 8)}/us-east-1/s3/aws4_request`,
        'Content-Type': 'multipart/form-data',
      },
    };
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.code(201).send(answer);
  });

  app.post('/media-upload/', { bodyLimit: MAX_VIDEO_BYTES }, async (request, reply) => {
    const begun = await beginOperation(ctx, 'media_upload', request, reply);
    if (begun === 'answered') return reply;
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const { fields, file } = parseMultipart(body, String(request.headers['content-type'] ?? ''));
    const media = [...state.media.values()].find((m) => m.key === fields.key);
    if (!media || fields['x-amz-signature'] !== media.signature) {
      return s3Error(reply, 403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed');
    }
    if (!file || file.length === 0) return s3Error(reply, 400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
    media.bytes = file.length;
    media.status = state.mediaProcessingReads > 0 ? 'processing' : 'succeeded';
    media.readsUntilSucceeded = state.mediaProcessingReads;
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.code(204).send();
  });

  app.get('/v5/media/:mediaId', async (request, reply) => {
    const started = await beginAuthorized(ctx, state, 'media_status', request, reply, ['pins:read', 'pins:write']);
    if (!started) return reply;
    const { begun, token } = started;
    const { mediaId } = request.params as { mediaId: string };
    const media = state.media.get(mediaId);
    if (!media || media.ownerId !== token.userId) return sendPinError(reply, 404, PIN_ERRORS.notFound, 'Media upload not found.');
    if (media.status === 'processing') {
      media.readsUntilSucceeded -= 1;
      if (media.readsUntilSucceeded < 0) media.status = 'succeeded';
    }
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.send({
      media_id: mediaId,
      media_type: 'video',
      status: media.status,
    });
  });
}
