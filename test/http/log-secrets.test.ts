/**
 * Request logs at the production configuration: a run that creates credentials, signed media URLs and
 * OAuth parameters, then greps everything logged for each secret it created.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { redactUrl } from '../../src/http/input-guards.js';
import { fixture } from '../media/media-helpers.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('secrets never reach the request logs', () => {
  let ctx: TestContext;
  let app: FastifyInstance;
  const lines: string[] = [];

  before(async () => {
    ctx = await createTestContext();
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

    const logged = lines.join('');
    assert.ok(logged.includes('/v1/media/'), 'the run was logged');
    for (const secret of secrets) assert.ok(!logged.includes(secret), `a secret was logged: ${secret.slice(0, 6)}...`);
  });
});
