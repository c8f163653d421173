import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newId } from '../../src/platform/ids.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { until } from './webhook-receiver.js';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A loopback receiver: answers each request with the next scripted status (then 200). */
class Receiver {
  readonly received: Received[] = [];
  script: { status: number; headers?: Record<string, string>; body?: string }[] = [];
  private server!: Server;
  url = '';
  private waiters: (() => void)[] = [];

  async start() {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
        const next = this.script.shift() ?? { status: 200 };
        res.writeHead(next.status, { 'content-type': 'text/plain', ...next.headers });
        res.end(next.body ?? `answer ${next.status}`);
        for (const w of this.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async waitFor(n: number, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < n) {
      if (Date.now() > deadline) throw new Error(`expected ${n} requests, got ${this.received.length}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  stop() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

describe('webhooks', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;

  before(async () => {
    ctx = await createTestContext({
      env: { SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32', SERVICE_WEBHOOK_RETRY_DELAY_PERCENT: '1' },
    });
    receiver = new Receiver();
    await receiver.start();
    org = await ctx.createOrganization();
  });
  after(async () => {
    await ctx.close();
    await receiver.stop();
  });

  const api = (method: string, url: string, body?: unknown, auth = org.auth) =>
    ctx.app.inject({ method: method as 'GET', url, headers: auth, ...(body !== undefined ? { payload: body as object } : {}) });

  const record = (type: 'publish_job.created' | 'publish_job.completed', data: unknown, organizationId = org.organizationId) =>
    ctx.database.db.transaction().execute((tx) => ctx.deps.events.record(tx, { organizationId, type, data, sequenceKey: 'pj_test' }));

  it('creates, lists, updates and deletes endpoints; the secret is shown once', async () => {
    const created = await api('POST', '/v1/webhook-endpoints', {
      url: 'https://hooks.example.com/a',
      description: 'orders',
      eventTypes: ['publish_job.completed'],
      metadata: { team: 'growth' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const ep = created.json();
    assert.match(ep.secret, /^whsec_[A-Za-z0-9+/=]+$/);
    assert.match(ep.webhookEndpointId, /^we_[0-9A-Z]{26}$/);
    assert.deepEqual(ep.eventTypes, ['publish_job.completed']);
    assert.equal(ep.enabled, true);
    assert.equal(ep.disabledReason, null);

    const list = await api('GET', '/v1/webhook-endpoints');
    assert.equal(list.statusCode, 200);
    assert.equal(list.json().nextCursor, null);
    const listed = list.json().data.find((e: { webhookEndpointId: string }) => e.webhookEndpointId === ep.webhookEndpointId);
    assert.equal(listed.secret, undefined);
    assert.ok(!list.body.includes(ep.secret));

    const patched = await api('PATCH', `/v1/webhook-endpoints/${ep.webhookEndpointId}`, { enabled: false, eventTypes: [] });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().enabled, false);
    assert.deepEqual(patched.json().eventTypes, []);

    const other = await ctx.createOrganization({ name: 'Other' });
    for (const [method, url, body] of [
      ['PATCH', `/v1/webhook-endpoints/${ep.webhookEndpointId}`, { enabled: true }],
      ['DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`, undefined],
      ['GET', `/v1/webhook-endpoints/${ep.webhookEndpointId}/deliveries`, undefined],
    ] as const) {
      const r = await api(method, url, body, other.auth);
      assert.equal(r.statusCode, 404, `${method} ${url}`);
      assert.equal(r.json().error, 'webhook_endpoint_not_found');
    }
    assert.equal((await api('GET', '/v1/webhook-endpoints', undefined, other.auth)).json().data.length, 0);

    const del = await api('DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`);
    assert.equal(del.statusCode, 204);
    const again = await api('DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`);
    assert.equal(again.statusCode, 404);
    assert.equal(again.json().error, 'webhook_endpoint_not_found');
    const malformed = await api('PATCH', '/v1/webhook-endpoints/nope', { enabled: true });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().error, 'invalid_public_webhook_endpoint_update_request');
  });

  it('refuses unknown event types and URLs unsafe for outbound delivery', async () => {
    const bad = await api('POST', '/v1/webhook-endpoints', { url: 'https://hooks.example.com/a', eventTypes: ['publish_job.exploded'] });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, 'invalid_public_webhook_endpoint_create_request');
    for (const url of [
      'ftp://hooks.example.com/a',
      'http://user:pw@hooks.example.com/a',
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.8/hook',
      'http://[::1]:8080/hook',
      'http://0x7f000002/hook',
      // refused at save without DNS: internal names (a trailing dot too), mapped and local IPv6
      'http://localhost./hook',
      'http://hooks.localhost/hook',
      'http://metadata.google.internal/hook',
      'http://nas.local/hook',
      'http://intranet/hook',
      'http://[::ffff:a9fe:a9fe]/hook', // 169.254.169.254, IPv4-mapped (loopback is on this test's allow-list)
      'http://[fd12::1]/hook',
      'http://[fe80::1]/hook',
      'http://0.0.0.0/hook',
    ]) {
      const r = await api('POST', '/v1/webhook-endpoints', { url });
      assert.equal(r.statusCode, 400, url);
      assert.equal(r.json().error, 'webhook_url_invalid', url);
    }
    const created = (await api('POST', '/v1/webhook-endpoints', { url: 'https://hooks.example.com/b' })).json();
    const r = await api('PATCH', `/v1/webhook-endpoints/${created.webhookEndpointId}`, { url: 'http://192.168.1.1/' });
    assert.equal(r.json().error, 'webhook_url_invalid');
    const dot = await api('PATCH', `/v1/webhook-endpoints/${created.webhookEndpointId}`, { url: 'http://localhost.:8080/' });
    assert.equal(dot.json().error, 'webhook_url_invalid');
    assert.deepEqual(dot.json().fields?.[0]?.path, ['url']);
    await api('DELETE', `/v1/webhook-endpoints/${created.webhookEndpointId}`);
  });

  it('needs the webhooks scopes', async () => {
    const reader = await ctx.createOrganization({ scopes: ['webhooks:read'] });
    assert.equal((await api('GET', '/v1/webhook-endpoints', undefined, reader.auth)).statusCode, 200);
    const w = await api('POST', '/v1/webhook-endpoints', { url: 'https://hooks.example.com/a' }, reader.auth);
    assert.equal(w.json().error, 'public_api_token_forbidden');
    const none = await ctx.createOrganization({ scopes: ['brands:read'] });
    assert.equal((await api('GET', '/v1/webhook-endpoints', undefined, none.auth)).json().error, 'public_api_token_forbidden');
  });

  it('delivers outbox events signed per Standard Webhooks, retries failures with the same webhook-id, logs each attempt', async () => {
    const ep = (await api('POST', '/v1/webhook-endpoints', { url: receiver.url, eventTypes: ['publish_job.created'] })).json();
    await ctx.startWorker();
    receiver.script = [{ status: 500 }, { status: 200 }];
    const start = receiver.received.length;
    const event = await record('publish_job.created', { publishJobId: 'pj_test', status: 'draft' });
    await record('publish_job.completed', { publishJobId: 'pj_test', status: 'published' }); // not subscribed
    await receiver.waitFor(start + 2);
    const [first, second] = receiver.received.slice(start);
    for (const got of [first!, second!]) {
      assert.equal(got.headers['webhook-id'], event.id);
      assert.equal(got.headers['content-type'], 'application/json');
      const payload = new Webhook(ep.secret).verify(got.body, got.headers) as Record<string, unknown>;
      assert.equal(payload.id, event.id);
      assert.equal(payload.type, 'publish_job.created');
      assert.equal(payload.organizationId, org.organizationId);
      assert.deepEqual(payload.data, { publishJobId: 'pj_test', status: 'draft' });
      assert.equal(typeof payload.createdAt, 'string');
    }
    const log = await until(async () => {
      const r = (await api('GET', `/v1/webhook-endpoints/${ep.webhookEndpointId}/deliveries`)).json();
      return r.data.length === 1 && r.data[0].status === 'delivered' ? r : null;
    });
    const d = log.data[0];
    assert.equal(d.eventId, event.id);
    assert.equal(d.attemptCount, 2);
    assert.equal(d.attempts[0].statusCode, 500);
    assert.equal(d.attempts[0].errorClass, 'http_status');
    assert.equal(d.attempts[0].responseExcerpt, 'answer 500');
    assert.ok(d.attempts[0].nextRetryAt);
    assert.equal(d.attempts[1].statusCode, 200);
    assert.equal(d.attempts[1].errorClass, null);

    // redelivery: a new delivery with the same webhook-id
    const before = receiver.received.length;
    const re = await api('POST', `/v1/webhook-deliveries/${d.deliveryId}/redeliver`);
    assert.equal(re.statusCode, 202, re.body);
    await receiver.waitFor(before + 1);
    assert.equal(receiver.received[before]!.headers['webhook-id'], event.id);
    const missing = await api('POST', `/v1/webhook-deliveries/wdl_01ARZ3NDEKTSV4RRFFQ69G5FAV/redeliver`);
    assert.equal(missing.statusCode, 404);
    await api('DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`);
  });

  it("keeps a receiver's answer as its attempt's excerpt, character for character", async () => {
    const ep = (await api('POST', '/v1/webhook-endpoints', { url: receiver.url, eventTypes: ['publish_job.created'] })).json();
    await ctx.startWorker();
    // what an array literal or a VALUES list could get wrong: quotes, backslashes, braces, commas, the word NULL
    const answer = 'ok "quoted" \\back\\slash {a,b} NULL, \'single\' Grüße 🎉';
    receiver.script = [{ status: 200, body: answer }];
    const start = receiver.received.length;
    const event = await record('publish_job.created', { publishJobId: 'pj_excerpt', status: 'draft' });
    await receiver.waitFor(start + 1);
    const log = await until(async () => {
      const r = (await api('GET', `/v1/webhook-endpoints/${ep.webhookEndpointId}/deliveries`)).json();
      return r.data.length === 1 && r.data[0].status === 'delivered' ? r : null;
    });
    assert.equal(log.data[0].eventId, event.id);
    assert.equal(log.data[0].attempts[0].responseExcerpt, answer);
    assert.equal(log.data[0].attempts[0].statusCode, 200);
    await api('DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`);
  });

  it('test events, secret rotation (both secrets sign for 24 h) and 410 disabling the endpoint', async () => {
    const ep = (await api('POST', '/v1/webhook-endpoints', { url: receiver.url, eventTypes: ['publish_job.completed'] })).json();
    await ctx.startWorker();
    const rotated = await api('POST', `/v1/webhook-endpoints/${ep.webhookEndpointId}/rotate-secret`);
    assert.equal(rotated.statusCode, 200);
    const { secret } = rotated.json();
    assert.match(secret, /^whsec_/);
    assert.notEqual(secret, ep.secret);
    const start = receiver.received.length;
    const test = await api('POST', `/v1/webhook-endpoints/${ep.webhookEndpointId}/test`);
    assert.equal(test.statusCode, 202, test.body);
    await receiver.waitFor(start + 1);
    const got = receiver.received[start]!;
    assert.equal(got.headers['webhook-signature']!.split(' ').length, 2);
    for (const s of [secret, ep.secret]) {
      const payload = new Webhook(s).verify(got.body, got.headers) as { type: string };
      assert.equal(payload.type, 'webhook_endpoint.test');
    }

    receiver.script = [{ status: 410 }];
    await record('publish_job.completed', { status: 'published' });
    const disabled = await until(async () => {
      const list = (await api('GET', '/v1/webhook-endpoints')).json();
      const e = list.data.find((x: { webhookEndpointId: string }) => x.webhookEndpointId === ep.webhookEndpointId);
      return e.enabled === false ? e : null;
    });
    assert.equal(disabled.disabledReason, 'gone');
    const log = (await api('GET', `/v1/webhook-endpoints/${ep.webhookEndpointId}/deliveries?status=failed`)).json();
    assert.equal(log.data.length, 1);
    assert.equal(log.data[0].lastStatusCode, 410);
  });

  it("pages an endpoint's delivery log newest first across statuses, whole and by status", async () => {
    const ep = (await api('POST', '/v1/webhook-endpoints', { url: receiver.url, eventTypes: ['publish_job.created'] })).json();
    // disabled: the events below fan out to no endpoint, and the rows written here are never claimed
    assert.equal((await api('PATCH', `/v1/webhook-endpoints/${ep.webhookEndpointId}`, { enabled: false })).statusCode, 200);
    const statuses = ['delivered', 'failed', 'pending', 'delivered', 'delivered', 'failed', 'pending', 'delivered', 'failed'];
    const ids: string[] = [];
    for (const [i, status] of statuses.entries()) {
      const event = await record('publish_job.created', { publishJobId: `pj_log_${i}`, status: 'draft' });
      const id = newId('wdl');
      ids.push(id);
      const at = new Date();
      await ctx.database.db
        .insertInto('webhook_deliveries')
        .values({
          id,
          organization_id: org.organizationId,
          endpoint_id: ep.webhookEndpointId,
          event_id: event.id,
          event_type: 'publish_job.created',
          status,
          attempt_count: status === 'pending' ? 0 : 1,
          next_attempt_at: null,
          claim_at: null,
          last_status_code: status === 'pending' ? null : status === 'failed' ? 500 : 200,
          last_error: null,
          delivered_at: status === 'delivered' ? at : null,
          created_at: at,
          updated_at: at,
        })
        .execute();
    }
    const pages = async (query: string) => {
      const seen: Array<{ deliveryId: string; status: string }> = [];
      let cursor: string | null = null;
      do {
        const r = await api(
          'GET',
          `/v1/webhook-endpoints/${ep.webhookEndpointId}/deliveries?limit=2${query}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        assert.equal(r.statusCode, 200, r.body);
        assert.ok(r.json().data.length <= 2);
        seen.push(...r.json().data);
        cursor = r.json().nextCursor;
      } while (cursor);
      return seen;
    };
    const newestFirst = ids.map((id, i) => ({ id, status: statuses[i]! })).reverse();
    const whole = await pages('');
    assert.deepEqual(
      whole.map((d) => [d.deliveryId, d.status]),
      newestFirst.map((d) => [d.id, d.status]),
    );
    for (const status of ['pending', 'delivered', 'failed']) {
      const only = await pages(`&status=${status}`);
      assert.deepEqual(
        only.map((d) => d.deliveryId),
        newestFirst.filter((d) => d.status === status).map((d) => d.id),
      );
    }
    await api('DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`);
  });

  it('webhook writes are refused when the gate is closed', async () => {
    const closed = await createTestContext({ database: ctx.database, clock: ctx.clock, env: { SERVICE_WEBHOOK_WRITE_ENABLED: 'false' } });
    try {
      const r = await closed.app.inject({
        method: 'POST',
        url: '/v1/webhook-endpoints',
        headers: org.auth,
        payload: { url: 'https://hooks.example.com/a' },
      });
      assert.equal(r.statusCode, 403);
      assert.equal(r.json().error, 'webhook_write_disabled');
      assert.equal((await closed.app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: org.auth })).statusCode, 200);
    } finally {
      await closed.close();
    }
  });
});
