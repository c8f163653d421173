import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import S3rver from 's3rver';
import { S3MediaStore } from '../../src/platform/media-store/s3-media-store.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { fixture, multipartBody } from './media-helpers.js';

describe('media library on an S3-compatible bucket (s3rver)', () => {
  let dir: string;
  let server: S3rver;
  let endpoint: string;
  let ctx: TestContext;
  let bucket: S3MediaStore;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;
  const s3Env = () => ({
    SERVICE_MEDIA_S3_BUCKET: 'media',
    SERVICE_MEDIA_S3_ENDPOINT: endpoint,
    SERVICE_MEDIA_S3_ACCESS_KEY_ID: 'S3RVER',
    SERVICE_MEDIA_S3_SECRET_ACCESS_KEY: 'S3RVER',
    SERVICE_MEDIA_S3_PREFIX: 'svc/',
  });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'media-s3-app-'));
    server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: join(dir, 'bucket'),
      configureBuckets: [{ name: 'media', configs: [] }],
    });
    endpoint = `http://127.0.0.1:${((await server.run()) as AddressInfo).port}`;
    ctx = await createTestContext({ env: s3Env() });
    org = await ctx.createOrganization();
    bucket = new S3MediaStore({
      bucket: 'media',
      region: 'us-east-1',
      endpoint,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      prefix: 'svc/',
      tempDir: join(dir, 'tmp'),
    });
  });
  after(async () => {
    await ctx.close();
    await bucket.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('uploads go to the bucket, are served with ranges through the signed URL, dedup, and are deleted by the job', async () => {
    const mp4 = fixture('sample.mp4');
    const { body, contentType } = multipartBody([{ name: 'file', value: mp4, filename: 'clip.mp4' }]);
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: { ...org.auth, 'content-type': contentType },
      payload: body,
    });
    assert.equal(created.statusCode, 201, created.body);
    const item = created.json();
    const key = `${org.organizationId}/${item.mediaLibraryItemId}.mp4`;
    assert.deepEqual(await bucket.head(key), { size: mp4.length }, 'the object is in the bucket under the prefix');
    const localMedia = await readdir(join(ctx.config.dataDir, 'media')).catch(() => []);
    assert.deepEqual(
      localMedia.filter((name) => name !== '.tmp'),
      [],
      'nothing but the empty spool dir on local disk',
    );
    assert.deepEqual(await readdir(join(ctx.config.dataDir, 'media', '.tmp')), []);

    const u = new URL(item.publicUrl);
    const full = await ctx.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
    assert.equal(full.statusCode, 200);
    assert.equal(full.headers['content-type'], 'video/mp4');
    assert.deepEqual(full.rawPayload, mp4);
    const part = await ctx.app.inject({ method: 'GET', url: `${u.pathname}${u.search}`, headers: { range: 'bytes=4-11' } });
    assert.equal(part.statusCode, 206);
    assert.equal(part.headers['content-range'], `bytes 4-11/${mp4.length}`);
    assert.equal(part.rawPayload.toString('latin1'), 'ftypisom');

    const again = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: org.auth,
      payload: { dataBase64: mp4.toString('base64') },
    });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().mediaLibraryItemId, item.mediaLibraryItemId);

    const del = await ctx.app.inject({ method: 'DELETE', url: `/v1/media/${item.mediaLibraryItemId}`, headers: org.auth });
    assert.equal(del.statusCode, 202);
    await ctx.startWorker();
    const end = Date.now() + 8000;
    while ((await bucket.head(key)) !== null && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await bucket.head(key), null, 'the object was removed from the bucket');
    const endRow = Date.now() + 4000;
    let status = 0;
    while (Date.now() < endRow) {
      status = (await ctx.app.inject({ method: 'GET', url: `/v1/media/${item.mediaLibraryItemId}`, headers: org.auth })).statusCode;
      if (status === 404) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 404, 'then the row');
  });

  it('storage readiness asks the bucket', async () => {
    const ok = await ctx.app.inject({ method: 'GET', url: '/v1/health/storage' });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json().mediaStorage, { configured: true, backend: 's3', ok: true });
    const down = await createTestContext({ database: ctx.database, env: { ...s3Env(), SERVICE_MEDIA_S3_ENDPOINT: 'http://127.0.0.1:9' } });
    try {
      const res = await down.app.inject({ method: 'GET', url: '/v1/health/storage' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().ok, false);
      assert.equal(res.json().mediaStorage.configured, true);
      assert.equal(res.json().mediaStorage.backend, 's3');
      assert.equal(res.json().mediaStorage.ok, false);
      assert.doesNotMatch(res.body, /S3RVER/);
    } finally {
      await down.close();
    }
  });

  it('with a public bucket base, publicUrl points at the bucket object', async () => {
    const pub = await createTestContext({
      database: ctx.database,
      env: { ...s3Env(), SERVICE_MEDIA_S3_PUBLIC_BASE_URL: 'https://cdn.example.test/media' },
    });
    try {
      const o = await pub.createOrganization();
      const res = await pub.app.inject({
        method: 'POST',
        url: '/v1/media',
        headers: o.auth,
        payload: { dataBase64: fixture('sample.png').toString('base64') },
      });
      assert.equal(res.statusCode, 201);
      const item = res.json();
      assert.equal(item.publicUrl, `https://cdn.example.test/media/svc/${o.organizationId}/${item.mediaLibraryItemId}.png`);
    } finally {
      await pub.close();
    }
  });
});
