/**
 * @service-api/sdk against a real server in sandbox mode: typed calls, pagination, typed errors,
 * retries that honour Retry-After, and a lost answer to a publish that, retried, creates one job.
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createServiceApi, ServiceApiError, unwrap } from '../../packages/sdk/src/index.js';
import { type SandboxServer, startSandboxServer } from './sandbox-server.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Forwards to the API; `drop(n)` makes the proxy swallow the API's answer to the next n POSTs (502 instead). */
function lossyProxy(target: string) {
  let dropNext = 0;
  const seen: Array<{ method: string; path: string; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, path: req.url!, body: body.toString() });
      const drop = req.method === 'POST' && dropNext > 0 && dropNext-- > 0;
      const up = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (upRes) => {
        const parts: Buffer[] = [];
        upRes.on('data', (c: Buffer) => parts.push(c));
        upRes.on('end', () => {
          if (drop) res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
          else res.writeHead(upRes.statusCode!, upRes.headers).end(Buffer.concat(parts));
        });
      });
      up.end(body);
    });
  });
  return { server, seen, drop: (n: number) => (dropNext = n) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('@service-api/sdk', () => {
  let s: SandboxServer;
  before(async () => {
    s = await startSandboxServer();
  });
  after(() => s.close());

  it('lists every brand page by page through the async iterator and reads one typed', async () => {
    for (const name of ['Second', 'Third', 'Fourth']) await s.ctx.createBrand(s.organizationId, name);
    const api = createServiceApi({ baseUrl: s.base, token: s.token });
    const names: string[] = [];
    for await (const brand of api.paginate('/v1/brands', { query: { limit: 2 } })) names.push(brand.name);
    assert.deepEqual(names.sort(), ['Fourth', 'SDK Brand', 'Second', 'Third']);
    const brand = await unwrap(api.GET('/v1/brands/{brandId}', { params: { path: { brandId: s.brandId } } }));
    assert.equal(brand.brandId, s.brandId);
  });

  it('throws ServiceApiError with the catalog code, fields and request id', async () => {
    const api = createServiceApi({ baseUrl: s.base, token: s.token });
    await assert.rejects(unwrap(api.GET('/v1/publish/jobs', { params: { query: { limit: 500 } } })), (err: unknown) => {
      assert.ok(err instanceof ServiceApiError);
      assert.equal(err.status, 400);
      assert.equal(err.error, 'invalid_public_publish_job_query');
      assert.ok(
        err.fields.some((f) => String(f.path).includes('limit')),
        JSON.stringify(err.fields),
      );
      assert.match(err.requestId ?? '', /^req_/);
      return true;
    });
    const bad = createServiceApi({ baseUrl: s.base, token: 'sk_not_a_key' });
    await assert.rejects(unwrap(bad.GET('/v1/brands')), (err: unknown) => err instanceof ServiceApiError && err.status === 401);
  });

  it('previews a plan, sees the X length issue, fixes it, publishes and sees the job published', async () => {
    const api = createServiceApi({ baseUrl: s.base, token: s.token });
    const plan = {
      brandId: s.brandId,
      text: 'x'.repeat(300),
      media: [],
      targets: [{ platform: 'x' as const, channelAccountId: s.channelAccountId }],
    };
    const preview = await unwrap(api.POST('/v1/publish/plans/preview', { body: plan }));
    assert.equal(preview.valid, false);
    plan.text = 'Launch day: the SDK publishes this.';
    assert.equal((await unwrap(api.POST('/v1/publish/plans/preview', { body: plan }))).valid, true);
    const created = await unwrap(api.POST('/v1/agent/publish', { body: { plan, dryRun: false, enqueue: true } }));
    const jobId = (created as { publishJobId: string }).publishJobId;
    assert.ok(jobId);
    let status = '';
    for (let i = 0; i < 100 && status !== 'published'; i++) {
      const job = await unwrap(api.GET('/v1/publish/jobs/{publishJobId}', { params: { path: { publishJobId: jobId } } }));
      status = job.status;
      if (status !== 'published') await sleep(100);
    }
    assert.equal(status, 'published');
  });

  it('walks the other areas typed: channels, capabilities, media, slots, jobs, automations', async () => {
    const api = createServiceApi({ baseUrl: s.base, token: s.token });
    const channels = await unwrap(api.GET('/v1/channel-accounts', { params: { query: { platform: 'x' } } }));
    assert.deepEqual(
      channels.data.map((c) => [c.channelAccountId, c.state]),
      [[s.channelAccountId, 'connected']],
    );
    const caps = await unwrap(api.GET('/v1/providers/capabilities'));
    assert.ok(JSON.stringify(caps).includes('"x"'));
    const media: unknown[] = [];
    for await (const item of api.paginate('/v1/media', { query: { brandId: s.brandId } })) media.push(item);
    assert.deepEqual(media, []);
    const slot = await unwrap(
      api.GET('/v1/publish/slots', { params: { query: { brandId: s.brandId, channelAccountId: s.channelAccountId } } }),
    );
    assert.equal(slot.mode, 'preview');
    const jobs: string[] = [];
    for await (const job of api.paginate('/v1/publish/jobs', { query: { brandId: s.brandId, limit: 1 } })) jobs.push(job.status);
    assert.ok(jobs.length >= 1);
    const source = await unwrap(
      api.POST('/v1/automation-sources', {
        body: { brandId: s.brandId, kind: 'rss_feed', name: 'Blog', config: { feedUrl: 'https://blog.example.test/feed.xml' } },
      }),
    );
    const sources: string[] = [];
    for await (const src of api.paginate('/v1/automation-sources')) sources.push(src.automationSourceId);
    assert.deepEqual(sources, [source.automationSourceId]);
  });

  it('retries a publish whose answer was lost with the same idempotency key: one job, not two', async () => {
    const proxy = lossyProxy(s.base);
    const base = await listen(proxy.server);
    try {
      const api = createServiceApi({ baseUrl: base, token: s.token, retryBaseDelayMs: 10 });
      const before = await unwrap(api.GET('/v1/publish/jobs', { params: { query: { limit: 100 } } }));
      proxy.drop(1);
      const plan = {
        brandId: s.brandId,
        text: 'Sent once, answered twice.',
        targets: [{ platform: 'x' as const, channelAccountId: s.channelAccountId }],
      };
      const result = await unwrap(api.POST('/v1/agent/publish', { body: { plan, dryRun: false } }));
      const posts = proxy.seen.filter((r) => r.method === 'POST');
      assert.equal(posts.length, 2, 'the lost answer was retried once');
      const keys = posts.map((p) => (JSON.parse(p.body) as { idempotencyKey?: string }).idempotencyKey);
      assert.ok(keys[0]?.startsWith('sdk_'));
      assert.equal(keys[0], keys[1]);
      const after = await unwrap(api.GET('/v1/publish/jobs', { params: { query: { limit: 100 } } }));
      assert.equal(after.data.length, before.data.length + 1);
      assert.equal(after.data.filter((j) => j.publishJobId === (result as { publishJobId: string }).publishJobId).length, 1);
    } finally {
      proxy.server.close();
    }
  });

  it('waits as Retry-After says on 429 and gives up on writes it cannot repeat safely', async () => {
    let calls = 0;
    const times: number[] = [];
    const server = createServer((req, res) => {
      calls++;
      times.push(Date.now());
      if (req.url?.startsWith('/v1/brands') && calls === 1) {
        res
          .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'public_api_rate_limited', message: 'slow down' }));
        return;
      }
      if (req.method === 'PATCH') {
        res
          .writeHead(500, { 'content-type': 'application/json', 'x-request-id': 'req_patch' })
          .end(JSON.stringify({ error: 'internal_error', message: 'boom' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [], nextCursor: null }));
    });
    const base = await listen(server);
    try {
      const api = createServiceApi({ baseUrl: base, token: 'sk_test' });
      const page = await unwrap(api.GET('/v1/brands'));
      assert.deepEqual(page.data, []);
      assert.equal(calls, 2);
      assert.ok(times[1]! - times[0]! >= 950, `waited ${times[1]! - times[0]!} ms`);
      calls = 0;
      await assert.rejects(
        unwrap(
          api.PATCH('/v1/channel-accounts/{channelAccountId}', {
            params: { path: { channelAccountId: 'cha_01J00000000000000000000000' } },
            body: { displayName: 'x' } as never,
          }),
        ),
        (err: unknown) => err instanceof ServiceApiError && err.status === 500 && err.requestId === 'req_patch',
      );
      assert.equal(calls, 1, 'a PATCH that may have acted is not repeated');
    } finally {
      server.close();
    }
  });
});

describe('verifyWebhook', () => {
  it('accepts a delivery signed with the current or the previous secret and refuses a tampered one', async () => {
    const { Webhook } = await import('standardwebhooks');
    const { verifyWebhook, WebhookVerificationError } = await import('../../packages/sdk/src/index.js');
    const oldSecret = `whsec_${Buffer.from('old-secret-0123456789abcdef012345').toString('base64')}`;
    const newSecret = `whsec_${Buffer.from('new-secret-0123456789abcdef012345').toString('base64')}`;
    const payload = JSON.stringify({
      id: 'evt_1',
      type: 'publish_job.completed',
      createdAt: new Date().toISOString(),
      organizationId: 'org_1',
      data: { status: 'published' },
    });
    const now = new Date();
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(oldSecret).sign('evt_1', now, payload),
    };
    const event = verifyWebhook<{ status: string }>(payload, headers, [newSecret, oldSecret]);
    assert.equal(event.type, 'publish_job.completed');
    assert.equal(event.data.status, 'published');
    assert.throws(() => verifyWebhook(payload, headers, newSecret), WebhookVerificationError);
    assert.throws(() => verifyWebhook(payload.replace('published', 'failed'), headers, oldSecret), WebhookVerificationError);
  });
});
