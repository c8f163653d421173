/**
 * Deliveries claimed from their table: a claimed delivery is leased (no second claim, so no second send
 * while the first runs); once the lease of a worker that never recorded ends, the delivery is claimed and
 * sent again with the same webhook-id, and the late outcome of the first attempt is not recorded twice;
 * two worker processes claiming from one table never send a delivery twice. A claim writes only the lease
 * column (a HOT update: no index entry), and the delivery keeps its place in the queue.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { composeRoot } from '../../src/main/composition.js';
import { webhookDeliveryRepository } from '../../src/modules/webhooks/webhooks-delivery.repository.js';
import * as m0029 from '../../src/platform/db/migrations/0029-webhook-delivery-leases.js';
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
    await sql`update webhook_deliveries set leased_until = now() - interval '1 second' where id = ${first.delivery_id}`.execute(
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

  it('a claim writes only the lease column: the delivery keeps its place in the queue and no index entry is written', async () => {
    const org = await ctx.createOrganization();
    await endpoint(org, '/hot');
    const event = await record(org.organizationId);
    const before = await ctx.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'claim_at', 'leased_until'])
      .where('event_id', '=', event.id)
      .executeTakeFirstOrThrow();
    assert.equal(before.leased_until, null);
    const now = new Date();
    const leaseUntil = new Date(now.getTime() + 40_000);
    // the backend's pending statistics, read before and after the claim in one transaction (they are only
    // flushed at a transaction's end), count exactly the claim's row updates and how many were HOT
    const counts = await ctx.database.db.transaction().execute(async (tx) => {
      const stats = async () =>
        (
          await sql<{ updated: string; hot: string }>`
            select pg_stat_get_xact_tuples_updated('webhook_deliveries'::regclass) as updated,
                   pg_stat_get_xact_tuples_hot_updated('webhook_deliveries'::regclass) as hot`.execute(tx)
        ).rows[0]!;
      const start = await stats();
      const claimed = await webhookDeliveryRepository.claimDue(tx, now, leaseUntil, 100, []);
      assert.ok(claimed.some((c) => c.delivery_id === before.id));
      const end = await stats();
      return { claimed: claimed.length, updated: Number(end.updated) - Number(start.updated), hot: Number(end.hot) - Number(start.hot) };
    });
    assert.equal(counts.updated, counts.claimed);
    assert.equal(counts.hot, counts.claimed, 'every claimed row was updated in place (HOT): no index entry written');
    const afterClaim = await ctx.database.db
      .selectFrom('webhook_deliveries')
      .select(['claim_at', 'leased_until', 'status', 'attempt_count'])
      .where('id', '=', before.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(afterClaim, { claim_at: before.claim_at, leased_until: leaseUntil, status: 'pending', attempt_count: 0 });
    assert.deepEqual(await ctx.root.areas.webhooks.deliverer.claim(10), [], 'leased: not claimable before the lease ends');
    // the lease ends: claimable again, first in the queue (its place kept)
    await sql`update webhook_deliveries set leased_until = now() - interval '1 second' where id = ${before.id}`.execute(ctx.database.db);
    const [again] = await ctx.root.areas.webhooks.deliverer.claim(10);
    assert.equal(again?.delivery_id, before.id);
    assert.equal(await ctx.root.areas.webhooks.deliverer.deliver(again!), 'delivered');
    const done = await ctx.database.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'claim_at', 'leased_until'])
      .where('id', '=', before.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(done, { status: 'delivered', claim_at: null, leased_until: null });
  });

  it('migration 0029 undone: a delivery leased now is claimable when its lease ends, as before the lease column', async () => {
    const org = await ctx.createOrganization();
    await endpoint(org, '/undo');
    const event = await record(org.organizationId);
    const [claimed] = (await ctx.root.areas.webhooks.deliverer.claim(50)).filter((c) => c.event_id === event.id);
    assert.ok(claimed);
    const lease = await ctx.database.db
      .selectFrom('webhook_deliveries')
      .select('leased_until')
      .where('id', '=', claimed.delivery_id)
      .executeTakeFirstOrThrow();
    await m0029.down(ctx.database.db);
    try {
      const row = await sql<{ claim_at: Date }>`select claim_at from webhook_deliveries where id = ${claimed.delivery_id}`.execute(
        ctx.database.db,
      );
      assert.deepEqual(row.rows[0]!.claim_at, lease.leased_until);
    } finally {
      await m0029.up(ctx.database.db);
    }
    // applied again: the delivery is claimable at its lease's end (now in claim_at), and delivered once
    await sql`update webhook_deliveries set claim_at = now() - interval '1 second' where id = ${claimed.delivery_id}`.execute(
      ctx.database.db,
    );
    const [again] = (await ctx.root.areas.webhooks.deliverer.claim(50)).filter((c) => c.event_id === event.id);
    assert.equal(again?.delivery_id, claimed.delivery_id);
    assert.equal(await ctx.root.areas.webhooks.deliverer.deliver(again!), 'delivered');
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
