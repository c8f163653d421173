import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runMaintenance } from '../../src/modules/maintenance/maintenance.jobs.js';
import { createTestContext } from '../support/harness.js';

describe('health', () => {
  it('liveness has exactly the spec shape', async () => {
    const ctx = await createTestContext();
    try {
      const res = await ctx.app.inject({ url: '/v1/health/live' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { ok: true, service: 'service-api', version: '0.1.0-test' });
    } finally {
      await ctx.close();
    }
  });

  it('readiness is 503 with a stopped worker and 200 once a worker beats', async () => {
    const ctx = await createTestContext();
    try {
      const before = await ctx.app.inject({ url: '/v1/health/ready' });
      assert.equal(before.statusCode, 503);
      const body = before.json();
      assert.equal(body.ok, false);
      assert.equal(body.service, 'service-api');
      assert.deepEqual(Object.keys(body.components).sort(), ['database', 'redis', 'worker']);
      assert.equal(body.components.database.ok, true);
      assert.equal(body.components.worker.ok, false);

      const worker = await ctx.startWorker();
      const ready = await ctx.app.inject({ url: '/v1/health/ready' });
      assert.equal(ready.statusCode, 200, ready.body);
      assert.equal(ready.json().components.worker.ok, true);

      // a heartbeat older than SERVICE_WORKER_STALE_SECONDS counts as a stopped worker
      ctx.clock.advance(120_000);
      assert.equal((await ctx.app.inject({ url: '/v1/health/ready' })).json().components.worker.ok, false);
      ctx.clock.advance(-120_000);

      await worker.stop(5000);
      const after = await ctx.app.inject({ url: '/v1/health/ready' });
      assert.equal(after.statusCode, 503);
      assert.equal(after.json().components.worker.ok, false);
    } finally {
      await ctx.close();
    }
  });

  it('readiness reports Redis down (503) when REDIS_URL is configured but unreachable', async () => {
    const ctx = await createTestContext({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      await ctx.startWorker();
      const res = await ctx.app.inject({ url: '/v1/health/ready' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().components.redis.ok, false);
      assert.equal(res.json().components.redis.configured, true);
      assert.equal(res.json().components.database.ok, true);
      assert.equal(res.json().components.worker.ok, true);
    } finally {
      await ctx.close();
    }
  });

  it('storage readiness has the spec shape', async () => {
    const ctx = await createTestContext();
    try {
      const res = await ctx.app.inject({ url: '/v1/health/storage' });
      const body = res.json();
      assert.equal(typeof body.ok, 'boolean');
      assert.equal(body.service, 'service-api');
      assert.equal(typeof body.mediaStorage.configured, 'boolean');
      assert.equal(res.statusCode, body.ok ? 200 : 503);
    } finally {
      await ctx.close();
    }
  });
});

describe('maintenance job', () => {
  it('prunes expired sessions, directly and through pg-boss in the worker', async () => {
    const ctx = await createTestContext();
    try {
      const org = await ctx.createOrganization();
      const insert = (id: string, expires: Date) =>
        ctx.database.db
          .insertInto('auth_sessions')
          .values({ id, organization_id: org.organizationId, user_id: org.userId, token_hash: id, expires_at: expires })
          .execute();
      const now = ctx.clock.now();
      await insert('ses_old', new Date(now.getTime() - 1000));
      await insert('ses_live', new Date(now.getTime() + 3_600_000));
      const result = await runMaintenance(ctx.database.db, now, ctx.root.prunes.all());
      assert.equal(result.expiredSessions, 1);
      const left = await ctx.database.db.selectFrom('auth_sessions').select('id').execute();
      assert.deepEqual(
        left.map((r) => r.id),
        ['ses_live'],
      );

      // the same job through the queue and a worker
      await insert('ses_old2', new Date(now.getTime() - 1000));
      await ctx.startWorker();
      await ctx.deps.jobs.send('maintenance.prune', {});
      const deadline = Date.now() + 10_000;
      for (;;) {
        const rows = await ctx.database.db.selectFrom('auth_sessions').select('id').where('id', '=', 'ses_old2').execute();
        if (rows.length === 0) break;
        assert.ok(Date.now() < deadline, 'maintenance job did not run');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await ctx.close();
    }
  });
});
