/**
 * Validation errors across routes: the operation's own invalid_* code, one `fields` entry per problem
 * (unions reported once), each naming what is allowed; body, query and path parameters alike.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { buildApp } from '../../src/app.js';
import { createTestContext, type TestContext } from '../support/harness.js';

type Field = { path: string[]; source: string; message: string; allowed?: unknown[] };

describe('validation errors name what is allowed, once per problem, with the route code', () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;
  let brandId: string;
  before(async () => {
    ctx = await createTestContext({ checkOpenApi: true });
    org = await ctx.createOrganization();
    brandId = (await ctx.createBrand(org.organizationId, 'Fields')).brandId;
  });
  after(() => ctx.close());

  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) => {
    const res = await ctx.app.inject({ method, url, headers: org.auth, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: res.statusCode, body: res.json() as { error: string; message: string; fields?: Field[] } };
  };
  const field = (fields: Field[] | undefined, path: string) => fields?.find((f) => f.path.join('.') === path);

  it('query: GET /v1/media?kind=pdf answers the media query code with the allowed kinds', async () => {
    const r = await call('GET', '/v1/media?kind=pdf');
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'invalid_public_media_query');
    assert.deepEqual(r.body.fields, [
      { path: ['kind'], source: 'query', message: 'must be one of: image, video, gif', allowed: ['image', 'video', 'gif'] },
    ]);
    assert.match(r.body.message, /kind: must be one of: image, video, gif/);
  });

  it('query: every bad parameter is listed once (enum, bound, unknown parameter)', async () => {
    const r = await call('GET', '/v1/publish/jobs?status=nope&limit=500&colour=red');
    assert.equal(r.body.error, 'invalid_public_publish_job_query');
    assert.equal(r.body.fields?.length, 3, JSON.stringify(r.body.fields));
    assert.ok(field(r.body.fields, 'status')?.allowed?.includes('published'));
    assert.equal(field(r.body.fields, 'limit')?.message, 'must be <= 100');
    assert.deepEqual(field(r.body.fields, 'colour')?.allowed, ['brandId', 'status', 'from', 'to', 'limit', 'cursor']);
    assert.match(r.body.message, /\(and 2 more\)/);
  });

  it('path parameter: a malformed id names the id form and answers the route code', async () => {
    const job = await call('GET', '/v1/publish/jobs/abc');
    assert.equal(job.body.error, 'invalid_public_publish_job_query');
    assert.deepEqual(job.body.fields, [{ path: ['publishJobId'], source: 'params', message: 'must have the form job_<ULID>' }]);
    const media = await call('DELETE', '/v1/media/abc');
    assert.equal(media.body.error, 'invalid_public_media_delete_request');
    assert.equal(media.body.fields?.[0]?.source, 'params');
  });

  it('body: a union of plans fails once per bad field, not once per branch', async () => {
    const r = await call('POST', '/v1/publish/plans/preview', {
      brandId,
      text: 't',
      media: [{ kind: 'pdf', url: 'https://example.test/a.pdf' }],
      targets: [{ platform: 'myspace', channelAccountId: 'cha_x', colour: 'red' }],
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'invalid_public_publish_plan_request');
    assert.deepEqual(r.body.fields?.map((f) => f.path.join('.')).sort(), ['media.0.kind', 'targets.0.colour', 'targets.0.platform']);
    assert.deepEqual(field(r.body.fields, 'media.0.kind')?.allowed, ['image', 'video', 'gif']);
    assert.ok(field(r.body.fields, 'targets.0.platform')?.allowed?.includes('instagram_business'));
    assert.match(field(r.body.fields, 'targets.0.colour')?.message ?? '', /allowed: platform, channelAccountId, text, settings/);
    const missing = await call('POST', '/v1/publish/plans/preview', { text: 't' });
    assert.deepEqual(missing.body.fields, [{ path: ['brandId'], source: 'body', message: 'is required' }]);
  });

  it('body: types, date-times and nullable values name what is expected', async () => {
    const r = await call('POST', '/v1/agent/publish', {
      plan: { brandId, text: 't', scheduleAt: 'tomorrow' },
      dryRun: 'maybe',
      runAfter: 'soon',
    });
    assert.equal(r.body.error, 'invalid_public_publish_job_request');
    assert.equal(field(r.body.fields, 'dryRun')?.message, 'must be boolean');
    assert.match(field(r.body.fields, 'plan.scheduleAt')?.message ?? '', /RFC 3339 date-time/);
    assert.match(field(r.body.fields, 'runAfter')?.message ?? '', /RFC 3339 date-time/);
    // a body value is never converted: a number where text belongs is refused, naming the field
    const typed = await call('POST', '/v1/agent/publish', { plan: { brandId, text: 't' }, runAfter: 5 });
    assert.equal(typed.status, 400);
    assert.equal(field(typed.body.fields, 'runAfter')?.message, 'must be string');
    const comments = await call('GET', '/v1/social-comments?status=open');
    assert.equal(comments.body.error, 'invalid_public_social_comment_query');
    assert.deepEqual(field(comments.body.fields, 'status')?.allowed, ['needs_reply', 'replied', 'drafted']);
  });

  it('a large body still answers its first problem with the route code', async () => {
    const targets = Array.from({ length: 40_000 }, () => 1);
    const r = await call('POST', '/v1/publish/plans/preview', { brandId, text: 't', media: [], targets });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'invalid_public_publish_plan_request');
    assert.ok((r.body.fields?.length ?? 0) >= 1 && (r.body.fields?.length ?? 0) <= 50);
  });

  it('a documented route that takes input cannot be registered without its own validation code', async () => {
    const app = await buildApp(ctx.root, { logger: false });
    try {
      await assert.rejects(async () => {
        app.post('/v1/test-no-code', { schema: { body: Type.Object({ a: Type.String() }) } }, async () => ({}));
        await app.ready();
      }, /validationCode/);
    } finally {
      await app.close().catch(() => undefined);
    }
  });
});
