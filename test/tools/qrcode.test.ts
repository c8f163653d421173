import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { encodeQr } from '../../src/modules/tools/qrcode/qr-encoder.js';
import { generateQr } from '../../src/modules/tools/qrcode/qr-generator.js';
import { parseQrRequest, QR_DEFAULT_FORMAT } from '../../src/modules/tools/qrcode/qr-options.js';
import { QrWorkerPool } from '../../src/modules/tools/qrcode/qr-worker-pool.js';
import { decodePngDataUrl, decodeSvgDataUrl } from './qr-decode.js';

const pool = new QrWorkerPool(2);
after(() => pool.close());

function decode(dataUrl: string) {
  return dataUrl.startsWith('data:image/png') ? decodePngDataUrl(dataUrl) : decodeSvgDataUrl(dataUrl);
}

async function generated(body: Record<string, unknown>) {
  const result = await generateQr(body, pool);
  if (!result.ok) assert.fail(result.message);
  return result.value;
}

describe('QR generation decodes back to the input at the exact size', () => {
  const cases: Array<Record<string, unknown>> = [
    {
      text: 'https://example.com/?utm_source=news&utm_medium=email',
      format: 'png',
      size: 256,
    },
    {
      text: 'https://example.com/?utm_source=news&utm_medium=email',
      format: 'svg',
      size: 256,
    },
    { text: 'a', format: 'png', size: 64 },
    { text: 'a', format: 'svg', size: 64 },
    { text: '0123456789', format: 'png', size: 97, margin: 0 },
    {
      text: 'Grüße aus Köln 🎉 & = # + %',
      format: 'svg',
      size: 333,
      errorCorrectionLevel: 'H',
    },
    {
      text: 'Grüße aus Köln 🎉 & = # + %',
      format: 'png',
      size: 333,
      errorCorrectionLevel: 'Q',
    },
    {
      text: 'x'.repeat(1200),
      format: 'png',
      size: 1001,
      errorCorrectionLevel: 'L',
      margin: 2,
    },
    {
      text: 'y'.repeat(600),
      format: 'svg',
      size: 777,
      errorCorrectionLevel: 'M',
    },
    { text: 'https://example.com/path', format: 'png', size: 2048 },
  ];
  for (const body of cases) {
    const label = `${body.format} ${body.size}px ${String(body.text).slice(0, 24)}`;
    test(label, async () => {
      const value = await generated(body);
      assert.equal(value.format, body.format);
      // the route writes the data URL into its JSON answer unescaped (tools.routes.ts): base64 only
      const type = body.format === 'svg' ? 'svg\\+xml' : 'png';
      assert.match(value.dataUrl, new RegExp(`^data:image/${type};base64,[A-Za-z0-9+/]+={0,2}$`));
      const decoded = decode(value.dataUrl);
      assert.equal(decoded.width, body.size);
      assert.equal(decoded.height, body.size);
      assert.equal(decoded.text, body.text);
    });
  }

  test('defaults: png, 256 px', async () => {
    const value = await generated({ text: 'defaults' });
    assert.equal(QR_DEFAULT_FORMAT, 'png');
    assert.equal(value.format, 'png');
    const decoded = decodePngDataUrl(value.dataUrl);
    assert.deepEqual([decoded.width, decoded.text], [256, 'defaults']);
  });

  test('every size from 64 to 200 is exact for both formats', () => {
    for (let size = 64; size <= 200; size++) {
      for (const format of ['png', 'svg'] as const) {
        const result = encodeQr({
          text: 'exact',
          format,
          size,
          margin: 4,
          errorCorrectionLevel: 'M',
        });
        assert.ok(result.ok);
        // jsQR misses a few 1-pixel-rounded SVG rasters (e.g. 69 px); decode those from a 2x raster.
        const decoded = format === 'png' ? decodePngDataUrl(result.dataUrl) : decodeSvgDataUrl(result.dataUrl, 2);
        assert.equal(decoded.width, size, `${format} ${size}`);
        assert.equal(decoded.text, 'exact', `${format} ${size}`);
      }
    }
  });

  test('the worker pool and the inline encoder produce the same image', async () => {
    const request = {
      text: 'same',
      format: 'png' as const,
      size: 300,
      margin: 3,
      errorCorrectionLevel: 'Q' as const,
    };
    const inline = encodeQr(request);
    const pooled = await pool.encode(request);
    assert.deepEqual(pooled, inline);
  });
});

describe('QR request validation', () => {
  const refused: Array<[string, unknown]> = [
    ['array body', ['text']],
    ['null body', null],
    ['missing text', { format: 'png' }],
    ['empty text', { text: '' }],
    ['non-string text', { text: 42 }],
    ['unknown format', { text: 'a', format: 'gif' }],
    ['size below 64', { text: 'a', size: 63 }],
    ['png above 2048', { text: 'a', format: 'png', size: 2049 }],
    ['svg above 4096', { text: 'a', format: 'svg', size: 4097 }],
    ['fractional size', { text: 'a', size: 100.5 }],
    ['negative margin', { text: 'a', margin: -1 }],
    ['margin above 16', { text: 'a', margin: 17 }],
    ['unknown level', { text: 'a', errorCorrectionLevel: 'X' }],
    ['lone surrogate', { text: '\ud800' }],
  ];
  for (const [label, body] of refused) {
    test(label, () => assert.equal(parseQrRequest(body).ok, false));
  }

  test('svg accepts 4096', () => assert.equal(parseQrRequest({ text: 'a', format: 'svg', size: 4096 }).ok, true));

  test('capacity depends on the error correction level', async () => {
    // Byte-mode capacity of version 40: L 2953, H 1273 bytes.
    const atL = 'é'.repeat(1476); // 2952 bytes
    assert.equal((await generateQr({ text: atL, errorCorrectionLevel: 'L', size: 2048 }, pool)).ok, true);
    const tooBigForH = await generateQr({ text: atL, errorCorrectionLevel: 'H', size: 2048 }, pool);
    assert.equal(tooBigForH.ok, false);
    assert.match(tooBigForH.ok ? '' : tooBigForH.message, /capacity/);
    const overL = await generateQr({ text: 'é'.repeat(1477), errorCorrectionLevel: 'L', size: 2048 }, pool);
    assert.equal(overL.ok, false);
  });

  test('a size smaller than one pixel per module is refused', async () => {
    const result = await generateQr({ text: 'z'.repeat(300), format: 'svg', size: 64 }, pool);
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.message, /at least \d+ pixels/);
  });
});
