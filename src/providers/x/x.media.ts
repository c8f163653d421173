/**
 * X chunked media upload on POST /2/media/upload (multipart/form-data commands INIT, APPEND, FINALIZE;
 * GET with command=STATUS while processing_info says so), and alt text via POST /2/media/metadata.
 * https://docs.x.com/x-api/media/quickstart/media-upload-chunked
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

async function command(client: XClient, token: string, fields: Record<string, string>, media?: Buffer, signal?: AbortSignal) {
  const { body, contentType } = multipartBody(fields, media);
  return client.send<XMediaAnswer | null>({
    method: 'POST',
    url: client.uploadUrl('/2/media/upload'),
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
    idempotent: true,
    signal,
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

export async function uploadMedia(client: XClient, token: string, item: PublishMediaItem, signal?: AbortSignal): Promise<UploadedMedia> {
  const init = await command(
    client,
    token,
    {
      command: 'INIT',
      media_type: item.mimeType,
      total_bytes: String(item.bytes),
      media_category: CATEGORY[item.kind] ?? 'tweet_image',
    },
    undefined,
    signal,
  );
  const mediaId = init?.data?.id;
  if (!mediaId) {
    throw new ProviderError({
      platform: 'x',
      category: 'transient',
      message: 'media INIT answered without an id',
      providerResponse: init,
    });
  }
  let index = 0;
  let sent = 0;
  for await (const segment of segments(await item.open(), X_MEDIA_LIMITS.appendChunkBytes)) {
    await command(client, token, { command: 'APPEND', media_id: mediaId, segment_index: String(index) }, segment, signal);
    index += 1;
    sent += segment.length;
  }
  if (sent !== item.bytes) {
    throw new ProviderError({
      platform: 'x',
      category: 'user_content',
      message: `media stream has ${sent} bytes, expected ${item.bytes}`,
      providerCode: 'media_size_mismatch',
    });
  }
  const fin = await command(client, token, { command: 'FINALIZE', media_id: mediaId }, undefined, signal);
  const processing = fin?.data?.processing_info ?? null;
  if (processing?.state === 'failed') throw mediaFailed(mediaId, processing);
  if (item.altText && item.kind !== 'video') {
    await client.send({
      method: 'POST',
      url: client.apiUrl('/2/media/metadata'),
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

export async function mediaStatus(client: XClient, token: string, mediaId: string, signal?: AbortSignal): Promise<XProcessingInfo | null> {
  const url = new URL(client.uploadUrl('/2/media/upload'));
  url.searchParams.set('command', 'STATUS');
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
