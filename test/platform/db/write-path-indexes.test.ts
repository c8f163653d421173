/**
 * Migrations 0026 and 0027 (fewer index writes per webhook delivery, attempt and publish target): on the
 * database in use (embedded and PostgreSQL) each table keeps the indexes its statements read and no more,
 * and each migration undoes and applies again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { down, up } from '../../../src/platform/db/migrations/0026-webhook-delivery-indexes.js';
import * as m0027 from '../../../src/platform/db/migrations/0027-publish-target-indexes.js';
import { createTestContext, type TestContext } from '../../support/harness.js';

describe('migrations 0026 and 0027: the indexes of the write paths', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  const indexes = async (table = 'webhook_deliveries') =>
    (
      await sql<{ indexname: string; indexdef: string }>`
        select indexname, indexdef from pg_indexes where tablename = ${table} order by indexname`.execute(ctx.database.db)
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

  it('keys an attempt by its delivery and number, its one index; undoes and applies again', async () => {
    const attempts = async () => (await indexes('webhook_attempts')).map((i) => `${i.indexname}: ${i.indexdef.replace(/^.* USING /, '')}`);
    const latest = ['webhook_attempts_pkey: btree (delivery_id, attempt)'];
    assert.deepEqual(await attempts(), latest);
    await down(ctx.database.db);
    assert.deepEqual(await attempts(), [
      'webhook_attempts_delivery_idx: btree (delivery_id, attempt)',
      'webhook_attempts_pkey: btree (id)',
    ]);
    await up(ctx.database.db);
    assert.deepEqual(await attempts(), latest);
  });

  it('publish targets: no channel index by scheduled time beside the one by placed time; undoes and applies again', async () => {
    const names = async () => (await indexes('publish_targets')).map((i) => i.indexname);
    const latest = [
      'publish_targets_brand_time_idx',
      'publish_targets_channel_time_idx',
      'publish_targets_due_idx',
      'publish_targets_first_comment_idx',
      'publish_targets_job_idx',
      'publish_targets_pkey',
      'publish_targets_published_idx',
    ];
    assert.deepEqual(await names(), latest);
    await m0027.down(ctx.database.db);
    assert.deepEqual(await names(), [...latest, 'publish_targets_channel_idx'].sort());
    await m0027.up(ctx.database.db);
    assert.deepEqual(await names(), latest);
  });
});
