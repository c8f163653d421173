/**
 * The request duration histogram writes the exposition a prom-client Histogram writes for the same
 * observations (scrapes, dashboards and alerts read it as before), through a prom-client registry.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import client from 'prom-client';
import { RequestDurationHistogram } from '../../../src/platform/metrics/request-histogram.js';

const NAME = 'test_http_request_duration_seconds';
const HELP = 'HTTP request duration by method, route pattern and status code.';
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** the same observations into ours and into prom-client's Histogram, each in a registry of its own */
function both(observations: Array<[method: string, route: string, status: number, seconds: number]>) {
  const oursRegistry = new client.Registry();
  const ours = new RequestDurationHistogram(NAME, HELP, BUCKETS);
  oursRegistry.registerMetric(ours as unknown as client.Metric);
  const theirsRegistry = new client.Registry();
  const theirs = new client.Histogram({
    name: NAME,
    help: HELP,
    labelNames: ['method', 'route', 'status_code'],
    buckets: BUCKETS,
    registers: [theirsRegistry],
  });
  for (const [method, route, status, seconds] of observations) {
    ours.observe(method, route, status, seconds);
    theirs.observe({ method, route, status_code: String(status) }, seconds);
  }
  return { ours, oursRegistry, theirsRegistry };
}

describe('request duration histogram', () => {
  it('writes the exposition of a prom-client Histogram: buckets cumulative, bounds inclusive, +Inf, sum and count per series', async () => {
    const { oursRegistry, theirsRegistry } = both([
      ['GET', '/v1/brands', 200, 0.003],
      ['GET', '/v1/brands', 200, 0.005], // on a bound: counted in it
      ['GET', '/v1/brands', 200, 0.0051],
      ['GET', '/v1/brands', 404, 0.2],
      ['POST', '/v1/brands', 201, 1.5],
      ['GET', '/v1/publish/jobs/:publishJobId', 200, 61], // past the last bound: +Inf only
      ['GET', 'unmatched', 404, 0],
      ['GET', '/v1/brands', 200, 0.75],
    ]);
    const text = await oursRegistry.metrics();
    assert.equal(text, await theirsRegistry.metrics());
    assert.match(text, /test_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/v1\/brands",status_code="200"\} 2\n/);
    assert.match(text, /test_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/v1\/brands",status_code="200"\} 4\n/);
    assert.match(text, /test_http_request_duration_seconds_count\{method="GET",route="unmatched",status_code="404"\} 1\n/);
  });

  it('merges into another registry as prom-client metrics do, and answers the JSON form', async () => {
    const { oursRegistry } = both([['GET', '/health', 200, 0.001]]);
    const other = new client.Registry();
    new client.Counter({ name: 'test_other_total', help: 'other', registers: [other] }).inc();
    const merged = await client.Registry.merge([other, oursRegistry]).metrics();
    assert.match(merged, /test_other_total 1\n/);
    assert.match(merged, /test_http_request_duration_seconds_sum\{method="GET",route="\/health",status_code="200"\} 0\.001\n/);
    const json = await oursRegistry.getMetricsAsJSON();
    assert.equal(json[0]?.name, NAME);
    assert.equal(json[0]?.type, 'histogram');
  });

  it('starts over on reset', async () => {
    const { ours, oursRegistry } = both([['GET', '/health', 200, 0.001]]);
    ours.reset();
    assert.doesNotMatch(await oursRegistry.metrics(), /test_http_request_duration_seconds_count/);
  });
});
