/**
 * Feature gates on every path that queues or schedules, and one rule for dry runs: a dry run writes
 * nothing and passes every write gate.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixture } from '../media/media-helpers.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('gates on every queue and schedule path', () => {
  let ctx: TestContext;
  let auth: Record<string, string>;
  let brandId: string;

  before(async () => {
    ctx = await createTestContext({
      env: {
        SERVICE_PUBLISH_SCHEDULE_WRITE_ENABLED: 'false',
        SERVICE_PUBLISH_ENQUEUE_ENABLED: 'false',
        SERVICE_MEDIA_UPLOAD_WRITE_ENABLED: 'false',
      },
    });
    const org = await ctx.createOrganization();
    auth = org.auth;
    ({ brandId } = await ctx.createBrand(org.organizationId, 'Gates'));
  });
  after(() => ctx.close());

  const post = (url: string, payload: unknown) => ctx.app.inject({ method: 'POST', url, headers: auth, payload: payload as object });
  const scheduleAt = () => new Date(Date.now() + 86_400_000).toISOString();

  for (const url of ['/v1/agent/publish', '/v1/publish/jobs']) {
    it(`${url}: a plan with scheduleAt (dryRun false, enqueue false) needs the schedule gate`, async () => {
      const res = await post(url, { plan: { brandId, text: 'later', scheduleAt: scheduleAt() }, dryRun: false, enqueue: false });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error, 'publish_schedule_write_disabled');
    });

    it(`${url}: enqueue true needs the enqueue gate`, async () => {
      const res = await post(url, { plan: { brandId, text: 'now' }, dryRun: false, enqueue: true });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error, 'publish_enqueue_disabled');
    });

    it(`${url}: a dry run passes the gates`, async () => {
      const res = await post(url, { plan: { brandId, text: 'later', scheduleAt: scheduleAt() }, dryRun: true, enqueue: true });
      assert.notEqual(res.statusCode, 403, res.body);
    });
  }

  it('a media import dry run passes the upload gate; the import itself does not', async () => {
    const dry = await post('/v1/media/import', { url: 'http://127.0.0.1/a.png', dryRun: true });
    assert.notEqual(dry.json().error, 'media_upload_write_disabled', dry.body);
    const real = await post('/v1/media/import', { url: 'http://127.0.0.1/a.png', dryRun: false });
    assert.equal(real.statusCode, 403);
    assert.equal(real.json().error, 'media_upload_write_disabled');
  });
});

describe("another organization's ids answer the route's 404, like made-up ids", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it('media upload and import bodies, slots queries', async () => {
    const mine = await ctx.createOrganization();
    const theirs = await ctx.createOrganization();
    const { brandId: theirBrand } = await ctx.createBrand(theirs.organizationId, 'Theirs');
    const madeUpBrand = 'brd_01J0000000000000000000000Z';
    const png = fixture('sample.png').toString('base64');
    const answers = async (brandId: string, organizationId?: string) => {
      const upload = await ctx.app.inject({
        method: 'POST',
        url: '/v1/media',
        headers: mine.auth,
        payload: { dataBase64: png, brandId, ...(organizationId ? { organizationId } : {}) },
      });
      const slots = await ctx.app.inject({ url: `/v1/publish/slots?brandId=${brandId}`, headers: mine.auth });
      return [upload, slots].map((r) => ({
        status: r.statusCode,
        error: r.json().error,
        message: r.json().message.replace(brandId, '<id>'),
      }));
    };
    const foreign = await answers(theirBrand);
    const madeUp = await answers(madeUpBrand);
    assert.deepEqual(foreign, madeUp);
    assert.deepEqual(
      foreign.map((a) => [a.status, a.error]),
      [
        [404, 'brand_not_found'],
        [404, 'brand_not_found'],
      ],
    );
    const otherOrg = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media/import',
      headers: mine.auth,
      payload: { url: 'https://example.com/a.png', organizationId: theirs.organizationId },
    });
    assert.equal(otherOrg.statusCode, 404);
    assert.equal(otherOrg.json().error, 'organization_not_found');
  });
});
