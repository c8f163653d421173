/** A worker process's metrics port (SERVICE_WORKER_METRICS_PORT): same series, same credentials as the API route. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type MetricsServer, serveMetrics } from '../../../src/platform/metrics/metrics-server.js';
import { createTestContext, type TestContext } from '../../support/harness.js';

const TOKEN = 'worker-metrics-token-0123456789';

describe('worker metrics port', () => {
  let ctx: TestContext;
  let server: MetricsServer;
  let url = '';

  before(async () => {
    ctx = await createTestContext({ env: { SERVICE_INTERNAL_TOKEN: TOKEN } });
    server = await serveMetrics({
      metrics: ctx.deps.metrics,
      host: '127.0.0.1',
      port: 0,
      internalToken: ctx.config.env.SERVICE_INTERNAL_TOKEN,
      principalToken: undefined,
    });
    url = `http://127.0.0.1:${server.port}/v1/internal/metrics`;
  });
  after(async () => {
    await server.close();
    await ctx.close();
  });

  it('serves the job series of the worker it runs beside', async () => {
    await ctx.startWorker();
    await ctx.deps.jobs.send('maintenance.prune', {});
    const deadline = Date.now() + 15_000;
    let text = '';
    while (Date.now() < deadline) {
      const res = await fetch(url, { headers: { 'x-service-internal-token': TOKEN } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      text = await res.text();
      if (/service_api_jobs_total\{queue="maintenance.prune",outcome="completed"\} 1/.test(text)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(text, /^service_api_jobs_total\{queue="maintenance\.prune",outcome="completed"\} 1$/m);
    assert.match(text, /^service_api_job_duration_seconds_count\{queue="maintenance\.prune",outcome="completed"\} 1$/m);
    assert.match(text, /^process_resident_memory_bytes \d/m);
  });

  it('refuses without the token (401), with a wrong one or from a browser (403), and serves nothing else', async () => {
    const none = await fetch(url);
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { error: string }).error, 'internal_token_required');
    const wrong = await fetch(url, { headers: { 'x-service-internal-token': `${TOKEN}x` } });
    assert.equal(wrong.status, 403);
    const browser = await fetch(url, { headers: { 'x-service-internal-token': TOKEN, origin: 'https://evil.example' } });
    assert.equal(browser.status, 403);
    const other = await fetch(url.replace('/v1/internal/metrics', '/v1/brands'), { headers: { 'x-service-internal-token': TOKEN } });
    assert.equal(other.status, 404);
  });
});
