/**
 * Multipart uploads over a real socket: text fields are kept wherever they sit (before or after files
 * of 0.5 to 32 MiB); an upload cut off mid-file gets an answer or a closed connection in time, and
 * leaves no spool file behind.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeOrphanedSpoolFiles } from '../../src/modules/media/media-spool.js';
import { fixture, multipartBody } from '../media/media-helpers.js';
import { createTestContext, type TestContext } from '../support/harness.js';

const MiB = 1024 * 1024;

describe('multipart uploads over a socket', () => {
  let ctx: TestContext;
  let base: string;
  let auth: Record<string, string>;
  let brandId: string;

  before(async () => {
    ctx = await createTestContext({ env: { SERVICE_CONNECTION_IDLE_TIMEOUT_SECONDS: '2' } });
    const org = await ctx.createOrganization();
    auth = org.auth;
    ({ brandId } = await ctx.createBrand(org.organizationId, 'Multipart'));
    base = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => ctx.close());

  /** A PNG padded with a unique tail so every upload is new bytes. */
  const png = (bytes: number, seed: number) => {
    const head = fixture('sample.png');
    const tail = Buffer.alloc(Math.max(0, bytes - head.length), seed % 251);
    return Buffer.concat([head, tail]);
  };

  for (const size of [0.5 * MiB, 1 * MiB, 2 * MiB, 32 * MiB]) {
    for (const order of ['before', 'after'] as const) {
      it(`keeps brandId and altText ${order} a ${size / MiB} MiB file`, async () => {
        const file = { name: 'file', value: png(size, size / 1024 + (order === 'after' ? 7 : 3)), filename: 'a.png' };
        const fields = [
          { name: 'brandId', value: brandId },
          { name: 'altText', value: `alt ${order} ${size}` },
        ];
        const { body, contentType } = multipartBody(order === 'before' ? [...fields, file] : [file, ...fields]);
        const res = await fetch(`${base}/v1/media`, { method: 'POST', headers: { ...auth, 'content-type': contentType }, body });
        const item = (await res.json()) as { brandId: string | null; metadata: { altText?: string } };
        assert.equal(res.status, 201, JSON.stringify(item));
        assert.equal(item.brandId, brandId);
        assert.equal(item.metadata.altText, `alt ${order} ${size}`);
      });
    }
  }

  it('an upload cut off mid-file answers or closes in time and leaves no spool file', async () => {
    const spoolDir = `${ctx.config.dataDir}/media/.tmp`;
    const spoolFiles = () => {
      try {
        return readdirSync(spoolDir).length;
      } catch {
        return 0;
      }
    };
    const before = spoolFiles();
    const url = new URL(base);
    for (const halfClose of [true, false]) {
      const { body, contentType } = multipartBody([{ name: 'file', value: png(2 * MiB, 99), filename: 'a.png' }]);
      const started = Date.now();
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect(Number(url.port), url.hostname, () => {
          const head = [
            'POST /v1/media HTTP/1.1',
            `host: ${url.host}`,
            `authorization: ${auth.authorization}`,
            `content-type: ${contentType}`,
            `content-length: ${body.length}`,
            '',
            '',
          ].join('\r\n');
          socket.write(head);
          socket.write(body.subarray(0, MiB));
          if (halfClose) socket.end();
        });
        let data = '';
        socket.on('data', (d) => {
          data += d.toString('latin1');
        });
        socket.on('close', () => resolve(data));
        socket.on('error', () => undefined);
      });
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 10_000, `answered or closed after ${elapsed} ms`);
      if (answer) assert.match(answer, /^HTTP\/1\.1 4\d\d/, answer.slice(0, 200));
    }
    // the spool files of the cut uploads are removed
    for (let i = 0; i < 50 && spoolFiles() > before; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(spoolFiles(), before);
  });

  it('refuses U+0000 in a multipart field (400, not a database error)', async () => {
    const { body, contentType } = multipartBody([
      { name: 'altText', value: 'a\u0000b' },
      { name: 'file', value: png(1024, 5), filename: 'a.png' },
    ]);
    const res = await fetch(`${base}/v1/media`, { method: 'POST', headers: { ...auth, 'content-type': contentType }, body });
    assert.equal(res.status, 400);
    const json = (await res.json()) as { error: string; fields: { path: string[] }[] };
    assert.equal(json.error, 'invalid_public_media_upload_request');
    assert.deepEqual(json.fields[0]?.path, ['altText']);
  });
});

describe('spool clean-up at start-up', () => {
  it('removes spool files older than a request may take and keeps recent ones', async () => {
    const dir = path.join(os.tmpdir(), `spool-${process.pid}-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'old.upload'), 'x');
    writeFileSync(path.join(dir, 'new.upload'), 'x');
    writeFileSync(path.join(dir, 'other.txt'), 'x');
    const hourAgo = new Date(Date.now() - 3600_000);
    utimesSync(path.join(dir, 'old.upload'), hourAgo, hourAgo);
    assert.equal(await removeOrphanedSpoolFiles(dir, 300_000), 1);
    assert.deepEqual(readdirSync(dir).sort(), ['new.upload', 'other.txt']);
    assert.equal(await removeOrphanedSpoolFiles(path.join(dir, 'missing'), 1), 0);
  });
});
