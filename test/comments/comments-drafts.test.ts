import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/platform/ids.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { storeComment } from './comments-helpers.js';

/** A loopback OpenAI-compatible /chat/completions: answers the queued replies in order. */
interface FakeAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
class FakeLlm {
  server!: Server;
  queue: FakeAnswer[] = [];
  seen: Array<{ url: string; authorization: string | undefined; body: Record<string, any> }> = [];
  async start(): Promise<string> {
    this.server = createServer(async (req: IncomingMessage, res) => {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      this.seen.push({ url: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(raw || '{}') });
      const a = this.queue.shift() ?? { status: 200, body: completion('Thanks! Send us a direct message and we will help.') };
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(JSON.stringify(a.body));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }
}
const completion = (content: string) => ({ choices: [{ index: 0, message: { role: 'assistant', content } }] });

describe('comment reply drafts', () => {
  const llm = new FakeLlm();
  let ctx: TestContext;
  let bare: TestContext;
  let org: { organizationId: string; auth: Record<string, string> };
  before(async () => {
    const base = await llm.start();
    ctx = await createTestContext({
      env: { SERVICE_LLM_BASE_URL: base, SERVICE_LLM_API_KEY: 'llm-test-key', SERVICE_LLM_MODEL: 'test-model' },
    });
    bare = await createTestContext();
    org = await ctx.createOrganization({ name: 'drafts' });
  });
  after(async () => {
    await ctx?.close();
    await bare?.close();
    llm.server?.close();
  });

  const post = (c: TestContext, auth: Record<string, string>, payload: object) =>
    c.app.inject({ method: 'POST', url: '/v1/social-comments/reply-drafts', headers: auth, payload });

  it('a dry run answers the prompt, the constraints and the missing settings without calling the model', async () => {
    const o = await bare.createOrganization({ name: 'no llm' });
    const res = await post(bare, o.auth, {
      platform: 'x',
      commentText: 'Does it ship to Canada?',
      brandName: 'Acme',
      productName: 'Acme Mug',
      maxCharacters: 2200,
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.mode, 'dry_run');
    assert.match(body.draft.prompt.system, /Acme/);
    assert.match(body.draft.prompt.user, /Comment: Does it ship to Canada\?/);
    assert.match(body.draft.prompt.user, /Acme Mug/);
    // X's own text limit wins over a larger maxCharacters
    assert.deepEqual(body.draft.constraints, { platform: 'x', tone: 'helpful', maxCharacters: 280 });
    assert.deepEqual(body.requiredEnv, ['SERVICE_LLM_BASE_URL', 'SERVICE_LLM_API_KEY', 'SERVICE_LLM_MODEL']);
    // a live draft without the settings is refused, naming them
    const live = await post(bare, o.auth, { platform: 'x', commentText: 'hi', dryRun: false });
    assert.equal(live.statusCode, 400);
    assert.equal(live.json().error, 'invalid_public_comment_reply_draft_request');
    const bad = await post(bare, o.auth, { platform: 'x', commentText: 'hi', maxCharacters: 5 });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, 'invalid_public_comment_reply_draft_request');
  });

  it('a live draft calls the model, retries once after a 429 and keeps within maxCharacters', async () => {
    llm.seen = [];
    llm.queue = [
      { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '0' } },
      { status: 200, body: completion(`"${'This is a long answer about shipping. '.repeat(10)}"`) },
    ];
    const res = await post(ctx, org.auth, {
      platform: 'facebook_page',
      commentText: 'Do you ship abroad?',
      dryRun: false,
      maxCharacters: 80,
      tone: 'concise',
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.mode, 'drafted');
    assert.ok([...body.draft.reply].length <= 80, body.draft.reply);
    assert.ok(body.draft.reply.length > 0);
    assert.equal(llm.seen.length, 2);
    assert.equal(llm.seen[1]!.url, '/v1/chat/completions');
    assert.equal(llm.seen[1]!.authorization, 'Bearer llm-test-key');
    assert.equal(llm.seen[1]!.body.model, 'test-model');
    assert.deepEqual(
      llm.seen[1]!.body.messages.map((m: { role: string }) => m.role),
      ['system', 'user'],
    );
    // the key never appears in the answer
    assert.doesNotMatch(res.body, /llm-test-key/);
  });

  it('a second failure is an error; a 4xx is not retried', async () => {
    llm.seen = [];
    llm.queue = [
      { status: 503, body: {}, headers: { 'retry-after': '0' } },
      { status: 503, body: {} },
    ];
    const res = await post(ctx, org.auth, { platform: 'threads', commentText: 'hello', dryRun: false });
    assert.equal(res.statusCode, 502, res.body);
    assert.equal(res.json().error, 'provider_request_failed');
    assert.equal(llm.seen.length, 2);
    llm.seen = [];
    llm.queue = [{ status: 400, body: { error: { message: 'bad model' } } }];
    const four = await post(ctx, org.auth, { platform: 'threads', commentText: 'hello', dryRun: false });
    assert.equal(four.json().error, 'provider_request_failed');
    assert.equal(llm.seen.length, 1);
  });

  it('a draft for a stored comment is kept on it (status drafted); an unknown comment is 404', async () => {
    const { brandId } = await ctx.createBrand(org.organizationId, 'drafts brand');
    const id = await storeComment(
      ctx,
      { organizationId: org.organizationId, brandId, channelAccountId: newId('ca') },
      'Is the mug dishwasher safe?',
    );
    llm.queue = [{ status: 200, body: completion('Yes, it is dishwasher safe.') }];
    const res = await post(ctx, org.auth, {
      platform: 'facebook_page',
      commentText: 'Is the mug dishwasher safe?',
      socialCommentId: id,
      dryRun: false,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().socialCommentId, id);
    const got = await ctx.app.inject({ method: 'GET', url: `/v1/social-comments/${id}`, headers: org.auth });
    assert.equal(got.statusCode, 200, got.body);
    assert.equal(got.json().status, 'drafted');
    assert.equal(got.json().replyStatus, 'drafted');
    assert.equal(got.json().draft.reply, 'Yes, it is dishwasher safe.');

    const other = await ctx.createOrganization({ name: 'other' });
    const foreign = await post(ctx, other.auth, { platform: 'facebook_page', commentText: 'x', socialCommentId: id, dryRun: false });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error, 'social_comment_not_found');
  });
});
