/**
 * The request lines at each log level: Fastify's incoming and completed lines at info (with the request id the
 * answer carries), the probes' at debug, none for either above info (where the service does not even make the
 * calls), and the request's own warnings whatever the level.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('request log lines by level', () => {
  let ctx: TestContext;
  let apiKey: string;
  before(async () => {
    ctx = await createTestContext();
    apiKey = (await ctx.createOrganization()).apiKey;
  });
  after(() => ctx.close());

  async function linesAt(level: string, requests: Array<{ url: string; headers?: Record<string, string> }>) {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        cb();
      },
    });
    const app = await buildApp(ctx.root, { logger: { level, stream } });
    await app.ready();
    const ids: string[] = [];
    for (const r of requests) ids.push(String((await app.inject({ url: r.url, headers: r.headers })).headers['x-request-id']));
    await app.close();
    return { lines: lines.filter((l) => typeof l.reqId === 'string'), ids };
  }

  const brands = () => ({ url: '/v1/brands', headers: { authorization: `Bearer ${apiKey}` } });

  it('at info: incoming and completed for each request, with the request id of the answer; a probe that succeeds writes none', async () => {
    const { lines, ids } = await linesAt('info', [brands(), { url: '/v1/health/live' }]);
    assert.deepEqual(
      lines.map((l) => [l.msg, l.reqId]),
      [
        ['incoming request', ids[0]],
        ['request completed', ids[0]],
      ],
    );
  });

  it('at debug: the probe is written too, once, at debug', async () => {
    const { lines, ids } = await linesAt('debug', [{ url: '/v1/health/live' }]);
    assert.deepEqual(
      lines.filter((l) => l.reqId === ids[0]).map((l) => [l.msg, l.level]),
      [['request completed', 20]],
    );
  });

  it('at warn: no request line for answered requests, found or not', async () => {
    const { lines } = await linesAt('warn', [brands(), { url: '/v1/health/live' }, { url: '/v1/nothing-here' }]);
    assert.deepEqual(lines, []);
  });
});
