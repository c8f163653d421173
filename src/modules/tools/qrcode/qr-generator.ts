/**
 * Entry point of the QR tool: validates the request and encodes it. PNGs and long texts (whose symbol
 * construction alone takes milliseconds) go to the worker pool; short SVGs are cheaper inline than a
 * round trip to a worker.
 */
import { encodeQr } from './qr-encoder.js';
import { parseQrRequest, type QrFormat, type QrRequest } from './qr-options.js';
import type { QrWorkerPool } from './qr-worker-pool.js';

/** Texts up to this many characters make symbols that encode in well under a millisecond. */
const QR_INLINE_SVG_MAX_CHARS = 256;

export type QrGenerateResult = { ok: true; value: { dataUrl: string; format: QrFormat } } | { ok: false; message: string };

function runsInline(request: QrRequest): boolean {
  return request.format === 'svg' && request.text.length <= QR_INLINE_SVG_MAX_CHARS;
}

/** `pool` may be a getter, so that a lazily started pool is only started when a job needs it. */
export async function generateQrFromRequest(request: QrRequest, pool: QrWorkerPool | (() => QrWorkerPool)): Promise<QrGenerateResult> {
  const encoded = runsInline(request) ? encodeQr(request) : await (typeof pool === 'function' ? pool() : pool).encode(request);
  if (!encoded.ok) return encoded;
  return {
    ok: true,
    value: { dataUrl: encoded.dataUrl, format: request.format },
  };
}

export async function generateQr(body: unknown, pool: QrWorkerPool): Promise<QrGenerateResult> {
  const parsed = parseQrRequest(body);
  if (!parsed.ok) return parsed;
  return generateQrFromRequest(parsed.value, pool);
}
