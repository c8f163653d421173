/** GET /v1/internal/metrics: scraped after real requests, jobs and provider calls; refused without the internal token. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  api,
  connectChannel,
  createOrg,
  INTERNAL_TOKEN,
  type Org,
  type PublishingHarness,
  startPublishingHarness,
  waitForJob,
} from '../publishing/publishing-harness.js';
import { createTestContext } from '../support/harness.js';

const PATH = '/v1/internal/metrics';

/** The value of one series line, e.g. series(text, 'x_total', {a: 'b'}); null when absent. */
function series(text: string, name: string, labels: Record<string, string>): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const close = line.lastIndexOf('}');
    const got = Object.fromEntries([...line.slice(name.length + 1, close).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(line.slice(close + 1).trim());
  }
  return null;
}

describe('metrics', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };
  const scrape = async () => {
    const res = await h.ctx.app.inject({ method: 'GET', url: PATH, headers: { 'x-service-internal-token': INTERNAL_TOKEN } });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return res.body;
  };

  before(async () => {
    h = await startPublishingHarness();
    org = await createOrg(h, 'Metrics');
    fb = await connectChannel(h, org, 'facebook_page');
    await h.ctx.startWorker();
  });
  after(() => h.close());

  it('refuses a scrape without the internal token (401), with a wrong one or from a browser (403)', async () => {
    const none = await h.ctx.app.inject({ method: 'GET', url: PATH });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error, 'internal_token_required');
    assert.ok(none.json().requestId);
    const wrong = await h.ctx.app.inject({ method: 'GET', url: PATH, headers: { 'x-service-internal-token': `${INTERNAL_TOKEN}x` } });
    assert.equal(wrong.statusCode, 403);
    assert.equal(wrong.json().error, 'permission_denied');
    const browser = await h.ctx.app.inject({
      method: 'GET',
      url: PATH,
      headers: { 'x-service-internal-token': INTERNAL_TOKEN, origin: 'http://127.0.0.1:3000' },
    });
    assert.equal(browser.statusCode, 403);
    const apiKey = await h.ctx.app.inject({ method: 'GET', url: PATH, headers: org.auth });
    assert.equal(apiKey.statusCode, 403, 'an API key or dashboard bearer is not an internal credential');
    assert.doesNotMatch(none.body + wrong.body, /service_api_/);
  });

  it('times HTTP requests by route pattern and status, never by raw URL', async () => {
    const unknownId = 'job_01JAAAAAAAAAAAAAAAAAAAAAAA';
    const missing = await api(h, org, 'GET', `/v1/publish/jobs/${unknownId}`);
    assert.equal(missing.status, 404);
    assert.equal((await api(h, org, 'GET', '/v1/publish/jobs')).status, 200);
    await h.ctx.app.inject({ method: 'GET', url: '/no/such/route' });
    const text = await scrape();
    const h404 = series(text, 'service_api_http_request_duration_seconds_count', {
      method: 'GET',
      route: '/v1/publish/jobs/:publishJobId',
      status_code: '404',
    });
    assert.equal(h404, 1);
    assert.ok(
      series(text, 'service_api_http_request_duration_seconds_count', { method: 'GET', route: '/v1/publish/jobs', status_code: '200' })! >=
        1,
    );
    assert.ok(
      series(text, 'service_api_http_request_duration_seconds_bucket', { route: '/v1/publish/jobs', status_code: '200', le: '+Inf' })! >= 1,
    );
    assert.ok(series(text, 'service_api_http_request_duration_seconds_count', { route: 'unmatched', status_code: '404' })! >= 1);
    assert.ok(!text.includes(unknownId), 'ids never become label values');
    assert.ok(!text.includes('/no/such/route'));
    // default process metrics
    assert.match(text, /^process_cpu_user_seconds_total \d/m);
    assert.match(text, /^nodejs_heap_size_used_bytes \d/m);
  });

  it('counts jobs by queue and outcome, provider calls by platform and error class, and publish lateness', async () => {
    const plan = {
      brandId: org.brandId,
      text: 'Measured post',
      scheduleAt: new Date(Date.now() + 1200).toISOString(),
      targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
    };
    const created = await api(h, org, 'POST', '/v1/publish/jobs', { plan, dryRun: false, enqueue: true });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await waitForJob(h, org, created.body.publishJobId, ['published']);

    const text = await scrape();
    const completed = [...text.matchAll(/^service_api_jobs_total\{queue="([^"]+)",outcome="completed"\} (\d+)/gm)];
    assert.ok(completed.length > 0, 'at least one queue reports completed jobs');
    assert.ok(
      completed.some(([, queue]) => /publish/.test(queue!)),
      completed.map((m) => m[1]).join(','),
    );
    const queue = completed.find(([, q]) => /publish/.test(q!))![1]!;
    assert.ok(series(text, 'service_api_job_duration_seconds_count', { queue, outcome: 'completed' })! >= 1);
    assert.ok(
      series(text, 'service_api_provider_calls_total', { platform: 'facebook_page', operation: 'publish', error_class: 'none' })! >= 1,
    );
    assert.ok(series(text, 'service_api_provider_call_duration_seconds_count', { platform: 'facebook_page', operation: 'publish' })! >= 1);
    assert.equal(series(text, 'service_api_publish_lateness_seconds_count', { platform: 'facebook_page' }), 1);
    const lateness = series(text, 'service_api_publish_lateness_seconds_sum', { platform: 'facebook_page' })!;
    assert.ok(lateness >= 0 && lateness < 30, `lateness ${lateness}`);
  });

  it('counts a provider error by its class', async () => {
    const tokenless = await connectChannel(h, org, 'facebook_page', { token: 'not-a-token-the-simulator-issued' });
    const created = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId: org.brandId,
        text: 'Refused post',
        targets: [{ platform: 'facebook_page', channelAccountId: tokenless.channelAccountId }],
      },
      dryRun: false,
      enqueue: true,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await waitForJob(h, org, created.body.publishJobId, ['needs_reconnect', 'failed']);
    const text = await scrape();
    const refused = [
      ...text.matchAll(/^service_api_provider_calls_total\{platform="facebook_page",operation="publish",error_class="([^"]+)"\} (\d+)/gm),
    ]
      .filter(([, c]) => c !== 'none')
      .map(([, c]) => c);
    assert.ok(refused.length > 0, 'the refused call is counted with its error class');
  });

  it('keeps one registry per app: another app does not see these series', async () => {
    const other = await createTestContext({ env: { SERVICE_INTERNAL_TOKEN: INTERNAL_TOKEN } });
    try {
      const res = await other.app.inject({ method: 'GET', url: PATH, headers: { 'x-service-internal-token': INTERNAL_TOKEN } });
      assert.equal(res.statusCode, 200);
      assert.equal(series(res.body, 'service_api_provider_calls_total', { platform: 'facebook_page' }), null);
      assert.equal(series(res.body, 'service_api_http_request_duration_seconds_count', { route: '/v1/publish/jobs' }), null);
    } finally {
      await other.close();
    }
  });
});
