import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { defineJob } from '../../../src/platform/queue/job-queue.js';
import { startWorker } from '../../../src/platform/queue/worker.js';
import { createTestContext } from '../../support/harness.js';

describe('jobs', () => {
  it('a job sent inside a rolled-back transaction never runs; one sent in a committed transaction does', async () => {
    const ctx = await createTestContext();
    try {
      const seen: string[] = [];
      const job = defineJob<{ tag: string }>({ name: 'test.tx', handler: async (d) => void seen.push(d.tag) });
      await ctx.deps.jobs.ensureQueue(job);
      await ctx.database.db
        .transaction()
        .execute(async (tx) => {
          await ctx.deps.jobs.send('test.tx', { tag: 'rolled-back' }, { tx });
          throw new Error('abort');
        })
        .catch(() => undefined);
      await ctx.database.db.transaction().execute(async (tx) => {
        await ctx.deps.jobs.send('test.tx', { tag: 'committed' }, { tx });
      });
      const worker = await startWorker({
        db: ctx.database.db,
        queue: ctx.deps.jobs,
        jobs: [job],
        heartbeatSeconds: 1,
        logger: pino({ level: 'silent' }),
      });
      const deadline = Date.now() + 10_000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 1500));
      await worker.stop(5000);
      assert.deepEqual(seen, ['committed']);
    } finally {
      await ctx.close();
    }
  });

  it('graceful stop waits for the job in flight to finish', async () => {
    const ctx = await createTestContext();
    try {
      let started = false;
      let finished = false;
      const job = defineJob<Record<string, never>>({
        name: 'test.slow',
        handler: async () => {
          started = true;
          await new Promise((r) => setTimeout(r, 1500));
          finished = true;
        },
      });
      const worker = await startWorker({
        db: ctx.database.db,
        queue: ctx.deps.jobs,
        jobs: [job],
        heartbeatSeconds: 1,
        logger: pino({ level: 'silent' }),
      });
      await ctx.deps.jobs.send('test.slow', {});
      const deadline = Date.now() + 10_000;
      while (!started && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(started, 'job did not start');
      await worker.stop(10_000);
      assert.ok(finished, 'stop returned before the job in flight finished');
      const beats = await ctx.database.db.selectFrom('worker_heartbeats').selectAll().execute();
      assert.equal(beats.length, 0, 'a stopped worker removes its heartbeat');
    } finally {
      await ctx.close();
    }
  });
});
