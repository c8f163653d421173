/** Synchronous QR encoding: the qrcode package builds the symbol, qr-render draws it at the exact size. */
import { createRequire } from 'node:module';
import type QRCode from 'qrcode';
import type { QrRequest } from './qr-options.js';
import { renderPng, renderSvg } from './qr-render.js';

const requireLazily = createRequire(import.meta.url);
let qrcode: typeof QRCode | null = null;

export type QrEncodeResult = { ok: true; dataUrl: string } | { ok: false; message: string };

export function encodeQr(request: QrRequest): QrEncodeResult {
  let symbol: QRCode.QRCode;
  try {
    // the qrcode package loads with the first code encoded (an API process that draws none does not hold it)
    qrcode ??= requireLazily('qrcode') as typeof QRCode;
    symbol = qrcode.create(request.text, {
      errorCorrectionLevel: request.errorCorrectionLevel,
    });
  } catch {
    return {
      ok: false,
      message: `\`text\` exceeds the capacity of a QR code at error correction level ${request.errorCorrectionLevel}.`,
    };
  }
  const matrix = symbol.modules;
  const modulesWide = matrix.size + request.margin * 2;
  if (request.size < modulesWide) {
    return {
      ok: false,
      message: `\`size\` must be at least ${modulesWide} pixels for this text and margin (one pixel per module).`,
    };
  }
  if (request.format === 'svg') {
    const svg = renderSvg(matrix, request.size, request.margin);
    return {
      ok: true,
      dataUrl: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
    };
  }
  const png = renderPng(matrix, request.size, request.margin);
  return {
    ok: true,
    dataUrl: `data:image/png;base64,${png.toString('base64')}`,
  };
}
