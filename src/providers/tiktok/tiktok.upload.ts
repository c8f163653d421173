/**
 * FILE_UPLOAD chunk plan and sequential chunk transfer, per the media transfer guide:
 * total_chunk_count = floor(video_size / chunk_size); every chunk is chunk_size bytes except the last, which
 * carries the trailing bytes (up to 128 MB); videos under 5 MB go as one chunk of their full size.
 * https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide
 */
import { ProviderError } from '../provider.js';
import type { TiktokClient } from './tiktok.client.js';
import { TIKTOK_CHUNK_LIMITS } from './tiktok.rules.js';

export interface ChunkPlan {
  videoSize: number;
  chunkSize: number;
  totalChunkCount: number;
}

export function planChunks(videoSize: number, preferredChunkBytes: number = TIKTOK_CHUNK_LIMITS.defaultChunkBytes): ChunkPlan {
  if (videoSize <= 0) {
    throw new ProviderError({
      platform: 'tiktok',
      category: 'user_content',
      message: 'video is empty',
      providerCode: 'invalid_file_upload',
    });
  }
  if (videoSize < TIKTOK_CHUNK_LIMITS.minChunkBytes) return { videoSize, chunkSize: videoSize, totalChunkCount: 1 };
  let chunkSize = Math.min(Math.max(preferredChunkBytes, TIKTOK_CHUNK_LIMITS.minChunkBytes), TIKTOK_CHUNK_LIMITS.maxChunkBytes);
  // keep within 1000 chunks for very large files
  while (Math.floor(videoSize / chunkSize) > TIKTOK_CHUNK_LIMITS.maxChunks && chunkSize < TIKTOK_CHUNK_LIMITS.maxChunkBytes) {
    chunkSize = Math.min(chunkSize * 2, TIKTOK_CHUNK_LIMITS.maxChunkBytes);
  }
  if (videoSize <= chunkSize) return { videoSize, chunkSize: videoSize, totalChunkCount: 1 };
  return {
    videoSize,
    chunkSize,
    totalChunkCount: Math.floor(videoSize / chunkSize),
  };
}

/** Streams the source and yields exactly the planned chunks (the last one absorbs the remainder). */
async function* planChunksFrom(source: AsyncIterable<Uint8Array>, plan: ChunkPlan): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let emitted = 0;
  for await (const piece of source) {
    pending.push(Buffer.from(piece));
    pendingBytes += piece.length;
    while (emitted < plan.totalChunkCount - 1 && pendingBytes >= plan.chunkSize) {
      const all = Buffer.concat(pending);
      yield all.subarray(0, plan.chunkSize);
      const rest = all.subarray(plan.chunkSize);
      pending = [rest];
      pendingBytes = rest.length;
      emitted += 1;
    }
  }
  const total = emitted * plan.chunkSize + pendingBytes;
  if (total !== plan.videoSize) {
    throw new ProviderError({
      platform: 'tiktok',
      category: 'user_content',
      message: `video stream has ${total} bytes, expected ${plan.videoSize}`,
      providerCode: 'invalid_file_upload',
    });
  }
  yield Buffer.concat(pending);
}

export async function uploadVideoChunks(input: {
  client: TiktokClient;
  uploadUrl: string;
  plan: ChunkPlan;
  mimeType: string;
  source: AsyncIterable<Uint8Array>;
  signal?: AbortSignal;
}): Promise<void> {
  let offset = 0;
  let index = 0;
  for await (const chunk of planChunksFrom(input.source, input.plan)) {
    const final = index === input.plan.totalChunkCount - 1;
    await input.client.uploadChunk({
      uploadUrl: input.uploadUrl,
      bytes: chunk,
      first: offset,
      total: input.plan.videoSize,
      mimeType: input.mimeType,
      final,
      signal: input.signal,
    });
    offset += chunk.length;
    index += 1;
  }
}
