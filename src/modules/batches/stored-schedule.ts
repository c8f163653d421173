/**
 * The schedule a preview stores for a later commit, packed: the JSON text compressed with Brotli at its
 * fastest quality. A preview's warnings repeat the same sentences for every target that found no slot
 * (1,000 items x 4 targets stored about 1.1 MB of JSON, 34 KB packed), and the preview wrote that text
 * on every call: as jsonb it cost the database a parse of the whole document, its TOAST compression and
 * its write-ahead log, and the embedded engine a copy through its protocol (about a quarter of the
 * request's time at 1,000 items; docs/operations.md). Packing takes ~1.5 ms here, unpacking ~1.5 ms.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

const PACK_OPTIONS = {
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 1,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
  },
};

export function packSchedule(schedule: unknown): Buffer {
  return brotliCompressSync(JSON.stringify(schedule), PACK_OPTIONS);
}

/** The stored schedule: a packed one (node-postgres reads bytea as a Buffer, PGlite as a Uint8Array). */
export function unpackSchedule(packed: Uint8Array): Record<string, unknown> {
  const bytes = Buffer.isBuffer(packed) ? packed : Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
  return JSON.parse(brotliDecompressSync(bytes).toString('utf8')) as Record<string, unknown>;
}
