/**
 * Media upload benchmark: throughput of a 32 MiB MP4 through multipart/form-data and through JSON
 * base64, against writing the same bytes straight to disk in the same run, and the peak RSS growth of
 * the server process while each upload runs.
 *
 * The server (buildApp on the test harness, disk media store) runs in this process. Everything that
 * holds the 32 MiB in memory (building the file, the direct write, the HTTP client) runs in a child
 * process (this file with --child), so the server's RSS shows only what the upload path costs and the
 * client does not share the server's event loop.
 *
 * Targets: multipart keeps at least 50% of the direct write rate; RSS grows by less than the file.
 * Each iteration measures the three back to back; ratios are taken per iteration (so a busy machine
 * slows both sides of a ratio alike) and the medians are reported.
 * Run: npm run bench:media   (ITERATIONS=7 by default)
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { request } from 'undici';
import { median } from './support/stats.js';

const FILE_BYTES = 32 * 1024 * 1024;
const ITERATIONS = Number(process.env.ITERATIONS ?? 7);
const MiB = 1024 * 1024;

type Mode = 'direct' | 'raw' | 'multipart' | 'json';
interface ChildArgs {
  mode: Mode;
  seed: number;
  url: string;
  auth: string;
  scratch: string;
}

/** A valid MP4 (moov at the end) padded to 32 MiB with a `free` box of pseudo-random bytes; distinct per seed. */
async function bigMp4(seed: number): Promise<Buffer> {
  const sample = await readFile(new URL('../test/fixtures/media/sample.mp4', import.meta.url));
  const ftypSize = sample.readUInt32BE(0);
  const padding = FILE_BYTES - sample.length;
  const free = Buffer.alloc(padding);
  free.writeUInt32BE(padding, 0);
  free.write('free', 4, 'latin1');
  // cheap deterministic filler: repeated sha256 blocks of the seed
  let block = createHash('sha256').update(`seed-${seed}`).digest();
  for (let offset = 8; offset < padding; offset += 32) {
    block.copy(free, offset, 0, Math.min(32, padding - offset));
    if ((offset & 0xffff) === 8) block = createHash('sha256').update(block).digest();
  }
  return Buffer.concat([sample.subarray(0, ftypSize), free, sample.subarray(ftypSize)]);
}

function chunked(data: Buffer, size = 64 * 1024): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= data.length) return void this.push(null);
      this.push(data.subarray(offset, offset + size));
      offset += size;
    },
  });
}

/** Child process: one measured operation, reported as {ms} on stdout. */
async function child(args: ChildArgs): Promise<void> {
  const data = await bigMp4(args.seed);
  let ms: number;
  if (args.mode === 'direct') {
    const target = join(args.scratch, `direct-${args.seed}.mp4`);
    const t0 = performance.now();
    await pipeline(chunked(data), createWriteStream(target));
    ms = performance.now() - t0;
    await rm(target);
  } else {
    let body: Buffer;
    let contentType: string;
    if (args.mode === 'multipart' || args.mode === 'raw') {
      const boundary = `----bench${args.seed}`;
      contentType = `multipart/form-data; boundary=${boundary}`;
      body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
        ),
        data,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    } else {
      contentType = 'application/json';
      body = Buffer.from(JSON.stringify({ dataBase64: data.toString('base64') }));
    }
    const t0 = performance.now();
    const res = await request(args.url, {
      method: 'POST',
      headers: { authorization: args.auth, 'content-type': contentType, 'content-length': String(body.length) },
      body,
    });
    const text = await res.body.text();
    ms = performance.now() - t0;
    if (res.statusCode !== 201) throw new Error(`${args.mode} upload answered ${res.statusCode}: ${text.slice(0, 300)}`);
  }
  process.stdout.write(JSON.stringify({ ms }));
}

function runChild(args: ChildArgs): Promise<number> {
  const proc = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', JSON.stringify(args)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (d) => {
    out += d;
  });
  return new Promise((resolve, reject) =>
    proc.on('close', (code) =>
      code === 0 ? resolve((JSON.parse(out) as { ms: number }).ms) : reject(new Error(`child ${args.mode} failed`)),
    ),
  );
}

async function main(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { createTestContext } = await import('../test/support/harness.js');
  // the JSON path is measured with a 32 MiB file, above the 16 MiB default for JSON uploads
  // the tests' check of every answer against the OpenAPI document is not part of a production request
  const ctx = await createTestContext({ overrides: { SERVICE_MEDIA_MAX_JSON_UPLOAD_BYTES: 64 * 1024 * 1024 }, checkOpenApi: false });
  const org = await ctx.createOrganization();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/v1/media`;
  const scratch = join(ctx.config.dataDir, 'bench');
  await mkdir(scratch, { recursive: true });
  const auth = org.auth.authorization as string;

  // reference: the same multipart body over the same loopback into a plain HTTP server that only
  // writes the bytes to a file (no parsing, no hashing): what the transport itself costs here
  let rawCount = 0;
  const raw = createServer((req, res) => {
    const file = join(scratch, `raw-${rawCount++}.bin`);
    pipeline(req, createWriteStream(file, { highWaterMark: 1024 * 1024 }))
      .then(() => res.writeHead(201).end('{}'))
      .catch(() => res.writeHead(500).end())
      .finally(() => rm(file, { force: true }));
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  const rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`;

  // garbage collection time of the server process per mode (VERBOSE)
  let gcMs = 0;
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const gcTimes: Record<Mode, number> = { direct: 0, raw: 0, multipart: 0, json: 0 };
  const times: Record<Mode, number[]> = { direct: [], raw: [], multipart: [], json: [] };
  const rssGrowth: Record<Mode, number> = { direct: 0, raw: 0, multipart: 0, json: 0 };
  let seed = 0;
  // one unmeasured round first: JIT, first database queries, page cache
  for (const mode of ['direct', 'raw', 'multipart', 'json'] as const)
    await runChild({ mode, seed: seed++, url: mode === 'raw' ? rawUrl : url, auth, scratch });
  for (let i = 0; i < ITERATIONS; i++) {
    for (const mode of ['direct', 'raw', 'multipart', 'json'] as const) {
      gc();
      const baseline = process.memoryUsage.rss();
      let peak = baseline;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 5);
      try {
        const gcBefore = gcMs;
        times[mode].push(await runChild({ mode, seed: seed++, url: mode === 'raw' ? rawUrl : url, auth, scratch }));
        gcTimes[mode] += gcMs - gcBefore;
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, process.memoryUsage.rss());
      rssGrowth[mode] = Math.max(rssGrowth[mode], peak - baseline);
    }
  }

  const rate = (mode: Mode) => FILE_BYTES / MiB / (median(times[mode]) / 1000);
  const ratio = (mode: Mode) => median(times[mode].map((ms, i) => (times.direct[i] as number) / ms));
  console.log(`media upload benchmark: ${FILE_BYTES / MiB} MiB MP4, median of ${ITERATIONS} runs, disk store under ${ctx.config.dataDir}`);
  for (const [mode, label] of [
    ['direct', 'direct disk write'],
    ['raw', 'raw HTTP to file'],
    ['multipart', 'multipart upload'],
    ['json', 'JSON base64 upload'],
  ] as const) {
    const rss =
      mode === 'direct' || mode === 'raw'
        ? ''
        : `  server peak RSS growth ${(rssGrowth[mode] / MiB).toFixed(1)} MiB (${((rssGrowth[mode] / FILE_BYTES) * 100).toFixed(0)}% of the file)`;
    console.log(`${label.padEnd(20)} ${rate(mode).toFixed(1).padStart(7)} MiB/s  ratio to direct ${ratio(mode).toFixed(2)}${rss}`);
  }
  if (process.env.VERBOSE) {
    for (const [mode, xs] of Object.entries(times)) {
      console.log(
        `  ${mode} ms: ${xs.map((x) => x.toFixed(0)).join(' ')}; server GC ${(gcTimes[mode as Mode] / ITERATIONS).toFixed(0)} ms per run`,
      );
    }
  }
  gcObserver.disconnect();
  const rateOk = ratio('multipart') >= 0.5;
  const rssOk = rssGrowth.multipart < FILE_BYTES;
  console.log(
    `targets: multipart >= 50% of direct write ${rateOk ? 'met' : 'NOT met'}; multipart RSS growth < file size ${rssOk ? 'met' : 'NOT met'}`,
  );
  console.log(`multipart upload / raw HTTP to file: ${median(times.multipart.map((ms, i) => (times.raw[i] as number) / ms)).toFixed(2)}`);
  raw.close();
  await ctx.close();
  await rm(ctx.config.dataDir, { recursive: true, force: true });
}

const childAt = process.argv.indexOf('--child');
(childAt > 0 ? child(JSON.parse(process.argv[childAt + 1] as string) as ChildArgs) : main()).catch((error) => {
  console.error(error);
  process.exit(1);
});
