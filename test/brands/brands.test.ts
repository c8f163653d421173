import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('brands', () => {
  let ctx: TestContext;
  let a: Awaited<ReturnType<TestContext['createOrganization']>>;
  let b: Awaited<ReturnType<TestContext['createOrganization']>>;
  const brandIds: string[] = [];

  before(async () => {
    ctx = await createTestContext();
    a = await ctx.createOrganization({ name: 'A' });
    b = await ctx.createOrganization({ name: 'B' });
    for (const name of ['Alpha', 'Beta', 'Gamma'])
      brandIds.push((await ctx.createBrand(a.organizationId, name, { timezone: 'Europe/Berlin' })).brandId);
    await ctx.createBrand(b.organizationId, 'Other');
    const { BrandsService } = await import('../../src/modules/brands/brands.service.js');
    await new BrandsService(ctx.database.db).createProduct(
      a.organizationId,
      brandIds[0]!,
      { name: 'Red Shoe', productUrl: 'https://shop.test/red', storeProductId: 'sku-1' },
      new Date(),
    );
  });
  after(() => ctx.close());

  it("lists only the principal organization's brands, in creation order, with exact fields", async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/brands', headers: a.auth });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(
      body.data.map((x: { name: string }) => x.name),
      ['Alpha', 'Beta', 'Gamma'],
    );
    assert.equal(body.nextCursor, null);
    const alpha = body.data[0];
    assert.deepEqual(Object.keys(alpha).sort(), [
      'brandId',
      'createdAt',
      'name',
      'organizationId',
      'productCount',
      'slug',
      'timezone',
      'updatedAt',
    ]);
    assert.equal(alpha.productCount, 1);
    assert.equal(alpha.slug, 'alpha');
    assert.equal(alpha.timezone, 'Europe/Berlin');
    assert.equal(alpha.organizationId, a.organizationId);
  });

  it('paginates with an opaque cursor and refuses a cursor reused with other filters', async () => {
    const p1 = (await ctx.app.inject({ method: 'GET', url: '/v1/brands?limit=2', headers: a.auth })).json();
    assert.equal(p1.data.length, 2);
    assert.ok(p1.nextCursor);
    const p2 = (await ctx.app.inject({ method: 'GET', url: `/v1/brands?limit=2&cursor=${p1.nextCursor}`, headers: a.auth })).json();
    assert.deepEqual(
      p2.data.map((x: { name: string }) => x.name),
      ['Gamma'],
    );
    assert.equal(p2.nextCursor, null);
    const bad = await ctx.app.inject({ method: 'GET', url: `/v1/brands?limit=2&slug=beta&cursor=${p1.nextCursor}`, headers: a.auth });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, 'invalid_public_brand_query');
    assert.deepEqual(bad.json().fields[0], { path: ['cursor'], source: 'query' });
  });

  it('filters by slug and embeds products on request', async () => {
    const res = (await ctx.app.inject({ method: 'GET', url: '/v1/brands?slug=alpha&includeProducts=true', headers: a.auth })).json();
    assert.equal(res.data.length, 1);
    assert.equal(res.data[0].products.length, 1);
    const p = res.data[0].products[0];
    assert.deepEqual(Object.keys(p).sort(), [
      'brandId',
      'createdAt',
      'name',
      'productId',
      'productUrl',
      'slug',
      'storeProductId',
      'updatedAt',
    ]);
    assert.equal(p.storeProductId, 'sku-1');
  });

  it('answers invalid_public_brand_query with fields for bad query values', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'includeProducts=maybe', 'unknown=1', 'slug=']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/v1/brands?${q}`, headers: a.auth });
      assert.equal(res.statusCode, 400, q);
      const body = res.json();
      assert.equal(body.error, 'invalid_public_brand_query', q);
      assert.equal(body.fields[0].source, 'query', q);
      assert.equal(body.requestId, res.headers['x-request-id']);
    }
  });

  it("gets one brand with products; another organization's brand is 404", async () => {
    const own = await ctx.app.inject({ method: 'GET', url: `/v1/brands/${brandIds[0]}`, headers: a.auth });
    assert.equal(own.statusCode, 200);
    assert.equal(own.json().products.length, 1);
    const foreign = await ctx.app.inject({ method: 'GET', url: `/v1/brands/${brandIds[0]}`, headers: b.auth });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error, 'brand_not_found');
  });
});
