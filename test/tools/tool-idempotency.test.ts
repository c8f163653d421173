import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { composeRoot } from '../../src/main/composition.js';
import { toolIdempotencyRepository } from '../../src/modules/tools/tool-idempotency.repository.js';
import { createTestContext, TestClock, type TestContext } from '../support/harness.js';
import { createToolUser, errorCode, HEAVY_QR, post, QR_PATH, type ToolUser, UTM_PATH, urls, utmBody } from './tool-http.support.js';

describe('tool API idempotency', () => {
  let ctx: TestContext;
  let user: ToolUser;
  const clock = new TestClock(Date.parse('2026-05-04T09:30:00.000Z'));

  before(async () => {
    ctx = await createTestContext({ clock });
    user = await createToolUser(ctx, 'max');
  });
  after(() => ctx.close());

  const quotaRemaining = async (path: string, who: ToolUser) => {
    const probe = path === UTM_PATH ? utmBody(['mailto:probe@example.test']) : null;
    if (probe) return (await post(ctx, UTM_PATH, who.auth, probe)).json().quota.remaining as number;
    throw new Error('probe only for the UTM builder');
  };

  it('same key and body replays the first result without using quota', async () => {
    const body = utmBody(urls(3));
    const first = await post(ctx, UTM_PATH, { ...user.auth, 'idempotency-key': 'order-1' }, body);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const before = await quotaRemaining(UTM_PATH, user);
    // the same JSON value with another key order and a quoted key
    const reordered = { campaign: body.campaign, medium: body.medium, source: body.source, urls: body.urls };
    const replay = await post(ctx, UTM_PATH, { ...user.auth, 'idempotency-key': '"order-1"' }, reordered);
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, first.body);
    for (const h of [
      'x-quota-limit',
      'x-quota-remaining',
      'x-quota-reset',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
    ]) {
      assert.equal(replay.headers[h], first.headers[h], h);
    }
    assert.equal(await quotaRemaining(UTM_PATH, user), before, 'the replay used no quota');
  });

  it('a different body with the same key is 409 idempotency_conflict', async () => {
    await post(ctx, UTM_PATH, { ...user.auth, 'idempotency-key': 'order-2' }, utmBody(urls(1)));
    const res = await post(ctx, UTM_PATH, { ...user.auth, 'idempotency-key': 'order-2' }, utmBody(urls(2)));
    assert.equal(res.statusCode, 409);
    assert.equal(errorCode(res), 'idempotency_conflict');
  });

  it('a repeat while the first runs is 409 idempotency_in_progress, not 429 concurrency_limited', async () => {
    // Other keys keep the QR workers busy so the first request stays in progress for a while.
    const others = await Promise.all(Array.from({ length: 8 }, () => createToolUser(ctx, 'max')));
    const busy = others.map((o) => post(ctx, QR_PATH, o.auth, HEAVY_QR));
    const headers = { ...user.auth, 'idempotency-key': 'qr-slow' };
    let firstDone = false;
    const first = post(ctx, QR_PATH, headers, HEAVY_QR).finally(() => {
      firstDone = true;
    });
    // wait until the first request has claimed the key
    for (let i = 0; i < 200; i++) {
      const marker = await ctx.database.db
        .selectFrom('tool_idempotency')
        .select('state')
        .where('api_key_id', '=', user.apiKeyId)
        .where('idempotency_key', '=', 'qr-slow')
        .executeTakeFirst();
      if (marker) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const repeat = await post(ctx, QR_PATH, headers, HEAVY_QR);
    assert.equal(firstDone, false, 'the first request was still running');
    assert.equal(repeat.statusCode, 409);
    assert.equal(errorCode(repeat), 'idempotency_in_progress');
    const done = await first;
    assert.equal(done.statusCode, 200);
    await Promise.all(busy);
    const replay = await post(ctx, QR_PATH, headers, HEAVY_QR);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, done.body);
  });

  it('400 and 429 outcomes are not stored: a retry with the same key runs again', async () => {
    const key = { ...user.auth, 'idempotency-key': 'retry-400' };
    const bad = await post(ctx, QR_PATH, key, { text: '' });
    assert.equal(errorCode(bad), 'invalid_request');
    const fixed = await post(ctx, QR_PATH, key, { text: 'fixed', format: 'svg' });
    assert.equal(fixed.statusCode, 200);
    assert.equal(fixed.headers['idempotent-replayed'], undefined);

    clock.set(Date.parse('2026-05-04T10:00:00.000Z'));
    const limited = await createToolUser(ctx, 'pro');
    for (let i = 0; i < 60; i++) await post(ctx, QR_PATH, limited.auth, { text: `n${i}`, format: 'svg' });
    const headers = { ...limited.auth, 'idempotency-key': 'retry-429' };
    const refused = await post(ctx, QR_PATH, headers, { text: 'later', format: 'svg' });
    assert.equal(errorCode(refused), 'rate_limited');
    clock.set(Date.parse('2026-05-04T10:01:00.000Z'));
    const later = await post(ctx, QR_PATH, headers, { text: 'later', format: 'svg' });
    assert.equal(later.statusCode, 200);
    assert.equal(later.headers['idempotent-replayed'], undefined);
  });

  it('401 and 403 outcomes are not stored', async () => {
    const utmOnly = await createToolUser(ctx, 'max', ['tools:utm-builder:build']);
    const headers = { ...utmOnly.auth, 'idempotency-key': 'scope-check' };
    assert.equal(errorCode(await post(ctx, QR_PATH, headers, { text: 'a' })), 'insufficient_scope');
    assert.equal(errorCode(await post(ctx, QR_PATH, headers, { text: 'a' })), 'insufficient_scope');
    assert.equal(errorCode(await post(ctx, QR_PATH, { 'idempotency-key': 'anon' }, { text: 'a' })), 'authentication_required');
  });

  it('keys are scoped to the API key and the tool', async () => {
    const other = await createToolUser(ctx, 'max');
    const shared = { 'idempotency-key': 'shared-key' };
    const a = await post(ctx, UTM_PATH, { ...user.auth, ...shared }, utmBody(urls(1)));
    const b = await post(ctx, UTM_PATH, { ...other.auth, ...shared }, utmBody(urls(2)));
    const c = await post(ctx, QR_PATH, { ...user.auth, ...shared }, { text: 'qr', format: 'svg' });
    assert.deepEqual([a.statusCode, b.statusCode, c.statusCode], [200, 200, 200]);
    for (const r of [a, b, c]) assert.equal(r.headers['idempotent-replayed'], undefined);
  });

  it('invalid Idempotency-Key headers are 400', async () => {
    for (const value of ['', '""', 'has space', 'x'.repeat(256), 'caf\u00e9', '"unbalanced']) {
      const res = await post(ctx, UTM_PATH, { ...user.auth, 'idempotency-key': value }, utmBody(urls(1)));
      assert.equal(res.statusCode, 400, JSON.stringify(value));
      assert.equal(errorCode(res), 'invalid_request');
    }
    const longest = await post(ctx, UTM_PATH, { ...user.auth, 'idempotency-key': 'k'.repeat(255) }, utmBody(urls(1)));
    assert.equal(longest.statusCode, 200);
  });

  it('records survive a restart and expire after 24 hours', async () => {
    clock.set(Date.parse('2026-05-04T12:00:00.000Z'));
    const headers = { ...user.auth, 'idempotency-key': 'durable' };
    const first = await post(ctx, UTM_PATH, headers, utmBody(urls(4)));
    assert.equal(first.statusCode, 200);
    // a second application on the same database (a restarted or second process)
    const restarted = await buildApp(composeRoot({ ...ctx.deps }), { logger: false });
    try {
      const replay = await restarted.inject({
        method: 'POST',
        url: UTM_PATH,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify(utmBody(urls(4))),
      });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, first.body);
      clock.set(Date.parse('2026-05-05T12:00:00.000Z'));
      const expired = await restarted.inject({
        method: 'POST',
        url: UTM_PATH,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify(utmBody(urls(1))),
      });
      assert.equal(expired.statusCode, 200, 'after 24 hours the key is free again, even with another body');
      assert.equal(expired.headers['idempotent-replayed'], undefined);
    } finally {
      await restarted.close();
    }
  });

  it('the prune job removes expired records only', async () => {
    clock.set(Date.parse('2026-05-06T12:00:00.000Z'));
    await post(ctx, UTM_PATH, { ...user.auth, 'idempotency-key': 'fresh' }, utmBody(urls(1)));
    const count = async () =>
      (await ctx.database.db.selectFrom('tool_idempotency').select('idempotency_key').execute()).map((r) => r.idempotency_key);
    const removed = await toolIdempotencyRepository.pruneExpired(ctx.database.db, clock.now());
    assert.ok(removed > 0, 'records from earlier days are gone');
    assert.deepEqual(await count(), ['fresh']);
  });
});
