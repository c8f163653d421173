/**
 * Deliveries claimed from their table: a claimed delivery is leased (no second claim, so no second send
 * while the first runs); once the lease of a worker that never recorded ends, the delivery is claimed and
 * sent again with the same webhook-id, and the late outcome of the first attempt is not recorded twice;
 * two worker processes claiming from one table never send a delivery twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { composeRoot } from '../../src/main/composition.js';
import { EventOutbox } from '../../src/platform/events/outbox.js';
import { createJobQueue } from '../../src/platform/queue/job-queue.js';
import { startWorker } from '../../src/platform/queue/worker.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { Receivers, until } from './webhook-receiver.js';

describe('webhook deliveries claimed from their table', () => {
  let ctx: TestContext;
  const hooks = new Receivers();

  before(async () => {
    ctx = await createTestContext({ env: { SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32' } });
    await hooks.start();
  });
  after(async () => {
    await hooks.stop();
    await ctx.close();
  });

  const endpoint = async (org: Awaited<ReturnType<TestContext['createOrganization']>>, path: string) => {
    const r = await ctx.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: org.auth, payload: { url: hooks.url(path) } });
    assert.equal(r.statusCode, 201, r.body);
    return r.json() as { webhookEndpointId: string; secret: string };
  };
  const record = (organizationId: string, data: Record<string, unknown> = {}) =>
    ctx.database.db.transaction().execute((tx) => ctx.deps.events.record(tx, { organizationId, type: 'publish_job.created', data }));

  it('a claim is leased; once a lease ends unrecorded the delivery is sent again with the same webhook-id, recorded once', async () => {
    const org = await ctx.createOrganization();
    const ep = await endpoint(org, '/lease');
    const event = await record(org.organizationId);
    const deliverer = ctx.root.areas.webhooks.deliverer;
    // a worker claims the delivery and dies before sending (no worker runs in this test yet)
    const [first] = await deliverer.claim(10);
    assert.ok(first, 'the new delivery is due at once');
    assert.equal(first.event_id, event.id);
    assert.equal(first.organization_id, org.organizationId);
    assert.deepEqual(await deliverer.claim(10), [], 'leased: no second claim while the lease runs');
    // ... its lease ends (a timeout and a margin after the claim)
    await sql`update webhook_deliveries set claim_at = now() - interval '1 second' where id = ${first.delivery_id}`.execute(
      ctx.database.db,
    );
    const [again] = await deliverer.claim(10);
    assert.equal(again?.delivery_id, first.delivery_id);
    assert.equal(await deliverer.deliver(again!), 'delivered');
    // the first claim's attempt, late, finds the delivery recorded: sent again (at least once), not recorded twice
    assert.equal(await deliverer.deliver(first), 'stale');
    const got = hooks.at('/lease');
    assert.equal(got.length, 2);
    for (const x of got) {
      assert.equal(x.headers['webhook-id'], event.id);
      new Webhook(ep.secret).verify(x.body, x.headers);
    }
    const row = await ctx.database.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempt_count', 'claim_at'])
      .where('id', '=', first.delivery_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'delivered', attempt_count: 1, claim_at: null });
    const attempts = await ctx.database.db
      .selectFrom('webhook_attempts')
      .select('attempt')
      .where('delivery_id', '=', first.delivery_id)
      .execute();
    assert.equal(attempts.length, 1);
  });

  it('two worker processes claiming from one table send every delivery once', { timeout: 120_000 }, async () => {
    // a second worker as another process has it: its own composition and queue, the same database
    const queue = createJobQueue(ctx.database, { supervise: false, schedule: false });
    await queue.start();
    const second = composeRoot({ ...ctx.deps, jobs: queue, events: new EventOutbox(() => ctx.clock.now()) });
    await ctx.startWorker();
    const worker = await startWorker({
      db: ctx.database.db,
      queue,
      jobs: [second.areas.webhooks.deliverJob],
      heartbeatSeconds: 1,
      logger: pino({ level: 'silent' }),
    });
    try {
      const org = await ctx.createOrganization();
      const paths = ['/two/a', '/two/b', '/two/c'];
      for (const p of paths) await endpoint(org, p);
      const events = 120;
      const ids = new Set<string>();
      const batch: Promise<{ id: string }>[] = [];
      for (let i = 0; i < events; i++) {
        batch.push(record(org.organizationId, { i }));
        if (batch.length === 8) for (const e of await Promise.all(batch.splice(0))) ids.add(e.id);
      }
      for (const e of await Promise.all(batch)) ids.add(e.id);
      for (const p of paths) await hooks.waitFor(p, events, 60_000);
      // anything sent twice would arrive within the lease's margin; the deliveries all recorded once
      await until(async () => {
        const r = await sql<{
          n: number;
        }>`select count(*)::int as n from webhook_deliveries where organization_id = ${org.organizationId} and status = 'delivered' and attempt_count = 1`.execute(
          ctx.database.db,
        );
        return r.rows[0]!.n === events * paths.length;
      });
      await new Promise((r) => setTimeout(r, 500));
      for (const p of paths) {
        const got = hooks.at(p).map((x) => x.headers['webhook-id']!);
        assert.equal(got.length, events, `${p}: no delivery sent twice`);
        assert.deepEqual(new Set(got), ids);
      }
    } finally {
      await worker.stop(5000);
      await second.areas.webhooks.deliverer.close();
    }
  });
});
