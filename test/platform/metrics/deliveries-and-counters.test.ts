/** Webhook delivery and counter-store error series, scraped after real deliveries and a real store failure. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../../support/harness.js';
import { waitFor } from '../../support/wait.js';

const TOKEN = 'internal-metrics-token-0123456789';

async function scrape(ctx: TestContext): Promise<string> {
  const res = await ctx.app.inject({ method: 'GET', url: '/v1/internal/metrics', headers: { 'x-service-internal-token': TOKEN } });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
}

describe('metrics: webhook deliveries', () => {
  let ctx: TestContext;
  let server: Server;
  let url = '';
  const statuses = [500, 200];

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(statuses.shift() ?? 200).end('ok'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    ctx = await createTestContext({
      env: {
        SERVICE_INTERNAL_TOKEN: TOKEN,
        SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32',
        SERVICE_WEBHOOK_RETRY_DELAY_PERCENT: '1',
      },
    });
  });
  after(async () => {
    await ctx.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('counts each delivery attempt by outcome and error class', async () => {
    const org = await ctx.createOrganization();
    const ep = await ctx.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: org.auth,
      payload: { url, eventTypes: ['publish_job.created'] },
    });
    assert.equal(ep.statusCode, 201, ep.body);
    await ctx.startWorker();
    await ctx.database.db.transaction().execute((tx) =>
      ctx.deps.events.record(tx, {
        organizationId: org.organizationId,
        type: 'publish_job.created',
        data: { status: 'draft' },
        sequenceKey: 'pj_m',
      }),
    );
    const text = await waitFor(
      'a delivered webhook in the metrics',
      async () => {
        const t = await scrape(ctx);
        return /service_api_webhook_deliveries_total\{outcome="delivered",error_class="none"\} 1/.test(t) ? t : null;
      },
      15_000,
      100,
    );
    assert.match(text, /^service_api_webhook_deliveries_total\{outcome="retry",error_class="http_status"\} 1$/m);
    // a delivery is claimed from its table, not run as a queue job of its own: no job of the deliver queue
    assert.doesNotMatch(text, /^service_api_jobs_total\{queue="webhooks\.deliver",outcome="completed"\} [1-9]/m);
  });
});

describe('metrics: counter-store errors', () => {
  let ctx: TestContext;
  before(async () => {
    // a Redis nobody listens on: every counter operation fails
    ctx = await createTestContext({ env: { SERVICE_INTERNAL_TOKEN: TOKEN, REDIS_URL: 'redis://127.0.0.1:9/0' } });
  });
  after(async () => {
    await Promise.race([ctx.close(), new Promise((r) => setTimeout(r, 3000))]);
  });

  it('counts failed operations of the shared store by store and operation', async () => {
    assert.equal(ctx.deps.counters.shared.kind, 'redis');
    await assert.rejects(ctx.deps.counters.shared.consume('k', 1, 10, 1000));
    await assert.rejects(ctx.deps.counters.shared.get('k'));
    // the tool API's two calls a request
    await assert.rejects(
      ctx.deps.counters.shared.admit({ key: 'l', max: 1, ttlMs: 1000 }, { key: 'm', cost: 1, limit: 10, ttlMs: 1000 }, 'd'),
    );
    await assert.rejects(ctx.deps.counters.shared.settle({ key: 'd', cost: 1, limit: 10, ttlMs: 1000 }, { key: 'l', token: 't' }));
    const text = await scrape(ctx);
    assert.match(text, /^service_api_counter_store_errors_total\{store="redis",operation="consume"\} 1$/m);
    assert.match(text, /^service_api_counter_store_errors_total\{store="redis",operation="get"\} 1$/m);
    assert.match(text, /^service_api_counter_store_errors_total\{store="redis",operation="admit"\} 1$/m);
    assert.match(text, /^service_api_counter_store_errors_total\{store="redis",operation="settle"\} 1$/m);
  });
});
