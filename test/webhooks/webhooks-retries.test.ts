/**
 * Retry rules, endpoint health, recovery and retention, through the API and the real worker: each
 * receiver is a loopback path with its own behaviour; the clock is the harness's settable clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';
import { answer, Receivers, until } from './webhook-receiver.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;
const DAY = 86_400_000;

describe('webhook retries, health, recovery and retention', () => {
  let ctx: TestContext;
  const hooks = new Receivers();

  before(async () => {
    ctx = await createTestContext({
      env: {
        SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32',
        SERVICE_WEBHOOK_RETRY_DELAY_PERCENT: '100',
      },
    });
    await hooks.start();
    await ctx.startWorker();
  });
  after(async () => {
    await hooks.stop();
    await ctx.close();
  });

  const api = (org: Org, method: string, url: string, body?: unknown) =>
    ctx.app.inject({ method: method as 'GET', url, headers: org.auth, ...(body !== undefined ? { payload: body as object } : {}) });
  const endpoint = async (org: Org, url: string) => {
    const r = await api(org, 'POST', '/v1/webhook-endpoints', { url });
    assert.equal(r.statusCode, 201, r.body);
    return r.json() as { webhookEndpointId: string; secret: string };
  };
  const record = (org: Org, data: Record<string, unknown> = {}) =>
    ctx.database.db
      .transaction()
      .execute((tx) => ctx.deps.events.record(tx, { organizationId: org.organizationId, type: 'publish_job.created', data }));
  const log = async (org: Org, ep: string, query = '') => {
    const r = await api(org, 'GET', `/v1/webhook-endpoints/${ep}/deliveries${query}`);
    assert.equal(r.statusCode, 200, r.body);
    return r.json().data as any[];
  };
  /** the delivery of the event once its attempt count reaches n */
  const attempted = (org: Org, ep: string, eventId: string, n = 1, timeoutMs = 20_000) =>
    until(async () => (await log(org, ep)).find((d) => d.eventId === eventId && d.attemptCount >= n), timeoutMs);
  const getEndpoint = async (org: Org, id: string) =>
    ((await api(org, 'GET', '/v1/webhook-endpoints')).json().data as any[]).find((e) => e.webhookEndpointId === id);
  const delayOf = (attempt: { createdAt: string; nextRetryAt: string | null }) =>
    attempt.nextRetryAt === null ? null : Date.parse(attempt.nextRetryAt) - Date.parse(attempt.createdAt);

  it('Retry-After on 429 and 503 is honoured within [scheduled, 2 x scheduled]; a timeout or 429 waits at least 60 s', async () => {
    const org = await ctx.createOrganization();
    // first retry is scheduled at 5 s +-20%, so [4 s, 6 s]; a 429 or a timeout raises it to 60 s
    const cases: [string, (d: number) => boolean][] = [
      ['/ra/503-in-window', (d) => d === 8_000], // 8 s lies in [d, 2d] for every d in [4, 6] s
      ['/ra/503-far', (d) => d >= 8_000 && d <= 12_000], // an hour is capped at 2 x scheduled
      ['/ra/503-near', (d) => d >= 4_000 && d <= 6_000], // 1 s is raised to the schedule
      ['/ra/503-date', (d) => d >= 8_000 && d <= 12_000], // an HTTP date an hour ahead: capped too
      ['/ra/429-none', (d) => d === 60_000],
      ['/ra/429-90', (d) => d === 90_000],
      ['/ra/429-far', (d) => d === 120_000],
      ['/ra/timeout', (d) => d === 60_000],
      ['/ra/500', (d) => d >= 4_000 && d <= 6_000],
    ];
    hooks.set('/ra/503-in-window', answer(503, { 'retry-after': '8' }));
    hooks.set('/ra/503-far', answer(503, { 'retry-after': '3600' }));
    hooks.set('/ra/503-near', answer(503, { 'retry-after': '1' }));
    hooks.set('/ra/503-date', answer(503, { 'retry-after': new Date(ctx.clock.now().getTime() + 3_600_000).toUTCString() }));
    hooks.set('/ra/429-none', answer(429));
    hooks.set('/ra/429-90', answer(429, { 'retry-after': '90' }));
    hooks.set('/ra/429-far', answer(429, { 'retry-after': '86400' }));
    // the default 15 s timeout: the receivers share this process with the embedded database, which can
    // keep them from answering for seconds on a loaded machine
    hooks.set('/ra/timeout', () => new Promise((r) => setTimeout(r, 20_000)));
    hooks.set('/ra/500', answer(500));
    const eps = new Map<string, string>();
    for (const [path] of cases) eps.set(path, (await endpoint(org, hooks.url(path))).webhookEndpointId);
    const event = await record(org);
    for (const [path, ok] of cases) {
      const d = await attempted(org, eps.get(path)!, event.id, 1, 60_000);
      assert.equal(d.status, 'pending', path);
      const delay = delayOf(d.attempts[0]);
      assert.ok(delay !== null && ok(delay), `${path}: next retry after ${delay} ms (${d.attempts[0].errorClass})`);
      // a fast case may have had its retry while the timeout case waited: the delivery shows its last retry time
      assert.equal(Date.parse(d.nextAttemptAt), Date.parse(d.attempts.at(-1).nextRetryAt), path);
    }
    const timedOut = (await log(org, eps.get('/ra/timeout')!))[0];
    assert.equal(timedOut.attempts[0].errorClass, 'timeout');
    assert.equal(timedOut.attempts[0].statusCode, null);
    for (const id of eps.values()) await api(org, 'DELETE', `/v1/webhook-endpoints/${id}`);
  });

  it('a 3xx is a failure and its Location is never followed', async () => {
    const org = await ctx.createOrganization();
    const target = hooks.url('/redirect/target');
    const ep = await endpoint(org, hooks.url('/redirect/from', answer(302, { location: target })));
    const event = await record(org);
    const d = await attempted(org, ep.webhookEndpointId, event.id);
    assert.equal(d.status, 'pending');
    assert.equal(d.lastStatusCode, 302);
    assert.equal(d.attempts[0].errorClass, 'redirect');
    assert.ok(d.attempts[0].nextRetryAt, 'a redirect is retried like any failure');
    assert.equal(hooks.at('/redirect/target').length, 0);
    await api(org, 'DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`);
  });

  it('a receiver answering webhook-delivery: abort-message stops that message, not the endpoint', async () => {
    const org = await ctx.createOrganization();
    const ep = await endpoint(org, hooks.url('/abort', answer(400, { 'webhook-delivery': 'abort-message' })));
    const event = await record(org);
    const d = await attempted(org, ep.webhookEndpointId, event.id);
    assert.equal(d.status, 'failed');
    assert.equal(d.nextAttemptAt, null);
    assert.equal(d.attempts.length, 1);
    assert.equal(d.attempts[0].errorClass, 'aborted');
    assert.equal(d.attempts[0].nextRetryAt, null);
    assert.match(d.lastError, /abort-message/);
    assert.equal((await getEndpoint(org, ep.webhookEndpointId)).enabled, true);
    await api(org, 'DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`);
  });

  it('5 days of failures without a success disable the endpoint; sporadic failures never do; re-enabling resumes', async () => {
    const org = await ctx.createOrganization();
    let status = 500;
    const failing = await endpoint(
      org,
      hooks.url('/health/failing', (_r, res) => void res.writeHead(status).end()),
    );
    const start = ctx.clock.now().getTime();
    const first = await record(org);
    await attempted(org, failing.webhookEndpointId, first.id);
    ctx.clock.set(start + 5 * DAY - 3_600_000);
    const second = await record(org);
    await attempted(org, failing.webhookEndpointId, second.id);
    assert.equal((await getEndpoint(org, failing.webhookEndpointId)).enabled, true, 'not yet 5 days');
    ctx.clock.set(start + 5 * DAY);
    const third = await record(org);
    await attempted(org, failing.webhookEndpointId, third.id);
    const disabled = await getEndpoint(org, failing.webhookEndpointId);
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.disabledReason, 'failing');
    // a disabled endpoint gets no new deliveries
    const whileDisabled = await record(org);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await log(org, failing.webhookEndpointId)).filter((d) => d.eventId === whileDisabled.id).length, 0);

    // re-enabling resumes the deliveries still pending (retries of the three events) at once
    status = 200;
    const before = hooks.at('/health/failing').length;
    const enabled = await api(org, 'PATCH', `/v1/webhook-endpoints/${failing.webhookEndpointId}`, { enabled: true });
    assert.equal(enabled.statusCode, 200, enabled.body);
    assert.equal(enabled.json().disabledReason, null);
    await until(async () => (await log(org, failing.webhookEndpointId, '?status=delivered')).length === 3, 20_000, 'resumed deliveries');
    const resumedIds = new Set(
      hooks
        .at('/health/failing')
        .slice(before)
        .map((r) => r.headers['webhook-id']),
    );
    assert.deepEqual([...resumedIds].sort(), [first.id, second.id, third.id].sort());
    const next = await record(org);
    await until(async () => (await log(org, failing.webhookEndpointId)).find((d) => d.eventId === next.id && d.status === 'delivered'));
    await api(org, 'DELETE', `/v1/webhook-endpoints/${failing.webhookEndpointId}`);

    // sporadic: failures separated by a success, 9 days in all
    const other = await ctx.createOrganization();
    let sporadicStatus = 500;
    const sporadic = await endpoint(
      other,
      hooks.url('/health/sporadic', (_r, res) => void res.writeHead(sporadicStatus).end()),
    );
    const t0 = ctx.clock.now().getTime();
    for (const [offset, code] of [
      [0, 500],
      [3 * DAY, 200],
      [4 * DAY, 500],
      [6 * DAY, 500],
      [9 * DAY - 60_000, 500],
    ] as const) {
      ctx.clock.set(t0 + offset);
      sporadicStatus = code;
      const e = await record(other);
      await attempted(other, sporadic.webhookEndpointId, e.id);
    }
    const still = await getEndpoint(other, sporadic.webhookEndpointId);
    assert.equal(still.enabled, true);
    assert.equal(still.disabledReason, null);
    await api(other, 'DELETE', `/v1/webhook-endpoints/${sporadic.webhookEndpointId}`);
  });

  it('recover re-sends the failed deliveries since a time (at most 14 days back) with their webhook-ids', async () => {
    const org = await ctx.createOrganization();
    let abort = true;
    const ep = await endpoint(
      org,
      hooks.url('/recover', (_r, res) => {
        if (abort) res.writeHead(500, { 'webhook-delivery': 'abort-message' }).end();
      }),
    );
    const t0 = ctx.clock.now().getTime();
    const old = await record(org);
    await attempted(org, ep.webhookEndpointId, old.id);
    ctx.clock.set(t0 + 2 * 3_600_000);
    const since = ctx.clock.now().toISOString();
    const a = await record(org);
    const b = await record(org);
    await attempted(org, ep.webhookEndpointId, a.id);
    await attempted(org, ep.webhookEndpointId, b.id);
    abort = false;
    const before = hooks.at('/recover').length;
    const tooOld = await api(org, 'POST', `/v1/webhook-endpoints/${ep.webhookEndpointId}/recover`, {
      since: new Date(ctx.clock.now().getTime() - 15 * DAY).toISOString(),
    });
    assert.equal(tooOld.statusCode, 400, tooOld.body);
    const r = await api(org, 'POST', `/v1/webhook-endpoints/${ep.webhookEndpointId}/recover`, { since });
    assert.equal(r.statusCode, 202, r.body);
    assert.equal(r.json().recovered, 2);
    const got = await hooks.waitFor('/recover', before + 2);
    assert.deepEqual(
      got
        .slice(before)
        .map((x) => x.headers['webhook-id'])
        .sort(),
      [a.id, b.id].sort(),
    );
    await new Promise((res) => setTimeout(res, 500));
    assert.equal(hooks.at('/recover').length, before + 2, 'the older failure is not re-sent');
    await api(org, 'DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`);
  });

  it('recover called twice before the re-sent deliveries are attempted sends each failed event once', async () => {
    const org = await ctx.createOrganization();
    let abort = true;
    const ep = await endpoint(
      org,
      hooks.url('/recover-twice', (_r, res) => {
        if (abort) res.writeHead(500, { 'webhook-delivery': 'abort-message' }).end();
      }),
    );
    const since = ctx.clock.now().toISOString();
    const a = await record(org);
    const b = await record(org);
    await attempted(org, ep.webhookEndpointId, a.id);
    await attempted(org, ep.webhookEndpointId, b.id);
    // disabled, the re-queued deliveries wait unattempted until the endpoint is enabled again
    assert.equal((await api(org, 'PATCH', `/v1/webhook-endpoints/${ep.webhookEndpointId}`, { enabled: false })).statusCode, 200);
    abort = false;
    const before = hooks.at('/recover-twice').length;
    const recover = () => api(org, 'POST', `/v1/webhook-endpoints/${ep.webhookEndpointId}/recover`, { since });
    const both = await Promise.all([recover(), recover()]);
    for (const r of both) assert.equal(r.statusCode, 202, r.body);
    assert.deepEqual(both.map((r) => r.json().recovered).sort(), [0, 2]);
    assert.equal((await recover()).json().recovered, 0, 'a third call finds both already queued');
    // the worker parks them (no attempt while disabled) before the endpoint is enabled again
    await until(async () => {
      const pending = await log(org, ep.webhookEndpointId, '?status=pending');
      return pending.length === 2 && pending.every((d) => d.nextAttemptAt === null && d.attemptCount === 0);
    });
    assert.equal((await api(org, 'PATCH', `/v1/webhook-endpoints/${ep.webhookEndpointId}`, { enabled: true })).statusCode, 200);
    const got = await hooks.waitFor('/recover-twice', before + 2);
    await new Promise((res) => setTimeout(res, 1000));
    assert.equal(hooks.at('/recover-twice').length, before + 2, 'each failed event is re-sent once');
    assert.deepEqual(
      got
        .slice(before)
        .map((x) => x.headers['webhook-id'])
        .sort(),
      [a.id, b.id].sort(),
    );
    await api(org, 'DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`);
  });

  it('the prune job removes deliveries, attempts and payloads older than the retention', async () => {
    const org = await ctx.createOrganization();
    const ep = await endpoint(org, hooks.url('/prune'));
    const t0 = ctx.clock.now().getTime();
    const old = await record(org, { n: 'old' });
    await until(async () => (await log(org, ep.webhookEndpointId, '?status=delivered')).length === 1);
    ctx.clock.set(t0 + 29 * DAY);
    const recent = await record(org, { n: 'recent' });
    await until(async () => (await log(org, ep.webhookEndpointId, '?status=delivered')).length === 2);
    const oldDelivery = (await log(org, ep.webhookEndpointId)).find((d) => d.eventId === old.id);
    ctx.clock.set(t0 + 30 * DAY + 60_000);
    await ctx.deps.jobs.send('maintenance.prune', {});
    const left = await until(async () => {
      const l = await log(org, ep.webhookEndpointId);
      return l.length === 1 ? l : null;
    });
    assert.equal(left[0].eventId, recent.id);
    // the job's later step: an event goes once no delivery names it (the log above can show the step before)
    const events = await until(
      async () => {
        const rows = await ctx.database.db.selectFrom('events').select('id').where('id', 'in', [old.id, recent.id]).execute();
        return rows.length === 1 ? rows : null;
      },
      20_000,
      'the old event pruned',
    );
    assert.deepEqual(
      events.map((e) => e.id),
      [recent.id],
    );
    const attempts = await ctx.database.db
      .selectFrom('webhook_attempts')
      .select('delivery_id')
      .where('delivery_id', 'in', [oldDelivery.deliveryId, left[0].deliveryId])
      .execute();
    assert.deepEqual(
      attempts.map((a) => a.delivery_id),
      [left[0].deliveryId],
    );
    await api(org, 'DELETE', `/v1/webhook-endpoints/${ep.webhookEndpointId}`);
  });
});
