/**
 * How the simulator fetches media_source.url for image Pins, as Pinterest does: a GET that must answer
 * 2xx with image bytes (PNG, JPEG, GIF, WebP, BMP or TIFF by magic number) under 20 MB.
 */
import { request } from 'undici';
import { mediaFetchTimeoutMs } from '../../media-fetch-timeout.js';

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export type ImageFetchResult = { ok: true; bytes: number; type: string } | { ok: false; reason: string };

function sniff(head: Buffer): string | null {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (head.subarray(0, 2).toString('latin1') === 'BM') return 'image/bmp';
  const tiff = head.subarray(0, 4).toString('hex');
  if (tiff === '49492a00' || tiff === '4d4d002a') return 'image/tiff';
  return null;
}

export async function fetchImage(url: string, timeoutMs: number): Promise<ImageFetchResult> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'invalid URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { ok: false, reason: 'unsupported scheme' };
  // the platform's bound for remote hosts; loopback (this service's own media) gets a generous one
  timeoutMs = mediaFetchTimeoutMs(parsed, timeoutMs);
  try {
    const res = await request(parsed, {
      method: 'GET',
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump();
      return { ok: false, reason: `HTTP ${res.statusCode}` };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.length;
      if (size > MAX_IMAGE_BYTES) {
        res.body.destroy();
        return { ok: false, reason: 'image larger than 20 MB' };
      }
      chunks.push(chunk as Buffer);
    }
    const type = sniff(Buffer.concat(chunks).subarray(0, 16));
    return type ? { ok: true, bytes: size, type } : { ok: false, reason: 'not an image' };
  } catch (err) {
    return {
      ok: false,
      reason: (err as { code?: string }).code ?? 'unreachable',
    };
  }
}
