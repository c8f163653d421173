import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { bufferReader, fileReader } from '../../src/modules/media/byte-reader.js';
import { MediaProbeError, probeMedia } from '../../src/modules/media/media-probe.js';
import { MediaTooLargeError, PROBE_PREFIX_BYTES, spoolToFile } from '../../src/modules/media/media-spool.js';

const fixture = (name: string) => readFile(new URL(`../fixtures/media/${name}`, import.meta.url));

/** Feeds bytes in small chunks, the way a network stream would. */
function chunked(data: Buffer, size = 1000): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) parts.push(data.subarray(i, i + size));
  return Readable.from(parts);
}

function box(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(payload.length + 8, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-probe-'));
});
after(() => rm(dir, { recursive: true, force: true }));

async function spoolAndProbe(data: Buffer, name: string) {
  const spooled = await spoolToFile(chunked(data), join(dir, name), 64 * 1024 * 1024);
  const reader = await fileReader(spooled.path);
  try {
    return { spooled, facts: await probeMedia(spooled.prefix, reader) };
  } finally {
    await reader.close();
  }
}

describe('probe of every supported type, streamed through the spool', () => {
  const expectations: Array<[string, string, string, Record<string, unknown>]> = [
    ['sample.jpg', 'image/jpeg', 'image', { width: 64, height: 48 }],
    ['sample.png', 'image/png', 'image', { width: 32, height: 24 }],
    ['sample.webp', 'image/webp', 'image', { width: 40, height: 30 }],
    ['sample.avif', 'image/avif', 'image', { width: 48, height: 32 }],
    ['sample-animated.gif', 'image/gif', 'gif', { width: 16, height: 16, frameCount: 3, animated: true }],
    ['sample-static.gif', 'image/gif', 'gif', { width: 8, height: 8, frameCount: 1, animated: false }],
    [
      'sample.mp4',
      'video/mp4',
      'video',
      {
        width: 64,
        height: 48,
        durationSeconds: 1,
        codecs: ['avc1', 'mp4a'],
        videoCodec: 'avc1',
        audioCodec: 'mp4a',
      },
    ],
    [
      'sample-faststart.mp4',
      'video/mp4',
      'video',
      {
        width: 64,
        height: 48,
        durationSeconds: 1,
        codecs: ['avc1', 'mp4a'],
        videoCodec: 'avc1',
        audioCodec: 'mp4a',
      },
    ],
    [
      'sample-hevc.mp4',
      'video/mp4',
      'video',
      {
        width: 32,
        height: 32,
        durationSeconds: 0.5,
        codecs: ['hvc1'],
        videoCodec: 'hvc1',
      },
    ],
  ];
  for (const [name, mime, kind, metadata] of expectations) {
    test(name, async () => {
      const data = await fixture(name);
      const { spooled, facts } = await spoolAndProbe(data, `${name}.part`);
      assert.equal(facts.mimeType, mime);
      assert.equal(facts.kind, kind);
      assert.deepEqual(facts.metadata, metadata);
      assert.equal(spooled.bytes, data.length);
      assert.equal(spooled.sha256, createHash('sha256').update(data).digest('hex'));
      assert.deepEqual(await readFile(spooled.path), data);
    });
  }
});

describe('probe edge cases', () => {
  test('the client-facing name or extension plays no part: a PNG named .mp4 is a PNG', async () => {
    const { facts } = await spoolAndProbe(await fixture('sample.png'), 'looks-like.mp4');
    assert.equal(facts.mimeType, 'image/png');
  });

  test('unsupported types are refused', async () => {
    for (const name of ['sample.bmp', 'not-media.txt']) {
      const data = await fixture(name);
      await assert.rejects(
        probeMedia(data, bufferReader(data)),
        (e: unknown) => e instanceof MediaProbeError && e.code === 'unsupported_type',
      );
    }
  });

  test('an MP4 whose moov lies beyond the probe prefix is read from the stored file', async () => {
    const data = await fixture('sample.mp4');
    const ftypSize = data.readUInt32BE(0);
    const padded = Buffer.concat([data.subarray(0, ftypSize), box('free', Buffer.alloc(3 * PROBE_PREFIX_BYTES)), data.subarray(ftypSize)]);
    const { spooled, facts } = await spoolAndProbe(padded, 'late-moov.mp4');
    assert.ok(spooled.prefix.length === PROBE_PREFIX_BYTES && padded.length > 3 * PROBE_PREFIX_BYTES);
    assert.equal(facts.metadata.durationSeconds, 1);
    assert.deepEqual(facts.metadata.codecs, ['avc1', 'mp4a']);
  });

  test('an MP4 cut before its moov is unreadable', async () => {
    const data = await fixture('sample.mp4');
    const cut = data.subarray(0, 2000);
    await assert.rejects(probeMedia(cut, bufferReader(cut)), (e: unknown) => e instanceof MediaProbeError && e.code === 'unreadable_media');
  });

  test('a JPEG whose frame header lies past the prefix is still measured', async () => {
    const jpeg = await fixture('sample.jpg');
    const segment = Buffer.alloc(60_000 + 4);
    segment.writeUInt16BE(0xffe1, 0);
    segment.writeUInt16BE(60_002, 2);
    const big = Buffer.concat([jpeg.subarray(0, 2), segment, segment, jpeg.subarray(2)]);
    const { facts } = await spoolAndProbe(big, 'big-exif.jpg');
    assert.deepEqual(facts.metadata, { width: 64, height: 48 });
  });

  test('the spool cuts a stream at the byte limit and leaves no file', async () => {
    const path = join(dir, 'too-big.part');
    let produced = 0;
    async function* endless() {
      for (;;) {
        produced += 65536;
        yield Buffer.alloc(65536);
      }
    }
    await assert.rejects(spoolToFile(endless(), path, 200_000), MediaTooLargeError);
    assert.ok(produced < 1_000_000, 'reading stopped soon after the limit');
    await assert.rejects(stat(path), /ENOENT/);
  });

  test('a stream exactly at the limit is accepted', async () => {
    const data = await fixture('sample.png');
    const spooled = await spoolToFile(chunked(data, 7), join(dir, 'exact.part'), data.length);
    assert.equal(spooled.bytes, data.length);
  });
});
