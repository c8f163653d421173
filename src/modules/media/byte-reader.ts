/**
 * Random access to bytes for the container parsers, so an MP4 whose `moov` box sits at the end, or a
 * long GIF, is read from the stored file piece by piece instead of being loaded whole.
 */
import { open } from 'node:fs/promises';

export interface ByteReader {
  readonly size: number;
  /** Up to `length` bytes from `offset` (shorter at the end of the data). */
  read(offset: number, length: number): Promise<Buffer>;
}

export function bufferReader(buffer: Buffer): ByteReader {
  return {
    size: buffer.length,
    read: async (offset, length) => buffer.subarray(offset, Math.min(offset + length, buffer.length)),
  };
}

/** Opens a file for random reads; call `close()` when done. */
export async function fileReader(path: string): Promise<ByteReader & { close(): Promise<void> }> {
  const handle = await open(path, 'r');
  const { size } = await handle.stat();
  return {
    size,
    read: async (offset, length) => {
      const wanted = Math.max(0, Math.min(length, size - offset));
      const buffer = Buffer.alloc(wanted);
      const { bytesRead } = await handle.read(buffer, 0, wanted, offset);
      return buffer.subarray(0, bytesRead);
    },
    close: () => handle.close(),
  };
}

/** Sequential reads over a ByteReader through a window, for formats made of many tiny blocks. */
export class WindowedCursor {
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;
  position = 0;

  constructor(
    private readonly reader: ByteReader,
    private readonly windowSize = 64 * 1024,
  ) {}

  get remaining(): number {
    return this.reader.size - this.position;
  }

  /** Exactly `length` bytes, or null when the data ends first. */
  async take(length: number): Promise<Buffer | null> {
    if (this.position + length > this.reader.size) return null;
    const offset = this.position - this.windowStart;
    if (offset < 0 || offset + length > this.window.length) {
      this.window = await this.reader.read(this.position, Math.max(length, this.windowSize));
      this.windowStart = this.position;
    }
    const start = this.position - this.windowStart;
    this.position += length;
    return this.window.subarray(start, start + length);
  }

  skip(length: number): void {
    this.position += length;
  }
}
