import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, TestClock, type TestContext } from '../support/harness.js';
import { decodePngDataUrl } from './qr-decode.js';
import { createToolUser, errorCode, HEAVY_QR, post, QR_PATH, UTM_PATH, urls, utmBody } from './tool-http.support.js';

const epoch = (iso: string) => String(Date.parse(iso) / 1000);

describe('tool API limits', () => {
  let ctx: TestContext;
  const clock = new TestClock(Date.parse('2026-03-10T10:15:30.000Z'));

  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(() => ctx.close());

  it('success responses carry quota and rate limit headers and body objects', async () => {
    clock.set(Date.parse('2026-03-10T10:15:30.000Z'));
    const user = await createToolUser(ctx, 'pro');
    const res = await post(ctx, UTM_PATH, user.auth, utmBody(['https://a.example/', 'mailto:x@y.z', 'https://b.example/']));
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.quota, { limit: 1000, remaining: 998, used: 2, unit: 'links', resetAt: '2026-03-11T00:00:00.000Z' });
    assert.deepEqual(body.rateLimit, { limit: 60, remaining: 59, resetAt: '2026-03-10T10:16:00.000Z' });
    assert.equal(res.headers['x-quota-limit'], '1000');
    assert.equal(res.headers['x-quota-remaining'], '998');
    assert.equal(res.headers['x-quota-reset'], epoch('2026-03-11T00:00:00.000Z'));
    assert.equal(res.headers['x-ratelimit-limit'], '60');
    assert.equal(res.headers['x-ratelimit-remaining'], '59');
    assert.equal(res.headers['x-ratelimit-reset'], epoch('2026-03-10T10:16:00.000Z'));
    assert.deepEqual(body.invalid, [{ index: 1, url: 'mailto:x@y.z', reason: 'unsupported_scheme' }]);
    const qr = await post(ctx, QR_PATH, user.auth, { text: 'https://a.example/', size: 200 });
    assert.equal(qr.statusCode, 200);
    assert.deepEqual(qr.json().quota, { limit: 500, remaining: 499, used: 1, unit: 'requests', resetAt: '2026-03-11T00:00:00.000Z' });
    assert.equal(qr.json().format, 'png');
    // the QR answer's text is written by hand around the data URL (tools.routes.ts): exactly these members
    assert.deepEqual(Object.keys(qr.json()), ['qrcode', 'format', 'quota', 'rateLimit']);
    assert.deepEqual(Object.keys(qr.json().qrcode), ['dataUrl']);
    const decoded = decodePngDataUrl(qr.json().qrcode.dataUrl);
    assert.deepEqual([decoded.width, decoded.text], [200, 'https://a.example/']);
  });

  it('the minute limit counts whole UTC minutes and rolls over', async () => {
    clock.set(Date.parse('2026-03-10T11:00:50.000Z'));
    const user = await createToolUser(ctx, 'pro');
    for (let i = 0; i < 60; i++) {
      const res = await post(ctx, QR_PATH, user.auth, { text: `n${i}`, format: 'svg' });
      assert.equal(res.statusCode, 200, `request ${i}`);
    }
    clock.set(Date.parse('2026-03-10T11:00:59.200Z'));
    const limited = await post(ctx, QR_PATH, user.auth, { text: 'over', format: 'svg' });
    assert.equal(limited.statusCode, 429);
    assert.equal(errorCode(limited), 'rate_limited');
    assert.equal(limited.headers['retry-after'], '1');
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    assert.equal(limited.headers['x-quota-remaining'], '440');
    assert.equal(limited.json().rateLimit.remaining, 0);
    assert.equal(limited.json().quota.remaining, 440, 'a refused request uses no quota');
    // the UTM builder has its own minute window
    assert.equal((await post(ctx, UTM_PATH, user.auth, utmBody(urls(1)))).statusCode, 200);
    clock.set(Date.parse('2026-03-10T11:01:00.000Z'));
    const next = await post(ctx, QR_PATH, user.auth, { text: 'next minute', format: 'svg' });
    assert.equal(next.statusCode, 200);
    assert.equal(next.headers['x-ratelimit-remaining'], '59');
  });

  it('Retry-After of the minute limit counts the seconds to the next minute', async () => {
    clock.set(Date.parse('2026-03-10T12:00:15.000Z'));
    const user = await createToolUser(ctx, 'pro');
    for (let i = 0; i < 60; i++) await post(ctx, UTM_PATH, user.auth, utmBody(urls(1)));
    const limited = await post(ctx, UTM_PATH, user.auth, utmBody(urls(1)));
    assert.equal(errorCode(limited), 'rate_limited');
    assert.equal(limited.headers['retry-after'], '45');
  });

  it('daily quota: batches beyond the remaining links are refused whole, invalid URLs are free, reset at 00:00 UTC', async () => {
    clock.set(Date.parse('2026-03-10T20:00:00.000Z'));
    const user = await createToolUser(ctx, 'pro');
    for (let i = 0; i < 9; i++) {
      const res = await post(ctx, UTM_PATH, user.auth, utmBody(urls(100, i * 100)));
      assert.equal(res.statusCode, 200);
    }
    const mixed = await post(ctx, UTM_PATH, user.auth, utmBody([...urls(50), 'javascript:alert(1)', '/relative', 'ftp://x.example/']));
    assert.equal(mixed.json().quota.remaining, 50, 'three invalid URLs used nothing');
    const tooMany = await post(ctx, UTM_PATH, user.auth, utmBody(urls(51)));
    assert.equal(tooMany.statusCode, 429);
    assert.equal(errorCode(tooMany), 'quota_exceeded');
    assert.equal(tooMany.json().quota.remaining, 50, 'a refused batch uses no quota');
    assert.equal(tooMany.headers['x-quota-remaining'], '50');
    assert.equal(tooMany.headers['retry-after'], String(4 * 3600));
    const invalidOnly = await post(ctx, UTM_PATH, user.auth, utmBody(['mailto:a@b.c', 'nope']));
    assert.equal(invalidOnly.statusCode, 200);
    assert.equal(invalidOnly.json().links.length, 0);
    const rest = await post(ctx, UTM_PATH, user.auth, utmBody(urls(50)));
    assert.equal(rest.statusCode, 200);
    assert.equal(rest.json().quota.remaining, 0);
    assert.equal(errorCode(await post(ctx, UTM_PATH, user.auth, utmBody(urls(1)))), 'quota_exceeded');
    assert.equal((await post(ctx, UTM_PATH, user.auth, utmBody(['mailto:a@b.c']))).statusCode, 200, 'still free at 0');
    clock.set(Date.parse('2026-03-11T00:00:00.000Z'));
    const nextDay = await post(ctx, UTM_PATH, user.auth, utmBody(urls(1)));
    assert.equal(nextDay.statusCode, 200);
    assert.equal(nextDay.json().quota.remaining, 999);
  });

  it('QR daily quota is counted in requests', async () => {
    clock.set(Date.parse('2026-03-12T08:00:00.000Z'));
    const user = await createToolUser(ctx, 'pro');
    let remaining = 0;
    for (let minute = 0; minute < 9; minute++) {
      clock.set(Date.parse('2026-03-12T08:00:00.000Z') + minute * 60_000);
      for (let i = 0; i < (minute < 8 ? 60 : 20); i++) {
        const res = await post(ctx, QR_PATH, user.auth, { text: `q${minute}-${i}`, format: 'svg', size: 64 });
        assert.equal(res.statusCode, 200);
        remaining = res.json().quota.remaining;
      }
    }
    assert.equal(remaining, 0);
    const refused = await post(ctx, QR_PATH, user.auth, { text: 'one more', format: 'svg' });
    assert.equal(errorCode(refused), 'quota_exceeded');
    assert.equal(refused.json().quota.used, 500);
  });

  it('one request at a time per key and tool: of two concurrent requests exactly one succeeds', async () => {
    clock.set(Date.parse('2026-03-13T09:00:00.000Z'));
    const user = await createToolUser(ctx, 'max');
    const other = await createToolUser(ctx, 'max');
    for (let round = 0; round < 3; round++) {
      const [a, b] = await Promise.all([post(ctx, QR_PATH, user.auth, HEAVY_QR), post(ctx, QR_PATH, user.auth, HEAVY_QR)]);
      const statuses = [a.statusCode, b.statusCode].sort();
      assert.deepEqual(statuses, [200, 429], `round ${round}`);
      const refused = a.statusCode === 429 ? a : b;
      assert.equal(errorCode(refused), 'concurrency_limited');
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      assert.ok(refused.headers['x-quota-limit']);
    }
    // other keys and other tools are not blocked
    const [q, u, o] = await Promise.all([
      post(ctx, QR_PATH, user.auth, HEAVY_QR),
      post(ctx, UTM_PATH, user.auth, utmBody(urls(5))),
      post(ctx, QR_PATH, other.auth, HEAVY_QR),
    ]);
    assert.deepEqual([q.statusCode, u.statusCode, o.statusCode], [200, 200, 200]);
  });
});
