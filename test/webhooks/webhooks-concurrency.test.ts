/**
 * The per-endpoint concurrency limit, with one worker and with two worker processes sharing the counter
 * store (Redis when REDIS_URL is set), against loopback receivers that hold their requests open.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { composeRoot } from '../../src/main/composition.js';
import { EventOutbox } from '../../src/platform/events/outbox.js';
import { createJobQueue } from '../../src/platform/queue/job-queue.js';
import { startWorker } from '../../src/platform/queue/worker.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { Receivers } from './webhook-receiver.js';

describe('webhook concurrency per endpoint', () => {
  let ctx: TestContext;
  const hooks = new Receivers();
  const held: (() => void)[] = [];

  before(async () => {
    ctx = await createTestContext({
      env: {
        SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32',
        SERVICE_WEBHOOK_TIMEOUT_MS: '60000',
        SERVICE_WEBHOOK_WORKER_CONCURRENCY: '16',
      },
    });
    await hooks.start();
    await ctx.startWorker();
  });
  after(async () => {
    for (const r of held.splice(0)) r();
    await hooks.stop();
    await ctx.close();
  });

  it('a slow receiver has at most 4 deliveries in flight and does not starve another endpoint', async () => {
    const org = await ctx.createOrganization();
    const create = async (url: string, eventTypes: string[]) => {
      const r = await ctx.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: org.auth, payload: { url, eventTypes } });
      assert.equal(r.statusCode, 201, r.body);
    };
    await create(
      hooks.url('/slow', () => new Promise<void>((r) => held.push(r))),
      ['publish_job.created'],
    );
    await create(hooks.url('/fast'), ['publish_job.completed']);
    const record = (type: 'publish_job.created' | 'publish_job.completed') =>
      ctx.database.db.transaction().execute((tx) => ctx.deps.events.record(tx, { organizationId: org.organizationId, type, data: {} }));
    // more slow deliveries than the worker has delivery slots (16 here)
    for (let i = 0; i < 24; i++) await record('publish_job.created');
    await hooks.waitFor('/slow', 4);
    for (let i = 0; i < 5; i++) await record('publish_job.completed');
    await hooks.waitFor('/fast', 5, 30_000);
    assert.equal(hooks.at('/slow').length, 4, 'the slow endpoint still holds its 4 deliveries');
    assert.equal(hooks.maxInFlight.get('/slow'), 4);
    // releasing the slow receiver lets every delivery through, never more than 4 at once
    const release = setInterval(() => {
      for (const r of held.splice(0)) r();
    }, 50);
    try {
      await hooks.waitFor('/slow', 24, 60_000);
    } finally {
      clearInterval(release);
    }
    assert.equal(hooks.maxInFlight.get('/slow'), 4);
    assert.equal(new Set(hooks.at('/slow').map((r) => r.headers['webhook-id'])).size, 24);
  });

  it('the limit holds across two worker processes sharing the counter store', async () => {
    // a second worker as another process has it: its own composition (own in-process slots), its own
    // pg-boss, the same database and shared counter store (Redis when configured)
    const queue = createJobQueue(ctx.database, { supervise: false, schedule: false });
    await queue.start();
    const second = composeRoot({ ...ctx.deps, jobs: queue, events: new EventOutbox(() => ctx.clock.now()) });
    const worker = await startWorker({
      db: ctx.database.db,
      queue,
      jobs: [second.areas.webhooks.deliverJob],
      heartbeatSeconds: 1,
      logger: pino({ level: 'silent' }),
    });
    try {
      const org = await ctx.createOrganization();
      const r = await ctx.app.inject({
        method: 'POST',
        url: '/v1/webhook-endpoints',
        headers: org.auth,
        payload: { url: hooks.url('/slow-two', () => new Promise<void>((res) => held.push(res))) },
      });
      assert.equal(r.statusCode, 201, r.body);
      for (let i = 0; i < 24; i++)
        await ctx.database.db
          .transaction()
          .execute((tx) => ctx.deps.events.record(tx, { organizationId: org.organizationId, type: 'publish_job.created', data: {} }));
      await hooks.waitFor('/slow-two', 4);
      // both workers keep asking (deferred jobs come back every second): still 4
      await new Promise((res) => setTimeout(res, 2500));
      assert.equal(hooks.at('/slow-two').length, 4);
      assert.equal(hooks.maxInFlight.get('/slow-two'), 4);
      const release = setInterval(() => {
        for (const h of held.splice(0)) h();
      }, 50);
      try {
        await hooks.waitFor('/slow-two', 24, 60_000);
      } finally {
        clearInterval(release);
      }
      assert.equal(hooks.maxInFlight.get('/slow-two'), 4);
      assert.equal(new Set(hooks.at('/slow-two').map((x) => x.headers['webhook-id'])).size, 24);
    } finally {
      for (const h of held.splice(0)) h();
      await worker.stop(5000);
    }
  });
});
