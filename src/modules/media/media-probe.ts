/**
 * Decides what a media file is from its bytes (never from a name or a client's MIME type) and records
 * the facts publishers check: dimensions, MP4 duration and codecs, GIF frame count.
 *
 * Type detection and image headers use the captured prefix; containers whose facts may sit anywhere
 * (MP4 `moov` at the end, GIF frames) are read from the stored file through a ByteReader.
 */
import { imageSize } from 'image-size';
import type { ByteReader } from './byte-reader.js';
import { countGifFrames } from './gif-frames.js';
import { readMp4Facts } from './mp4-boxes.js';

export type MediaKind = 'image' | 'video' | 'gif';

export const ALLOWED_MEDIA_TYPES = {
  'image/jpeg': { kind: 'image', extension: 'jpg' },
  'image/png': { kind: 'image', extension: 'png' },
  'image/gif': { kind: 'gif', extension: 'gif' },
  'image/webp': { kind: 'image', extension: 'webp' },
  'image/avif': { kind: 'image', extension: 'avif' },
  'video/mp4': { kind: 'video', extension: 'mp4' },
} as const satisfies Record<string, { kind: MediaKind; extension: string }>;

type AllowedMimeType = keyof typeof ALLOWED_MEDIA_TYPES;

interface MediaMetadata {
  width?: number;
  height?: number;
  durationSeconds?: number;
  codecs?: string[];
  videoCodec?: string;
  audioCodec?: string;
  frameCount?: number;
  animated?: boolean;
}

export interface MediaFacts {
  mimeType: AllowedMimeType;
  kind: MediaKind;
  extension: string;
  metadata: MediaMetadata;
}

export class MediaProbeError extends Error {
  override readonly name = 'MediaProbeError';
  constructor(
    readonly code: 'unsupported_type' | 'unreadable_media',
    message: string,
  ) {
    super(message);
  }
}

/** Images whose header does not fit in the prefix get one larger read, then give up. */
const IMAGE_HEADER_RETRY_BYTES = 4 * 1024 * 1024;

function isAllowed(mime: string): mime is AllowedMimeType {
  return Object.hasOwn(ALLOWED_MEDIA_TYPES, mime);
}

async function imageDimensions(prefix: Buffer, reader: ByteReader): Promise<{ width: number; height: number }> {
  for (const data of [prefix, null]) {
    const bytes = data ?? (reader.size > prefix.length ? await reader.read(0, IMAGE_HEADER_RETRY_BYTES) : null);
    if (!bytes) break;
    try {
      const size = imageSize(bytes);
      if (size.width && size.height) return { width: size.width, height: size.height };
    } catch {
      // try the larger read
    }
  }
  throw new MediaProbeError('unreadable_media', 'the image dimensions cannot be read');
}

export async function probeMedia(prefix: Buffer, reader: ByteReader): Promise<MediaFacts> {
  // file-type (and its tokenizers, ~1.7 MB of heap) loads with the first upload probed
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(prefix);
  if (!detected || !isAllowed(detected.mime)) {
    throw new MediaProbeError(
      'unsupported_type',
      `${detected ? `${detected.mime} is` : 'the data is'} not a supported media type (JPEG, PNG, GIF, WebP, AVIF, MP4)`,
    );
  }
  const { kind, extension } = ALLOWED_MEDIA_TYPES[detected.mime];
  const metadata: MediaMetadata = {};
  if (detected.mime === 'video/mp4') {
    const facts = await readMp4Facts(reader);
    if (!facts) throw new MediaProbeError('unreadable_media', 'the MP4 has no readable movie header (moov)');
    if (facts.width && facts.height) Object.assign(metadata, { width: facts.width, height: facts.height });
    if (facts.durationSeconds !== null) metadata.durationSeconds = facts.durationSeconds;
    metadata.codecs = facts.codecs;
    if (facts.videoCodec) metadata.videoCodec = facts.videoCodec;
    if (facts.audioCodec) metadata.audioCodec = facts.audioCodec;
  } else {
    Object.assign(metadata, await imageDimensions(prefix, reader));
    if (detected.mime === 'image/gif') {
      const frames = await countGifFrames(reader);
      if (frames === null) throw new MediaProbeError('unreadable_media', 'the GIF frames cannot be read');
      metadata.frameCount = frames;
      metadata.animated = frames > 1;
    }
  }
  return { mimeType: detected.mime, kind, extension, metadata };
}
