/**
 * Renders a QR module matrix to an image exactly `size` pixels wide. Pixel p maps to module
 * floor(p * n / size) with integer arithmetic (n = modules + 2 * margin), so the width is exact for every
 * size; the qrcode package's own renderers scale with floating point and can come out one pixel short.
 */
import { crc32, deflateSync } from 'node:zlib';

export interface QrMatrix {
  /** Modules per side. */
  size: number;
  /** Row-major, non-zero means dark. */
  data: ArrayLike<number | boolean>;
}

function isDark(matrix: QrMatrix, row: number, col: number): boolean {
  return Boolean(matrix.data[row * matrix.size + col]);
}

/** SVG in module units scaled by width/height; one filled path, one horizontal run per subpath. */
export function renderSvg(matrix: QrMatrix, size: number, margin: number): string {
  const n = matrix.size + margin * 2;
  let path = '';
  for (let row = 0; row < matrix.size; row++) {
    let col = 0;
    while (col < matrix.size) {
      if (!isDark(matrix, row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < matrix.size && isDark(matrix, row, col)) col++;
      path += `M${start + margin} ${row + margin}h${col - start}v1h${start - col}z`;
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${n} ${n}" ` +
    `shape-rendering="crispEdges"><rect width="${n}" height="${n}" fill="#fff"/>` +
    `<path fill="#000" d="${path}"/></svg>`
  );
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** 1-bit grayscale PNG (bit set = white); equal module rows compress to almost nothing. */
export function renderPng(matrix: QrMatrix, size: number, margin: number): Buffer {
  const n = matrix.size + margin * 2;
  const rowBytes = Math.ceil(size / 8);
  const stride = rowBytes + 1;
  const raw = Buffer.alloc(stride * size);
  const moduleOfPixel = new Int32Array(size);
  for (let p = 0; p < size; p++) moduleOfPixel[p] = Math.floor((p * n) / size) - margin;
  let previousModuleRow = Number.NaN;
  for (let y = 0; y < size; y++) {
    const offset = y * stride;
    const moduleRow = moduleOfPixel[y] as number;
    // Filter byte 0 (None) stays zero from Buffer.alloc.
    if (moduleRow === previousModuleRow) {
      raw.copy(raw, offset, offset - stride, offset);
      continue;
    }
    previousModuleRow = moduleRow;
    const inside = moduleRow >= 0 && moduleRow < matrix.size;
    for (let byte = 0; byte < rowBytes; byte++) {
      let bits = 0;
      for (let bit = 0; bit < 8; bit++) {
        const x = byte * 8 + bit;
        const col = x < size ? (moduleOfPixel[x] as number) : -1;
        const dark = inside && col >= 0 && col < matrix.size && isDark(matrix, moduleRow, col);
        if (!dark) bits |= 0x80 >> bit;
      }
      raw[offset + 1 + byte] = bits;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // grayscale
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
