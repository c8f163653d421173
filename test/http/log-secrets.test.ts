/**
 * Request logs at the production configuration: a run that creates credentials, signed media URLs,
 * OAuth parameters and sandbox token exchanges, then greps everything logged (the request log, lines
 * the service writes itself, the simulators' request ledger) for each secret it created.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { redactUrl } from '../../src/http/input-guards.js';
import { redactingLogOptions, redactText } from '../../src/platform/logging/redact.js';
import { GRAPH_API_VERSION } from '../../src/providers/meta-shared/meta-api-version.js';
import { fixture } from '../media/media-helpers.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('secrets never reach the request logs', () => {
  let ctx: TestContext;
  let app: FastifyInstance;
  const lines: string[] = [];

  before(async () => {
    ctx = await createTestContext({ env: { SERVICE_PROVIDER_MODE: 'sandbox' } });
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    app = await buildApp(ctx.root, { logger: { level: 'trace', stream } });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await ctx.close();
  });

  it('redactUrl keeps names and replaces secret values', () => {
    assert.equal(
      redactUrl('/v1/x/content?org=org_1&expires=1&signature=abc&access_token=t&Client_Secret=s&state=st&code=c&page=2'),
      '/v1/x/content?org=org_1&expires=1&signature=[redacted]&access_token=[redacted]&Client_Secret=[redacted]&state=[redacted]&code=[redacted]&page=2',
    );
    assert.equal(redactUrl('/v1/brands'), '/v1/brands');
    // any name that carries token, secret, code, key, signature or password, whatever its case
    assert.equal(
      redactUrl(
        '/x?fb_exchange_token=a&ig_refresh_token=b&X-Amz-Signature=c&X-Amz-Credential=d&apiKey=e&user_password=f&authCode=g&hub.verify_token=h&limit=5#frag',
      ),
      '/x?fb_exchange_token=[redacted]&ig_refresh_token=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&apiKey=[redacted]&user_password=[redacted]&authCode=[redacted]&hub.verify_token=[redacted]&limit=5#frag',
    );
    assert.equal(redactUrl('/x?fb%5Fexchange%5Ftoken=a&q=1'), '/x?fb%5Fexchange%5Ftoken=[redacted]&q=1', 'an encoded name too');
  });

  it('redactText redacts URLs inside any text: messages, JSON log lines', () => {
    assert.equal(
      redactText('{"msg":"GET https://graph.example/v1/oauth/access_token?client_id=1&client_secret=s3&fb_exchange_token=t0k failed"}'),
      '{"msg":"GET https://graph.example/v1/oauth/access_token?client_id=1&client_secret=[redacted]&fb_exchange_token=[redacted] failed"}',
    );
    assert.equal(redactText('no url here, a=b'), 'no url here, a=b');
  });

  it('every logger writes through the redaction (the worker and CLI use the same options)', () => {
    const written: string[] = [];
    const logger = pino(
      { level: 'info', ...redactingLogOptions() },
      new Writable({
        write(chunk, _enc, cb) {
          written.push(chunk.toString());
          cb();
        },
      }),
    );
    logger.warn({ err: new Error('upstream refused https://api.example/x?access_token=worker-secret-1') }, 'job failed');
    logger.info({ url: 'https://cdn.example/a.mp4?X-Amz-Signature=worker-secret-2&x=1' }, 'fetching');
    const text = written.join('');
    assert.match(text, /job failed/);
    assert.ok(!text.includes('worker-secret-1') && !text.includes('worker-secret-2'), text);
  });

  it('a run with API keys, signed media URLs and OAuth parameters logs none of them', async () => {
    const org = await ctx.createOrganization();
    const secrets: string[] = [org.apiKey];
    const upload = await app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: org.auth,
      payload: { dataBase64: fixture('sample.png').toString('base64') },
    });
    assert.equal(upload.statusCode, 201, upload.body);
    const publicUrl = new URL(upload.json().publicUrl as string);
    const signature = publicUrl.searchParams.get('signature')!;
    secrets.push(signature);
    const content = await app.inject({ url: `${publicUrl.pathname}${publicUrl.search}` });
    assert.equal(content.statusCode, 200);

    const oauth = {
      code: 'oauth-code-5f1e2d3c4b5a',
      state: 'oauth-state-9a8b7c6d5e4f',
      access_token: 'at-1a2b3c4d5e6f',
      client_secret: 'cs-6f5e4d3c2b1a',
    };
    secrets.push(...Object.values(oauth));
    const qs = new URLSearchParams(oauth).toString();
    await app.inject({ url: `/v1/channel-accounts/oauth/callback/x?${qs}` });
    await app.inject({ url: `/v1/brands?${qs}`, headers: org.auth });
    await app.inject({ url: `/v1/nope?${qs}` });

    // the sandbox simulators are served by the same app: a long-lived token exchange carries tokens
    const exchange = {
      grant_type: 'fb_exchange_token',
      client_id: 'sandbox-meta-app',
      client_secret: 'fb-app-secret-77aa88bb',
      fb_exchange_token: 'fb-short-token-11cc22dd',
    };
    secrets.push(exchange.client_secret, exchange.fb_exchange_token);
    await app.inject({ url: `/sandbox/meta/facebook/graph/${GRAPH_API_VERSION}/oauth/access_token?${new URLSearchParams(exchange)}` });
    // and a line the service writes itself about an outbound call (an error message with its URL)
    app.log.error({ err: new Error('GET https://graph.example/me?access_token=outbound-token-33ee') }, 'outbound call failed');
    secrets.push('outbound-token-33ee');

    const logged = lines.join('');
    assert.ok(logged.includes('/v1/media/'), 'the run was logged');
    assert.ok(logged.includes('fb_exchange_token=[redacted]'), 'the sandbox exchange was logged');
    assert.ok(logged.includes('outbound call failed'));
    for (const secret of secrets) assert.ok(!logged.includes(secret), `a secret was logged: ${secret.slice(0, 6)}...`);
    // nor kept in the simulators' request ledger
    const ledger = JSON.stringify(ctx.root.sandbox?.ledgers.meta.requests ?? []);
    assert.ok(ledger.includes('oauth/access_token'), 'the simulator recorded the exchange');
    for (const secret of secrets) assert.ok(!ledger.includes(secret), `a secret was kept in the ledger: ${secret.slice(0, 6)}...`);
  });
});
