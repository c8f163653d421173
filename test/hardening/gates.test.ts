/**
 * Feature gates on every path that queues or schedules, and one rule for dry runs: a dry run writes
 * nothing and passes every write gate.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
