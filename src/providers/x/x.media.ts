/**
 * X media upload on the API v2 endpoints (contracts/x): an image in one request (POST /2/media/upload,
 * multipart `media` and `media_category`); a video or GIF in chunks (POST /2/media/upload/initialize,
 * /{id}/append, /{id}/finalize, then GET /2/media/upload?media_id= while processing_info says so); alt text
 * via POST /2/media/metadata. https://docs.x.com/x-api/media/quickstart/media-upload-chunked
 * Re-running any of these calls cannot create a second post, so they are all treated as idempotent.
 */
import { randomBytes } from 'node:crypto';
import { ProviderError, type PublishMediaItem } from '../provider.js';
import type { XClient } from './x.client.js';
import { X_MEDIA_LIMITS } from './x.rules.js';

export interface XProcessingInfo {
  state: 'pending' | 'in_progress' | 'succeeded' | 'failed';
  check_after_secs?: number;
  progress_percent?: number;
  error?: { code?: number; name?: string; message?: string };
}

interface XMediaAnswer {
  data?: {
    id?: string;
    media_key?: string;
    expires_after_secs?: number;
    processing_info?: XProcessingInfo;
  };
}

const CATEGORY: Record<string, string> = {
  image: 'tweet_image',
  gif: 'tweet_gif',
  video: 'tweet_video',
};

/** Builds a multipart/form-data body with text fields and an optional binary "media" part. */
export function multipartBody(fields: Record<string, string>, media?: Buffer): { body: Buffer; contentType: string } {
  const boundary = `----xupload${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (media) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="blob"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      media,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    body: Buffer.concat(parts),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** A multipart POST to an upload endpoint (the one-shot upload, a chunk's append). */
function postMultipart(client: XClient, token: string, path: string, fields: Record<string, string>, media: Buffer, signal?: AbortSignal) {
  const { body, contentType } = multipartBody(fields, media);
  return client.send<XMediaAnswer | null>({
    method: 'POST',
    url: client.uploadUrl(path),
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
    idempotent: true,
    signal,
  });
}

function missingId(step: string, answer: unknown): ProviderError {
  return new ProviderError({
    platform: 'x',
    category: 'transient',
    message: `media ${step} answered without an id`,
    providerResponse: answer,
  });
}

function sizeMismatch(sent: number, expected: number): ProviderError {
  return new ProviderError({
    platform: 'x',
    category: 'user_content',
    message: `media stream has ${sent} bytes, expected ${expected}`,
    providerCode: 'media_size_mismatch',
  });
}

/** Re-slices a byte stream into segments of at most `size` bytes. */
async function* segments(source: AsyncIterable<Uint8Array>, size: number): AsyncGenerator<Buffer> {
  let buffered = Buffer.alloc(0);
  for await (const piece of source) {
    buffered = Buffer.concat([buffered, Buffer.from(piece)]);
    while (buffered.length >= size) {
      yield buffered.subarray(0, size);
      buffered = buffered.subarray(size);
    }
  }
  if (buffered.length > 0) yield buffered;
}

export interface UploadedMedia {
  mediaId: string;
  processing: XProcessingInfo | null;
}

/**
 * One-shot upload of an image (at most 5 MB, so it is read whole): POST /2/media/upload with the `media`
 * file and its `media_category`. https://docs.x.com/x-api/media/media-upload
 */
async function uploadOneShot(client: XClient, token: string, item: PublishMediaItem, signal?: AbortSignal): Promise<string> {
  const pieces: Buffer[] = [];
  for await (const piece of await item.open()) pieces.push(Buffer.from(piece));
  const media = Buffer.concat(pieces);
  if (media.length !== item.bytes) throw sizeMismatch(media.length, item.bytes);
  const answer = await postMultipart(
    client,
    token,
    '/media/upload',
    { media_category: CATEGORY[item.kind] ?? 'tweet_image' },
    media,
    signal,
  );
  const id = answer?.data?.id;
  if (!id) throw missingId('upload', answer);
  return id;
}

/**
 * Chunked upload of a video or GIF: POST /2/media/upload/initialize (JSON), POST /2/media/upload/{id}/append
 * per segment (multipart: segment_index and the media chunk), POST /2/media/upload/{id}/finalize.
 * https://docs.x.com/x-api/media/quickstart/media-upload-chunked
 */
async function uploadChunked(client: XClient, token: string, item: PublishMediaItem, signal?: AbortSignal) {
  const init = await client.send<XMediaAnswer | null>({
    method: 'POST',
    url: client.uploadUrl('/media/upload/initialize'),
    headers: { authorization: `Bearer ${token}` },
    json: { media_type: item.mimeType, total_bytes: item.bytes, media_category: CATEGORY[item.kind] ?? 'tweet_video' },
    idempotent: true,
    signal,
  });
  const mediaId = init?.data?.id;
  if (!mediaId) throw missingId('initialize', init);
  const base = `/media/upload/${encodeURIComponent(mediaId)}`;
  let index = 0;
  let sent = 0;
  for await (const segment of segments(await item.open(), X_MEDIA_LIMITS.appendChunkBytes)) {
    await postMultipart(client, token, `${base}/append`, { segment_index: String(index) }, segment, signal);
    index += 1;
    sent += segment.length;
  }
  if (sent !== item.bytes) throw sizeMismatch(sent, item.bytes);
  const fin = await client.send<XMediaAnswer | null>({
    method: 'POST',
    url: client.uploadUrl(`${base}/finalize`),
    headers: { authorization: `Bearer ${token}` },
    idempotent: true,
    signal,
  });
  return { mediaId, processing: fin?.data?.processing_info ?? null };
}

/** Uploads one item (images in one request, videos and GIFs in chunks) and sets its alt text. */
export async function uploadMedia(client: XClient, token: string, item: PublishMediaItem, signal?: AbortSignal): Promise<UploadedMedia> {
  const { mediaId, processing } =
    item.kind === 'image'
      ? { mediaId: await uploadOneShot(client, token, item, signal), processing: null }
      : await uploadChunked(client, token, item, signal);
  if (processing?.state === 'failed') throw mediaFailed(mediaId, processing);
  if (item.altText && item.kind !== 'video') {
    await client.send({
      method: 'POST',
      url: client.apiUrl('/media/metadata'),
      headers: { authorization: `Bearer ${token}` },
      json: {
        id: mediaId,
        metadata: { alt_text: { text: item.altText.slice(0, 1000) } },
      },
      idempotent: true,
      signal,
    });
  }
  return {
    mediaId,
    processing: processing && processing.state !== 'succeeded' ? processing : null,
  };
}

/** GET /2/media/upload?media_id= while a video or GIF is processing. */
export async function mediaStatus(client: XClient, token: string, mediaId: string, signal?: AbortSignal): Promise<XProcessingInfo | null> {
  const url = new URL(client.uploadUrl('/media/upload'));
  url.searchParams.set('media_id', mediaId);
  const answer = await client.send<XMediaAnswer | null>({
    method: 'GET',
    url: url.toString(),
    headers: { authorization: `Bearer ${token}` },
    idempotent: true,
    signal,
  });
  return answer?.data?.processing_info ?? null;
}

export function mediaFailed(mediaId: string, info: XProcessingInfo): ProviderError {
  return new ProviderError({
    platform: 'x',
    category: 'user_content',
    message: `X could not process media ${mediaId}: ${info.error?.message ?? 'processing failed'}`,
    providerCode: info.error?.name ?? 'media_processing_failed',
    providerResponse: { processing_info: info },
  });
}
