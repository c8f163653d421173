/**
 * Counts the frames of a GIF by walking its blocks (GIF89a specification, sections 17-27:
 * https://www.w3.org/Graphics/GIF/spec-gif89a.txt). Only block headers and sub-block lengths are read;
 * image data is skipped.
 */
import { type ByteReader, WindowedCursor } from './byte-reader.js';

const EXTENSION = 0x21;
const IMAGE = 0x2c;
const TRAILER = 0x3b;

async function skipSubBlocks(cursor: WindowedCursor): Promise<boolean> {
  for (;;) {
    const size = await cursor.take(1);
    if (!size) return false;
    if (size[0] === 0) return true;
    cursor.skip(size[0] as number);
  }
}

/** Number of image descriptors; null when the data is not a well-formed GIF stream. */
export async function countGifFrames(reader: ByteReader): Promise<number | null> {
  const cursor = new WindowedCursor(reader);
  const header = await cursor.take(13);
  if (header?.toString('latin1', 0, 3) !== 'GIF') return null;
  const packed = header[10] as number;
  if (packed & 0x80) cursor.skip(3 * 2 ** ((packed & 0x07) + 1));
  let frames = 0;
  for (;;) {
    const introducer = await cursor.take(1);
    if (!introducer) return frames > 0 ? frames : null;
    switch (introducer[0]) {
      case TRAILER:
        return frames;
      case EXTENSION:
        cursor.skip(1);
        if (!(await skipSubBlocks(cursor))) return frames > 0 ? frames : null;
        break;
      case IMAGE: {
        const descriptor = await cursor.take(9);
        if (!descriptor) return frames > 0 ? frames : null;
        const local = descriptor[8] as number;
        if (local & 0x80) cursor.skip(3 * 2 ** ((local & 0x07) + 1));
        cursor.skip(1); // LZW minimum code size
        frames += 1;
        if (!(await skipSubBlocks(cursor))) return frames;
        break;
      }
      default:
        return frames > 0 ? frames : null;
    }
  }
}
