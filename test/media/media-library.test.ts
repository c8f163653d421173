import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { fixture } from './media-helpers.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;

describe('media library: list, read, content, signed URLs, delete, isolation', () => {
  let ctx: TestContext;
  let a: Org;
  let b: Org;
  let brandA: string;
  const items: Record<string, { mediaLibraryItemId: string; publicUrl: string; sha256: string; bytes: number }> = {};

  const upload = async (org: Org, file: string, brandId?: string) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: org.auth,
      payload: { dataBase64: fixture(file).toString('base64'), ...(brandId ? { brandId } : {}) },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  };
  const pathOf = (publicUrl: string) => {
    const u = new URL(publicUrl);
    return `${u.pathname}${u.search}`;
  };

  before(async () => {
    ctx = await createTestContext();
    a = await ctx.createOrganization({ name: 'A' });
    b = await ctx.createOrganization({ name: 'B' });
    brandA = (await ctx.createBrand(a.organizationId, 'Brand A')).brandId;
    items.png = await upload(a, 'sample.png', brandA);
    items.gif = await upload(a, 'sample-animated.gif', brandA);
    items.mp4 = await upload(a, 'sample.mp4');
    items.jpeg = await upload(a, 'sample.jpg');
    items.other = await upload(b, 'sample.webp');
  });
  after(() => ctx.close());

  it('lists in creation order with kind and brand filters and cursor pagination', async () => {
    const all = (await ctx.app.inject({ method: 'GET', url: '/v1/media', headers: a.auth })).json();
    assert.deepEqual(
      all.data.map((x: { mediaLibraryItemId: string }) => x.mediaLibraryItemId),
      [items.png, items.gif, items.mp4, items.jpeg].map((x) => x?.mediaLibraryItemId),
    );
    assert.equal(all.nextCursor, null);
    const gifs = (await ctx.app.inject({ method: 'GET', url: '/v1/media?kind=gif', headers: a.auth })).json();
    assert.deepEqual(
      gifs.data.map((x: { kind: string }) => x.kind),
      ['gif'],
    );
    const branded = (await ctx.app.inject({ method: 'GET', url: `/v1/media?brandId=${brandA}`, headers: a.auth })).json();
    assert.equal(branded.data.length, 2);
    const p1 = (await ctx.app.inject({ method: 'GET', url: '/v1/media?limit=3', headers: a.auth })).json();
    assert.equal(p1.data.length, 3);
    const p2 = (await ctx.app.inject({ method: 'GET', url: `/v1/media?limit=3&cursor=${p1.nextCursor}`, headers: a.auth })).json();
    assert.deepEqual(
      p2.data.map((x: { mediaLibraryItemId: string }) => x.mediaLibraryItemId),
      [items.jpeg?.mediaLibraryItemId],
    );
    assert.equal(p2.nextCursor, null);
    const mixed = await ctx.app.inject({ method: 'GET', url: `/v1/media?limit=3&kind=gif&cursor=${p1.nextCursor}`, headers: a.auth });
    assert.equal(mixed.statusCode, 400);
    const badKind = await ctx.app.inject({ method: 'GET', url: '/v1/media?kind=audio', headers: a.auth });
    assert.equal(badKind.statusCode, 400);
    assert.equal(badKind.json().fields[0].source, 'query');
  });

  it('another organization sees 404 media_library_item_not_found for get, content and delete, and never lists it', async () => {
    const id = items.png?.mediaLibraryItemId;
    for (const [method, url] of [
      ['GET', `/v1/media/${id}`],
      ['GET', `/v1/media/${id}/content`],
      ['DELETE', `/v1/media/${id}`],
    ] as const) {
      const res = await ctx.app.inject({ method, url, headers: b.auth });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.equal(res.json().error, 'media_library_item_not_found');
    }
    const listB = (await ctx.app.inject({ method: 'GET', url: '/v1/media', headers: b.auth })).json();
    assert.deepEqual(
      listB.data.map((x: { mediaLibraryItemId: string }) => x.mediaLibraryItemId),
      [items.other?.mediaLibraryItemId],
    );
    // a signed URL of A's item cannot be re-pointed at B's organization
    const forged = pathOf(items.png?.publicUrl as string).replace(a.organizationId, b.organizationId);
    assert.equal((await ctx.app.inject({ method: 'GET', url: forged })).statusCode, 401);
  });

  it('serves content with the sniffed type, ETag, long cache headers and byte ranges', async () => {
    const data = fixture('sample.mp4');
    const id = items.mp4?.mediaLibraryItemId;
    const full = await ctx.app.inject({ method: 'GET', url: `/v1/media/${id}/content`, headers: a.auth });
    assert.equal(full.statusCode, 200);
    assert.equal(full.headers['content-type'], 'video/mp4');
    assert.equal(full.headers['content-length'], String(data.length));
    assert.equal(full.headers.etag, `"${items.mp4?.sha256}"`);
    assert.equal(full.headers['accept-ranges'], 'bytes');
    assert.equal(full.headers['cache-control'], 'private, max-age=31536000, immutable');
    assert.deepEqual(full.rawPayload, data);

    const cases: Array<[string, number, number]> = [
      ['bytes=0-99', 0, 99],
      ['bytes=100-', 100, data.length - 1],
      ['bytes=-50', data.length - 50, data.length - 1],
      [`bytes=8000-${data.length + 500}`, 8000, data.length - 1],
    ];
    for (const [range, start, end] of cases) {
      const res = await ctx.app.inject({ method: 'GET', url: `/v1/media/${id}/content`, headers: { ...a.auth, range } });
      assert.equal(res.statusCode, 206, range);
      assert.equal(res.headers['content-range'], `bytes ${start}-${end}/${data.length}`);
      assert.equal(res.headers['content-length'], String(end - start + 1));
      assert.deepEqual(res.rawPayload, data.subarray(start, end + 1), range);
    }
    const unsatisfiable = await ctx.app.inject({
      method: 'GET',
      url: `/v1/media/${id}/content`,
      headers: { ...a.auth, range: `bytes=${data.length}-` },
    });
    assert.equal(unsatisfiable.statusCode, 416);
    assert.equal(unsatisfiable.json().error, 'media_range_not_satisfiable');
    assert.equal(unsatisfiable.headers['content-range'], `bytes */${data.length}`);
    const multi = await ctx.app.inject({ method: 'GET', url: `/v1/media/${id}/content`, headers: { ...a.auth, range: 'bytes=0-1,5-6' } });
    assert.equal(multi.statusCode, 200, 'multiple ranges are answered with the whole content');
    const staleIfRange = await ctx.app.inject({
      method: 'GET',
      url: `/v1/media/${id}/content`,
      headers: { ...a.auth, range: 'bytes=0-1', 'if-range': '"old"' },
    });
    assert.equal(staleIfRange.statusCode, 200);
    const notModified = await ctx.app.inject({
      method: 'GET',
      url: `/v1/media/${id}/content`,
      headers: { ...a.auth, 'if-none-match': full.headers.etag as string },
    });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.rawPayload.length, 0);
    const head = await ctx.app.inject({ method: 'HEAD', url: `/v1/media/${id}/content`, headers: a.auth });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-length'], String(data.length));
    assert.equal(head.headers['content-type'], 'video/mp4');
    assert.equal(head.rawPayload.length, 0);
    const headRange = await ctx.app.inject({
      method: 'HEAD',
      url: `/v1/media/${id}/content`,
      headers: { ...a.auth, range: 'bytes=10-19' },
    });
    assert.equal(headRange.statusCode, 206);
    assert.equal(headRange.headers['content-length'], '10');
    assert.equal(headRange.headers['content-range'], `bytes 10-19/${data.length}`);
  });

  it('content needs a credential with media:read or a valid signed URL', async () => {
    const id = items.png?.mediaLibraryItemId;
    const anonymous = await ctx.app.inject({ method: 'GET', url: `/v1/media/${id}/content` });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().error, 'public_api_token_required');
    const writer = await ctx.createOrganization({ scopes: ['media:write'] });
    const noScope = await ctx.app.inject({ method: 'GET', url: `/v1/media/${id}/content`, headers: writer.auth });
    assert.equal(noScope.json().error, 'public_api_token_forbidden');
    const badKey = await ctx.app.inject({ method: 'GET', url: `/v1/media/${id}/content`, headers: { authorization: 'Bearer nope' } });
    assert.equal(badKey.json().error, 'public_api_token_forbidden');
  });

  it('a signed publicUrl works without credentials until it expires; tampering is refused', async () => {
    const item = items.gif as { mediaLibraryItemId: string; publicUrl: string };
    const url = new URL(item.publicUrl);
    assert.equal(url.origin, ctx.config.publicBaseUrl);
    const res = await ctx.app.inject({ method: 'GET', url: pathOf(item.publicUrl), headers: { range: 'bytes=0-5' } });
    assert.equal(res.statusCode, 206);
    assert.equal(res.rawPayload.toString('latin1'), 'GIF89a');
    assert.match(res.headers['cache-control'] as string, /^public, max-age=\d+, immutable$/);
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers['cache-control'] as string)?.[1]);
    assert.ok(
      maxAge >= ctx.config.env.SERVICE_MEDIA_SIGNED_URL_TTL_SECONDS - 5 &&
        maxAge <= ctx.config.env.SERVICE_MEDIA_SIGNED_URL_TTL_SECONDS + 3600,
    );

    const expires = Number(url.searchParams.get('expires'));
    const tampered = new URL(item.publicUrl);
    tampered.searchParams.set('expires', String(expires + 3600));
    const later = await ctx.app.inject({ method: 'GET', url: `${tampered.pathname}${tampered.search}` });
    assert.equal(later.statusCode, 401);
    assert.match(later.json().message, /signature is not valid/);
    const otherItem = pathOf(item.publicUrl).replace(item.mediaLibraryItemId, items.png?.mediaLibraryItemId as string);
    assert.equal((await ctx.app.inject({ method: 'GET', url: otherItem })).statusCode, 401);

    const now = ctx.clock.now().getTime();
    ctx.clock.set(expires * 1000 + 1000);
    try {
      const expired = await ctx.app.inject({ method: 'GET', url: pathOf(item.publicUrl) });
      assert.equal(expired.statusCode, 401);
      assert.match(expired.json().message, /expired/);
      const fresh = (await ctx.app.inject({ method: 'GET', url: `/v1/media/${item.mediaLibraryItemId}`, headers: a.auth })).json();
      assert.notEqual(fresh.publicUrl, item.publicUrl);
      assert.equal((await ctx.app.inject({ method: 'GET', url: pathOf(fresh.publicUrl) })).statusCode, 200);
    } finally {
      ctx.clock.set(now);
    }
  });

  it('delete: 202 deleting, content gone at once, a job removes the bytes and then the row', async () => {
    const item = await upload(a, 'sample.webp');
    const storedFile = join(ctx.config.dataDir, 'media', `${a.organizationId}/${item.mediaLibraryItemId}.webp`);
    assert.ok(existsSync(storedFile));
    const del = await ctx.app.inject({ method: 'DELETE', url: `/v1/media/${item.mediaLibraryItemId}`, headers: a.auth });
    assert.equal(del.statusCode, 202);
    assert.equal(del.json().lifecycleState, 'deleting');
    assert.equal(del.json().contentAvailable, false);
    assert.equal(del.json().publicUrl, null);
    const again = await ctx.app.inject({ method: 'DELETE', url: `/v1/media/${item.mediaLibraryItemId}`, headers: a.auth });
    assert.equal(again.statusCode, 202, 'deleting twice is idempotent');
    assert.equal((await ctx.app.inject({ method: 'GET', url: pathOf(item.publicUrl) })).statusCode, 404);
    const read = (await ctx.app.inject({ method: 'GET', url: `/v1/media/${item.mediaLibraryItemId}`, headers: a.auth })).json();
    assert.equal(read.lifecycleState, 'deleting');
    // the same bytes can be uploaded again while the old item is being removed
    const reupload = await upload(a, 'sample.webp');
    assert.notEqual(reupload.mediaLibraryItemId, item.mediaLibraryItemId);

    await ctx.startWorker();
    await waitFor(
      'the deleted item to be gone',
      async () =>
        (await ctx.app.inject({ method: 'GET', url: `/v1/media/${item.mediaLibraryItemId}`, headers: a.auth })).statusCode === 404,
    );
    assert.equal(existsSync(storedFile), false, 'the bytes were removed');
    const kept = await ctx.app.inject({ method: 'GET', url: `/v1/media/${reupload.mediaLibraryItemId}/content`, headers: a.auth });
    assert.equal(kept.statusCode, 200);
  });

  it('delete is refused with 409 media_item_in_use while a scheduled publish target references the item', async () => {
    const id = items.jpeg?.mediaLibraryItemId as string;
    const unregister = ctx.root.mediaReferences.subscribe(async (_db, organizationId, mediaLibraryItemId) =>
      organizationId === a.organizationId && mediaLibraryItemId === id ? [{ kind: 'publish_target', id: 'tgt_1' }] : [],
    );
    try {
      const res = await ctx.app.inject({ method: 'DELETE', url: `/v1/media/${id}`, headers: a.auth });
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().error, 'media_item_in_use');
      assert.deepEqual(res.json().references, [{ kind: 'publish_target', id: 'tgt_1' }]);
      const still = (await ctx.app.inject({ method: 'GET', url: `/v1/media/${id}`, headers: a.auth })).json();
      assert.equal(still.lifecycleState, 'active');
    } finally {
      unregister();
    }
  });

  it('storage readiness reports the disk backend', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/health/storage' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { ok: true, service: 'service-api', mediaStorage: { configured: true, backend: 'disk', ok: true } });
  });
});
