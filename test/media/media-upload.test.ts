import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { createTestContext, type TestContext } from '../support/harness.js';
import { FIXTURES, fixture, multipartBody } from './media-helpers.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;
const MAX = 65_536;

describe('media uploads', () => {
  let ctx: TestContext;
  let a: Org;
  let brandId: string;

  before(async () => {
    ctx = await createTestContext({ overrides: { SERVICE_MEDIA_MAX_UPLOAD_BYTES: MAX } });
    a = await ctx.createOrganization({ name: 'A' });
    brandId = (await ctx.createBrand(a.organizationId, 'Brand A')).brandId;
  });
  after(() => ctx.close());

  const postJson = (payload: unknown, headers = a.auth) =>
    ctx.app.inject({ method: 'POST', url: '/v1/media', headers, payload: payload as object });
  const postMultipart = (parts: Parameters<typeof multipartBody>[0], headers = a.auth) => {
    const { body, contentType } = multipartBody(parts);
    return ctx.app.inject({ method: 'POST', url: '/v1/media', headers: { ...headers, 'content-type': contentType }, payload: body });
  };

  const expected: Record<keyof typeof FIXTURES, { kind: string; mimeType: string; metadata: Record<string, unknown> }> = {
    jpeg: { kind: 'image', mimeType: 'image/jpeg', metadata: { width: 64, height: 48 } },
    png: { kind: 'image', mimeType: 'image/png', metadata: { width: 32, height: 24 } },
    gif: { kind: 'gif', mimeType: 'image/gif', metadata: { width: 16, height: 16, frameCount: 3, animated: true } },
    webp: { kind: 'image', mimeType: 'image/webp', metadata: { width: 40, height: 30 } },
    avif: { kind: 'image', mimeType: 'image/avif', metadata: { width: 48, height: 32 } },
    mp4: {
      kind: 'video',
      mimeType: 'video/mp4',
      metadata: { width: 64, height: 48, durationSeconds: 1, codecs: ['avc1', 'mp4a'], videoCodec: 'avc1', audioCodec: 'mp4a' },
    },
  };

  for (const [type, file] of Object.entries(FIXTURES) as Array<[keyof typeof FIXTURES, string]>) {
    it(`JSON upload of ${type}: type, sha256, bytes and metadata come from the bytes`, async () => {
      const data = fixture(file);
      // a misleading data URL type must not matter
      const res = await postJson({ dataBase64: `data:text/plain;base64,${data.toString('base64')}`, brandId, altText: `alt ${type}` });
      assert.equal(res.statusCode, 201, res.body);
      const item = res.json();
      assert.deepEqual(Object.keys(item).sort(), [
        'brandId',
        'bytes',
        'contentAvailable',
        'createdAt',
        'kind',
        'lifecycleState',
        'mediaLibraryItemId',
        'metadata',
        'mimeType',
        'organizationId',
        'publicUrl',
        'sha256',
        'updatedAt',
      ]);
      assert.match(item.mediaLibraryItemId, /^med_/);
      assert.equal(item.organizationId, a.organizationId);
      assert.equal(item.brandId, brandId);
      assert.equal(item.kind, expected[type].kind);
      assert.equal(item.mimeType, expected[type].mimeType);
      assert.equal(item.sha256, createHash('sha256').update(data).digest('hex'));
      assert.equal(item.bytes, data.length);
      assert.equal(item.lifecycleState, 'active');
      assert.equal(item.contentAvailable, true);
      assert.deepEqual(item.metadata, { ...expected[type].metadata, altText: `alt ${type}` });
      assert.match(
        item.publicUrl,
        new RegExp(`/v1/media/${item.mediaLibraryItemId}/content\\?org=${a.organizationId}&expires=\\d+&signature=`),
      );
    });
  }

  it('multipart upload with fields after the file; same bytes again answer 200 with the existing item', async () => {
    const data = fixture('sample-faststart.mp4');
    const first = await postMultipart([
      { name: 'file', value: data, filename: 'clip.bin', contentType: 'image/png' },
      { name: 'brandId', value: brandId },
      { name: 'altText', value: 'a clip' },
    ]);
    assert.equal(first.statusCode, 201, first.body);
    const item = first.json();
    assert.equal(item.mimeType, 'video/mp4');
    assert.equal(item.brandId, brandId);
    assert.equal(item.metadata.altText, 'a clip');
    assert.equal(item.metadata.fileName, 'clip.bin');
    assert.equal(item.metadata.durationSeconds, 1);

    const again = await postJson({ dataBase64: data.toString('base64') });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().mediaLibraryItemId, item.mediaLibraryItemId);
    const list = (await ctx.app.inject({ method: 'GET', url: '/v1/media?kind=video', headers: a.auth })).json();
    assert.equal(list.data.filter((x: { sha256: string }) => x.sha256 === item.sha256).length, 1);
  });

  it('JSON accepts the URL-safe alphabet and line-wrapped base64', async () => {
    const gif = fixture('sample-static.gif');
    const urlSafe = await postJson({ dataBase64: gif.toString('base64url') });
    assert.equal(urlSafe.statusCode, 201, urlSafe.body);
    assert.equal(urlSafe.json().metadata.frameCount, 1);
    const wrapped = await postJson({ dataBase64: gif.toString('base64').replace(/(.{76})/g, '$1\r\n') });
    assert.equal(wrapped.statusCode, 200, 'the same bytes, so the existing item');
    assert.equal(wrapped.json().mediaLibraryItemId, urlSafe.json().mediaLibraryItemId);
    for (const bad of ['QUJDR', 'QQ==QQ==', '', 'data:;base64,']) {
      const res = await postJson({ dataBase64: bad });
      assert.equal(res.statusCode, 400, bad);
      assert.equal(res.json().error, 'invalid_public_media_upload_request');
    }
  });

  it('the same bytes in another organization are a separate item', async () => {
    const b = await ctx.createOrganization({ name: 'B' });
    const data = fixture('sample.png').toString('base64');
    const inA = await postJson({ dataBase64: data });
    const inB = await postJson({ dataBase64: data }, b.auth);
    assert.equal(inB.statusCode, 201);
    assert.notEqual(inB.json().mediaLibraryItemId, inA.json().mediaLibraryItemId);
    assert.equal(inB.json().organizationId, b.organizationId);
  });

  it('400 invalid_public_media_upload_request: bad base64, unsupported type, unknown field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ dataBase64: 'not base64 at all!!' }, /not valid base64/],
      [{ dataBase64: 'data:image/png,rawtext' }, /data URL must be base64/],
      [{ dataBase64: fixture('sample.bmp').toString('base64') }, /image\/bmp is not a supported media type/],
      [{ dataBase64: fixture('not-media.txt').toString('base64') }, /not a supported media type/],
      [{ dataBase64: fixture('sample.png').toString('base64'), extra: true }, /extra/],
      [{}, /dataBase64/],
    ];
    for (const [payload, message] of cases) {
      const res = await postJson(payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 80));
      assert.equal(res.json().error, 'invalid_public_media_upload_request');
      assert.match(`${res.json().message} ${JSON.stringify(res.json().fields ?? [])}`, message);
    }
    const unsupported = await postMultipart([{ name: 'file', value: fixture('sample.bmp'), filename: 'x.png', contentType: 'image/png' }]);
    assert.equal(unsupported.statusCode, 400);
    assert.equal(unsupported.json().error, 'invalid_public_media_upload_request');
    const foreignBrand = await postMultipart([
      { name: 'brandId', value: 'brd_nope' },
      { name: 'file', value: fixture('sample-static.gif'), filename: 'x.gif' },
    ]);
    assert.equal(foreignBrand.statusCode, 404);
    assert.equal(foreignBrand.json().error, 'brand_not_found');
  });

  it('400 invalid_multipart_media_upload: neither JSON nor multipart, or a broken multipart body', async () => {
    const plain = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: { ...a.auth, 'content-type': 'image/png' },
      payload: fixture('sample.png'),
    });
    assert.equal(plain.statusCode, 400);
    assert.equal(plain.json().error, 'invalid_multipart_media_upload');
    const noBoundary = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: { ...a.auth, 'content-type': 'multipart/form-data' },
      payload: 'x',
    });
    assert.equal(noBoundary.json().error, 'invalid_multipart_media_upload');
    const truncated = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: { ...a.auth, 'content-type': 'multipart/form-data; boundary=abc' },
      payload: '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\npartial',
    });
    assert.equal(truncated.statusCode, 400);
    assert.equal(truncated.json().error, 'invalid_multipart_media_upload');
  });

  it('400 multipart_media_file_required: no file part, an empty file, or the file under another name', async () => {
    for (const parts of [
      [{ name: 'altText', value: 'only text' }],
      [{ name: 'file', value: Buffer.alloc(0), filename: 'empty.png' }],
      [{ name: 'upload', value: fixture('sample.png'), filename: 'a.png' }],
      [{ name: 'file', value: fixture('sample.png').toString('latin1') }],
    ]) {
      const res = await postMultipart(parts);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error, 'multipart_media_file_required');
    }
  });

  it('400 media_file_too_large above SERVICE_MEDIA_MAX_UPLOAD_BYTES (JSON and multipart); exactly the maximum passes the size check', async () => {
    const big = Buffer.concat([fixture('sample.png'), Buffer.alloc(MAX)]);
    const json = await postJson({ dataBase64: big.toString('base64') });
    assert.equal(json.statusCode, 400);
    assert.equal(json.json().error, 'media_file_too_large');
    const multi = await postMultipart([{ name: 'file', value: big, filename: 'big.png' }]);
    assert.equal(multi.statusCode, 400);
    assert.equal(multi.json().error, 'media_file_too_large');
    // a PNG padded with trailing bytes up to exactly the limit is accepted (size is inclusive)
    const exact = Buffer.concat([fixture('sample.png'), Buffer.alloc(MAX - fixture('sample.png').length)]);
    const ok = await postMultipart([{ name: 'file', value: exact, filename: 'exact.png' }]);
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().bytes, MAX);
  });

  it('multipart over a real socket is cut at the limit while the client is still sending', async () => {
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { contentType } = multipartBody([]);
    const boundary = contentType.split('boundary=')[1] as string;
    let sent = 0;
    const total = 64 * 1024 * 1024;
    async function* body() {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.mp4"\r\n\r\n`);
      const chunk = Buffer.alloc(256 * 1024, 1);
      while (sent < total) {
        sent += chunk.length;
        yield chunk;
      }
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const port = (ctx.app.server.address() as AddressInfo).port;
    assert.ok(address.includes(String(port)));
    try {
      const res = await request(`http://127.0.0.1:${port}/v1/media`, {
        method: 'POST',
        headers: { ...a.auth, 'content-type': contentType },
        body: Readable.from(body()),
      });
      assert.equal(res.statusCode, 400);
      assert.equal(((await res.body.json()) as { error: string }).error, 'media_file_too_large');
    } catch (error) {
      // the server may close the socket before the client reads the answer; what matters is where it stopped
      assert.match(String((error as { code?: string }).code ?? error), /UND_ERR_SOCKET|EPIPE|ECONNRESET|other side closed/i);
    }
    assert.ok(sent < total, `the upload was cut after ${sent} of ${total} bytes`);
  });

  it('403 media_upload_write_disabled when the gate is off (upload, import and delete)', async () => {
    const off = await createTestContext({
      database: ctx.database,
      clock: ctx.clock,
      overrides: { SERVICE_MEDIA_UPLOAD_WRITE_ENABLED: false },
    });
    try {
      const o = await off.createOrganization();
      const json = await off.app.inject({
        method: 'POST',
        url: '/v1/media',
        headers: o.auth,
        payload: { dataBase64: fixture('sample.png').toString('base64') },
      });
      assert.equal(json.statusCode, 403);
      assert.equal(json.json().error, 'media_upload_write_disabled');
      const { body, contentType } = multipartBody([{ name: 'file', value: fixture('sample.png'), filename: 'a.png' }]);
      const multi = await off.app.inject({
        method: 'POST',
        url: '/v1/media',
        headers: { ...o.auth, 'content-type': contentType },
        payload: body,
      });
      assert.equal(multi.json().error, 'media_upload_write_disabled');
      const imp = await off.app.inject({
        method: 'POST',
        url: '/v1/media/import',
        headers: o.auth,
        payload: { url: 'https://example.com/a.png', dryRun: false },
      });
      assert.equal(imp.json().error, 'media_upload_write_disabled');
      const del = await off.app.inject({ method: 'DELETE', url: '/v1/media/med_01J00000000000000000000000', headers: o.auth });
      assert.equal(del.json().error, 'media_upload_write_disabled');
    } finally {
      await off.close();
    }
  });

  it('needs media:write to upload and media:read to list', async () => {
    const reader = await ctx.createOrganization({ scopes: ['media:read'] });
    const res = await postJson({ dataBase64: fixture('sample.png').toString('base64') }, reader.auth);
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error, 'public_api_token_forbidden');
    const none = await ctx.app.inject({ method: 'GET', url: '/v1/media' });
    assert.equal(none.json().error, 'public_api_token_required');
  });
});
