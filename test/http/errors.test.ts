import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { buildApp } from '../../src/app.js';
import { ERROR_CATALOG } from '../../src/platform/errors.js';
import { createTestContext, type TestContext } from '../support/harness.js';

/** Every code of the specification's error table, with its status. */
const SPEC_CODES: Record<number, string[]> = {
  400: [
    'invalid_request',
    'invalid_oauth_token_request',
    'invalid_public_oauth_authorize_request',
    'oauth_redirect_uri_not_registered',
    'oauth_authorization_code_invalid',
    'oauth_refresh_token_invalid',
    'invalid_public_publish_plan_request',
    'invalid_public_publish_job_request',
    'invalid_public_publish_job_query',
    'invalid_public_publish_enqueue_request',
    'invalid_public_publish_slot_query',
    'invalid_public_publish_schedule_request',
    'invalid_public_publish_cancel_request',
    'invalid_public_publish_url_reconciliation_request',
    'invalid_public_analytics_snapshot_query',
    'invalid_public_brand_query',
    'invalid_public_channel_account_query',
    'invalid_public_channel_connect_url_request',
    'channel_oauth_redirect_uri_forbidden',
    'invalid_public_media_upload_request',
    'invalid_multipart_media_upload',
    'multipart_media_file_required',
    'media_file_too_large',
    'invalid_public_comment_reply_draft_request',
    'invalid_public_social_comment_reply_request',
    'invalid_public_social_comment_reply_query',
    'invalid_public_webhook_endpoint_query',
    'invalid_public_webhook_endpoint_create_request',
    'invalid_public_webhook_endpoint_update_request',
    'invalid_public_webhook_endpoint_delete_request',
    'webhook_url_invalid',
    'invalid_public_automation_source_query',
    'invalid_public_automation_source_create_request',
    'invalid_public_automation_source_update_request',
    'invalid_public_automation_source_delete_request',
    'invalid_public_automation_run_query',
    'invalid_public_automation_run_create_request',
    'invalid_public_automation_run_record_request',
    'invalid_public_api_rate_limit_store',
    'database_url_required',
    'redis_url_required',
    'oauth_client_secret_unavailable',
    'channel_oauth_config_missing',
    'channel_oauth_config_invalid',
    'oauth_authorization_code_consumed',
    'oauth_refresh_token_consumed',
  ],
  401: ['public_api_token_required', 'public_api_token_forbidden', 'invalid_client'],
  403: [
    'public_api_disabled',
    'public_oauth_disabled',
    'publish_job_write_disabled',
    'publish_enqueue_disabled',
    'publish_schedule_write_disabled',
    'publish_cancel_write_disabled',
    'media_upload_write_disabled',
    'provider_comment_reply_disabled',
    'social_comment_write_disabled',
    'publish_url_reconciliation_disabled',
    'webhook_write_disabled',
    'automation_write_disabled',
  ],
  404: [
    'oauth_app_not_found',
    'public_publish_job_not_found',
    'social_comment_not_found',
    'webhook_endpoint_not_found',
    'automation_source_not_found',
    'automation_source_not_runnable',
    'automation_run_not_found',
  ],
  409: ['automation_run_invalid_transition'],
  421: ['request_origin_not_allowed'],
  422: ['publish_plan_validation_failed', 'provider_comment_reply_unsupported'],
  429: ['public_api_rate_limited'],
  500: [
    'internal_server_error',
    'oauth_authorization_write_failed',
    'oauth_authorization_code_write_failed',
    'oauth_access_token_write_failed',
    'oauth_refresh_token_write_failed',
    'webhook_endpoint_create_failed',
    'automation_source_create_failed',
  ],
};

describe('error catalog', () => {
  it('holds every code of the specification with its status', () => {
    for (const [status, codes] of Object.entries(SPEC_CODES)) {
      for (const code of codes) {
        const entry = (ERROR_CATALOG as Record<string, { status: number }>)[code];
        assert.ok(entry, `${code} missing`);
        assert.equal(entry.status, Number(status), code);
      }
    }
  });
});

describe('error envelope', () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;
  before(async () => {
    ctx = await createTestContext({ env: { SERVICE_BODY_LIMIT_BYTES: '2048' } });
    org = await ctx.createOrganization();
  });
  after(() => ctx.close());

  const isErrorResponse = (body: Record<string, unknown>, code: string) => {
    assert.equal(body.error, code);
    assert.equal(typeof body.message, 'string');
    assert.ok((body.message as string).length > 0);
    assert.match(String(body.requestId), /^req_/);
  };

  it('unknown route: 404 not_found', async () => {
    const res = await ctx.app.inject({ url: '/v1/nope' });
    assert.equal(res.statusCode, 404);
    isErrorResponse(res.json(), 'not_found');
  });

  it('wrong method: 405 method_not_allowed with Allow', async () => {
    const res = await ctx.app.inject({ method: 'DELETE', url: '/v1/health/live' });
    assert.equal(res.statusCode, 405);
    assert.match(String(res.headers.allow), /GET/);
    isErrorResponse(res.json(), 'method_not_allowed');
  });

  it('malformed JSON and oversized bodies', async () => {
    const bad = await ctx.app.inject({
      method: 'POST',
      url: '/v1/publish/plans/preview',
      headers: { ...org.auth, 'content-type': 'application/json' },
      payload: '{"brandId":',
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().fields[0].source, 'body');
    const big = await ctx.app.inject({
      method: 'POST',
      url: '/v1/publish/plans/preview',
      headers: { ...org.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ text: 'x'.repeat(5000) }),
    });
    assert.equal(big.statusCode, 413);
    isErrorResponse(big.json(), 'payload_too_large');
  });

  it('keeps a valid caller-supplied x-request-id and echoes it', async () => {
    const res = await ctx.app.inject({ url: '/v1/brands', headers: { 'x-request-id': 'trace-123' } });
    assert.equal(res.headers['x-request-id'], 'trace-123');
    assert.equal(res.json().requestId, 'trace-123');
    const weird = await ctx.app.inject({ url: '/v1/brands', headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(String(weird.headers['x-request-id']), /^req_/);
  });

  it('an unexpected exception answers 500 internal_server_error without internals', async () => {
    const app = await buildApp(ctx.root, { logger: false });
    app.get('/v1/test-boom', async () => {
      throw new Error('secret internal detail at db.ts:42');
    });
    await app.ready();
    const res = await app.inject({ url: '/v1/test-boom' });
    assert.equal(res.statusCode, 500);
    isErrorResponse(res.json(), 'internal_server_error');
    assert.doesNotMatch(res.body, /secret|db\.ts/);
    await app.close();
  });

  it('never answers 500 to malformed queries, paths and bodies (property test)', async () => {
    const urls = ['/v1/brands', '/v1/brands/brd_x', '/v1/health/live'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...urls),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String)), { maxKeys: 4 }),
        async (url, query) => {
          const qs = new URLSearchParams(query).toString();
          const res = await ctx.app.inject({ url: `${url}?${qs}`, headers: org.auth });
          return res.statusCode < 500;
        },
      ),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.json(), fc.string({ maxLength: 200 })),
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'),
        async (payload, type) => {
          const res = await ctx.app.inject({
            method: 'POST',
            url: '/v1/publish/plans/preview',
            headers: { ...org.auth, 'content-type': type },
            payload,
          });
          return res.statusCode < 500 && typeof res.json().error === 'string';
        },
      ),
      { numRuns: 150 },
    );
  });
});
