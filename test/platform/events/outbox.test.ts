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
});
