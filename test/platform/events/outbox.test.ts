import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestContext } from '../../support/harness.js';

describe('event outbox', () => {
  it('keeps an event exactly when its transaction commits, numbers a sequence and tells subscribers in the transaction', async () => {
    const ctx = await createTestContext();
    try {
      const { organizationId } = await ctx.createOrganization();
      const heard: string[] = [];
      ctx.deps.events.subscribe(async (tx, event) => {
        // the listener runs inside the transaction: it sees the row it is told about
        const row = await tx.selectFrom('events').select('id').where('id', '=', event.id).executeTakeFirst();
        heard.push(`${event.type}:${event.sequence}:${row ? 'visible' : 'missing'}`);
      });
      await ctx.database.db
        .transaction()
        .execute(async (tx) => {
          await ctx.deps.events.record(tx, { organizationId, type: 'publish_job.created', data: { a: 1 }, sequenceKey: 'job_x' });
          throw new Error('abort');
        })
        .catch(() => undefined);
      for (const type of ['publish_job.created', 'publish_target.published', 'publish_job.completed'] as const) {
        await ctx.database.db.transaction().execute(async (tx) => {
          await ctx.deps.events.record(tx, { organizationId, type, data: { type }, sequenceKey: 'job_x' });
        });
      }
      const rows = await ctx.database.db.selectFrom('events').selectAll().orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => [r.type, r.sequence]),
        [
          ['publish_job.created', 1],
          ['publish_target.published', 2],
          ['publish_job.completed', 3],
        ],
      );
      assert.deepEqual(rows[1]!.data, { type: 'publish_target.published' });
      // fanned_out_at belongs to the webhooks fan-out, which may already have run inside the same transaction
      assert.ok(rows.every((r) => r.id.startsWith('evt_') && r.organization_id === organizationId));
      assert.deepEqual(heard, [
        'publish_job.created:1:visible',
        'publish_job.created:1:visible',
        'publish_target.published:2:visible',
        'publish_job.completed:3:visible',
      ]);
    } finally {
      await ctx.close();
    }
  });

  it('writes events marked fanned out when the fan-out runs in their transaction; a failing fan-out rolls the change back', async () => {
    const ctx = await createTestContext();
    try {
      const { organizationId } = await ctx.createOrganization();
      const db = ctx.database.db;
      const seen: string[] = [];
      // the composition root subscribed the webhooks fan-out: it sees the rows, already marked
      ctx.deps.events.subscribeFanOut(async (tx, events) => {
        for (const e of events) {
          const row = await tx.selectFrom('events').select('fanned_out_at').where('id', '=', e.id).executeTakeFirstOrThrow();
          seen.push(`${e.type}:${row.fanned_out_at ? 'marked' : 'unmarked'}`);
          if ((e.data as { fail?: boolean }).fail) throw new Error('fan-out failed');
        }
      });
      await db.transaction().execute(async (tx) => {
        await ctx.deps.events.recordMany(tx, [
          { organizationId, type: 'publish_target.published', data: {}, sequenceKey: 'job_m' },
          { organizationId, type: 'publish_job.completed', data: {}, sequenceKey: 'job_m' },
        ]);
      });
      await db
        .transaction()
        .execute(async (tx) => {
          await ctx.deps.events.record(tx, { organizationId, type: 'publish_job.created', data: { fail: true }, sequenceKey: 'job_n' });
        })
        .catch(() => undefined);
      assert.deepEqual(seen, ['publish_target.published:marked', 'publish_job.completed:marked', 'publish_job.created:marked']);
      const rows = await db.selectFrom('events').select(['type', 'created_at', 'fanned_out_at']).orderBy('id').execute();
      // the failed fan-out took its event with it; the others are marked at their creation time, so the sweep skips them
      assert.deepEqual(
        rows.map((r) => [r.type, new Date(r.fanned_out_at!).getTime() === new Date(r.created_at).getTime()]),
        [
          ['publish_target.published', true],
          ['publish_job.completed', true],
        ],
      );
    } finally {
      await ctx.close();
    }
  });
});
