/**
 * Reads a multipart/form-data upload: the `file` part is streamed straight into a spool file (cut at
 * the maximum, never buffered whole); the `brandId` and `altText` fields may come before or after it.
 */
import { rm } from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import { isStorableText, unstorableTextError } from '../../http/input-guards.js';
import { multipartParts } from '../../http/multipart.js';
import { AppError } from '../../platform/errors.js';
import type { MediaIngest } from './media-ingest.js';
import { type SpooledMedia, STREAM_BUFFER_BYTES } from './media-spool.js';

export interface MultipartFields {
  brandId: string | null;
  altText: string | null;
  fileName?: string;
}

/** Stops at the limit: the answer closes the connection instead of reading the rest of the upload. */
function tooLarge(max: number): AppError {
  return new AppError('media_file_too_large', {
    message: `The file is larger than the maximum of ${max} bytes.`,
    headers: { connection: 'close' },
  });
}

function mapMultipartError(error: unknown, max: number): unknown {
  if (error instanceof AppError) return error.code === 'media_file_too_large' ? tooLarge(max) : error;
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(max);
  if (
    code?.startsWith('FST_') ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    /multipart|boundary|unexpected end of form|malformed/i.test(message ?? '')
  ) {
    return new AppError('invalid_multipart_media_upload', { message: `The multipart body cannot be read: ${message ?? 'malformed'}.` });
  }
  return error;
}

/** What reading an upload takes of the area's module: its spool and its size limit. */
export interface MultipartUploadServices {
  ingest: MediaIngest;
  maxUploadBytes: number;
}

export async function readMultipartUpload(
  request: FastifyRequest,
  module: MultipartUploadServices,
): Promise<{ spooled: SpooledMedia; fields: MultipartFields }> {
  const max = module.maxUploadBytes;
  const fields: MultipartFields = { brandId: null, altText: null };
  let spooled: SpooledMedia | null = null;
  try {
    // busboy's own limit sits one byte above ours so the spool meter sees the excess byte and stops
    // reading at once (busboy alone would keep parsing and discarding to the end of the body)
    // larger buffers than the 16 KiB defaults: fewer pause/resume round trips per megabyte
    const parts = multipartParts(request, {
      limits: { fileSize: max + 1, files: 2, fields: 10, fieldSize: 8192, parts: 12 },
      highWaterMark: STREAM_BUFFER_BYTES,
      fileHwm: STREAM_BUFFER_BYTES,
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || spooled) {
          part.file.resume(); // drain parts we do not keep
          continue;
        }
        // busboy destroys the stream of a part cut short by a malformed body before we see it; piping a
        // destroyed stream would wait forever
        if (part.file.destroyed)
          throw new AppError('invalid_multipart_media_upload', { message: 'The multipart body ended inside the file part.' });
        spooled = await module.ingest.spool(part.file, max);
        if (part.file.truncated) throw tooLarge(max);
        if (part.filename && isStorableText(part.filename)) fields.fileName = part.filename.slice(0, 255);
      } else if ((part.fieldname === 'brandId' || part.fieldname === 'altText') && !isStorableText(String(part.value ?? ''))) {
        throw unstorableTextError(request, 'body', [part.fieldname]);
      } else if (part.fieldname === 'brandId') {
        fields.brandId = String(part.value ?? '').trim() || null;
      } else if (part.fieldname === 'altText') {
        fields.altText = String(part.value ?? '').slice(0, 2000);
      }
    }
  } catch (error) {
    if (spooled) await rm(spooled.path, { force: true });
    throw mapMultipartError(error, max);
  }
  if (!spooled || spooled.bytes === 0) {
    if (spooled) await rm(spooled.path, { force: true });
    throw new AppError('multipart_media_file_required', { message: 'The multipart upload must carry a non-empty `file` field.' });
  }
  return { spooled, fields };
}
