/**
 * Migration 0026 (fewer index writes per webhook delivery): on the database in use (embedded and
 * PostgreSQL) the delivery table keeps the indexes its statements read and no more, and the migration
 * undoes and applies again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { down, up } from '../../../src/platform/db/migrations/0026-webhook-delivery-indexes.js';
import { createTestContext, type TestContext } from '../../support/harness.js';

describe('migration 0026: the webhook delivery indexes', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  const indexes = async () =>
    (
      await sql<{ indexname: string; indexdef: string }>`
        select indexname, indexdef from pg_indexes where tablename = 'webhook_deliveries' order by indexname`.execute(ctx.database.db)
    ).rows;

  it('keeps five indexes, the finished rows alone in the one by age; undoes and applies again', async () => {
    const latest = [
      'webhook_deliveries_claim_idx',
      'webhook_deliveries_endpoint_status_idx',
      'webhook_deliveries_event_idx',
      'webhook_deliveries_finished_idx',
      'webhook_deliveries_pkey',
    ];
    assert.deepEqual(
      (await indexes()).map((i) => i.indexname),
      latest,
    );
    const finished = (await indexes()).find((i) => i.indexname === 'webhook_deliveries_finished_idx')!;
    assert.match(finished.indexdef, /\(created_at\) WHERE \(status <> 'pending'::text\)$/);

    await down(ctx.database.db);
    assert.deepEqual(
      (await indexes()).map((i) => i.indexname),
      [
        'webhook_deliveries_claim_idx',
        'webhook_deliveries_created_idx',
        'webhook_deliveries_endpoint_idx',
        'webhook_deliveries_endpoint_status_idx',
        'webhook_deliveries_event_idx',
        'webhook_deliveries_pkey',
      ],
    );
    await up(ctx.database.db);
    assert.deepEqual(
      (await indexes()).map((i) => i.indexname),
      latest,
    );
  });
});
