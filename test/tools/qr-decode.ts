/** Decodes generated QR data URLs with real decoders: pngjs + jsQR for PNG, resvg + jsQR for SVG. */
import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import type { Options, QRCode } from 'jsqr';

interface DecodedPng {
  width: number;
  height: number;
  data: Buffer;
}
const require = createRequire(import.meta.url);
// pngjs ships with qrcode and has no bundled types.
const { PNG } = require('pngjs') as {
  PNG: { sync: { read(buffer: Buffer): DecodedPng } };
};
// jsqr is CommonJS with an ES-style default export in its types.
const jsQR = require('jsqr') as (data: Uint8ClampedArray, width: number, height: number, options?: Options) => QRCode | null;

export interface DecodedQr {
  width: number;
  height: number;
  text: string | null;
}

function decodeRgba(width: number, height: number, rgba: Uint8Array | Buffer): string | null {
  const pixels = new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  const found = jsQR(pixels, width, height, {
    inversionAttempts: 'dontInvert',
  });
  return found ? Buffer.from(found.binaryData).toString('utf8') : null;
}

function dataUrlPayload(dataUrl: string, mime: string): Buffer {
  const prefix = `data:${mime};base64,`;
  if (!dataUrl.startsWith(prefix)) throw new Error(`expected a ${mime} data URL`);
  return Buffer.from(dataUrl.slice(prefix.length), 'base64');
}

export function decodePngDataUrl(dataUrl: string): DecodedQr {
  const png = PNG.sync.read(dataUrlPayload(dataUrl, 'image/png'));
  return {
    width: png.width,
    height: png.height,
    text: decodeRgba(png.width, png.height, png.data),
  };
}

/**
 * Rasterizes at the SVG's own width (zoom 1), so the raster width is the width the SVG declares; a larger
 * zoom decodes the text from a finer raster while still reporting the declared width.
 */
export function decodeSvgDataUrl(dataUrl: string, zoom = 1): DecodedQr {
  const svg = dataUrlPayload(dataUrl, 'image/svg+xml').toString('utf8');
  const declared = new Resvg(svg, { fitTo: { mode: 'original' } });
  const image = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: zoom },
    background: 'white',
  }).render();
  return {
    width: declared.width,
    height: declared.height,
    text: decodeRgba(image.width, image.height, image.pixels),
  };
}
