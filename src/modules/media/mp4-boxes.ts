/**
 * A small ISO base media file (MP4) box reader: enough to report duration, the video size and the
 * codecs a publisher checks. Box layouts follow ISO/IEC 14496-12 (mvhd 8.2.2, tkhd 8.3.2, hdlr 8.4.3,
 * stsd 8.5.2) as also described in Apple's QuickTime File Format reference
 * (https://developer.apple.com/documentation/quicktime-file-format).
 *
 * Top-level boxes are walked through a ByteReader so only headers are read until `moov` is found,
 * wherever it sits; `moov` itself is read whole (bounded by MAX_MOOV_BYTES).
 */
import type { ByteReader } from './byte-reader.js';

export interface Mp4Facts {
  durationSeconds: number | null;
  width: number | null;
  height: number | null;
  /** sample entry four-character codes, e.g. ["avc1", "mp4a"] */
  codecs: string[];
  videoCodec: string | null;
  audioCodec: string | null;
}

const MAX_MOOV_BYTES = 64 * 1024 * 1024;

interface Box {
  type: string;
  /** offset of the payload (after the header) */
  start: number;
  /** offset just past the box */
  end: number;
}

/** Boxes laid out one after another inside `buffer` between `from` and `to`. */
function* children(buffer: Buffer, from: number, to: number): Generator<Box> {
  let offset = from;
  while (offset + 8 <= to) {
    let size = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    let header = 8;
    if (size === 1) {
      if (offset + 16 > to) return;
      size = Number(buffer.readBigUInt64BE(offset + 8));
      header = 16;
    } else if (size === 0) {
      size = to - offset;
    }
    if (size < header || offset + size > to) return;
    yield { type, start: offset + header, end: offset + size };
    offset += size;
  }
}

function child(buffer: Buffer, parent: Box, type: string): Box | undefined {
  for (const box of children(buffer, parent.start, parent.end)) if (box.type === type) return box;
  return undefined;
}

async function findTopLevel(reader: ByteReader, type: string): Promise<Box | null> {
  let offset = 0;
  while (offset + 8 <= reader.size) {
    const head = await reader.read(offset, 16);
    if (head.length < 8) return null;
    let size = head.readUInt32BE(0);
    const found = head.toString('latin1', 4, 8);
    let header = 8;
    if (size === 1) {
      if (head.length < 16) return null;
      size = Number(head.readBigUInt64BE(8));
      header = 16;
    } else if (size === 0) {
      size = reader.size - offset;
    }
    if (size < header) return null;
    if (found === type)
      return {
        type,
        start: offset + header,
        end: Math.min(offset + size, reader.size),
      };
    offset += size;
  }
  return null;
}

function readMvhd(moov: Buffer, box: Box): number | null {
  const version = moov[box.start];
  const timescaleAt = box.start + (version === 1 ? 20 : 12);
  const timescale = moov.readUInt32BE(timescaleAt);
  const duration = version === 1 ? Number(moov.readBigUInt64BE(timescaleAt + 4)) : moov.readUInt32BE(timescaleAt + 4);
  if (!timescale || duration === 0xffffffff) return null;
  return Math.round((duration / timescale) * 1000) / 1000;
}

function readTkhdSize(moov: Buffer, box: Box): { width: number; height: number } {
  const version = moov[box.start];
  // fullbox(4) + times/ids (v0: 20, v1: 32) + reserved(8) + layer, group, volume, reserved (8) + matrix (36)
  const at = box.start + 4 + (version === 1 ? 32 : 20) + 8 + 8 + 36;
  if (at + 8 > box.end) return { width: 0, height: 0 };
  return {
    width: moov.readUInt32BE(at) / 65536,
    height: moov.readUInt32BE(at + 4) / 65536,
  };
}

interface TrackFacts {
  handler: string;
  codec: string | null;
  width: number;
  height: number;
}

function readTrack(moov: Buffer, trak: Box): TrackFacts {
  const tkhd = child(moov, trak, 'tkhd');
  let { width, height } = tkhd ? readTkhdSize(moov, tkhd) : { width: 0, height: 0 };
  const mdia = child(moov, trak, 'mdia');
  const hdlr = mdia && child(moov, mdia, 'hdlr');
  const handler = hdlr && hdlr.start + 12 <= hdlr.end ? moov.toString('latin1', hdlr.start + 8, hdlr.start + 12) : '';
  const minf = mdia && child(moov, mdia, 'minf');
  const stbl = minf && child(moov, minf, 'stbl');
  const stsd = stbl && child(moov, stbl, 'stsd');
  let codec: string | null = null;
  if (stsd && stsd.start + 16 <= stsd.end) {
    const entry = { type: '', start: stsd.start + 8, end: stsd.end };
    const first = children(moov, entry.start, entry.end).next().value as Box | undefined;
    if (first) {
      codec = first.type;
      // Visual sample entry: reserved(6) data_reference_index(2) pre_defined/reserved(16) width(2) height(2)
      if (handler === 'vide' && (width === 0 || height === 0) && first.start + 28 <= first.end) {
        width = moov.readUInt16BE(first.start + 24);
        height = moov.readUInt16BE(first.start + 26);
      }
    }
  }
  return {
    handler,
    codec,
    width: Math.round(width),
    height: Math.round(height),
  };
}

/** null when there is no readable moov box. */
export async function readMp4Facts(reader: ByteReader): Promise<Mp4Facts | null> {
  const moovBox = await findTopLevel(reader, 'moov');
  if (!moovBox) return null;
  const length = moovBox.end - moovBox.start;
  if (length > MAX_MOOV_BYTES) return null;
  const moov = await reader.read(moovBox.start, length);
  const root: Box = { type: 'moov', start: 0, end: moov.length };
  const mvhd = child(moov, root, 'mvhd');
  const facts: Mp4Facts = {
    durationSeconds: mvhd ? readMvhd(moov, mvhd) : null,
    width: null,
    height: null,
    codecs: [],
    videoCodec: null,
    audioCodec: null,
  };
  for (const box of children(moov, 0, moov.length)) {
    if (box.type !== 'trak') continue;
    const track = readTrack(moov, box);
    if (track.codec && !facts.codecs.includes(track.codec)) facts.codecs.push(track.codec);
    if (track.handler === 'vide' && facts.videoCodec === null) {
      facts.videoCodec = track.codec;
      facts.width = track.width || null;
      facts.height = track.height || null;
    } else if (track.handler === 'soun' && facts.audioCodec === null) {
      facts.audioCodec = track.codec;
    }
  }
  return facts;
}
