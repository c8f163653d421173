/**
 * Retention: the maintenance prune removes the rows of the tables that only grow once they are older
 * than their setting, keeps the newer ones and every row still needed (a pending webhook delivery and
 * its event, an event not yet fanned out, the newest event of a sequence, an unprocessed inbound
 * delivery, a queued or running automation run, an idempotency record inside its window, a live
 * session), and deletes in batches of at most SERVICE_PRUNE_BATCH_SIZE rows, at most
 * SERVICE_PRUNE_MAX_BATCHES of them per table and run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { pruneOnce } from '../../src/modules/maintenance/maintenance.module.js';
import { createTestContext, type TestContext } from '../support/harness.js';

const DAY = 86_400_000;

describe('maintenance prune: retention', () => {
  let ctx: TestContext;
  let org: { organizationId: string; userId: string };
  let now: Date;
  const ago = (days: number) => new Date(now.getTime() - days * DAY);

  before(async () => {
    ctx = await createTestContext({
      overrides: {
        SERVICE_WEBHOOK_RETENTION_DAYS: 30,
        SERVICE_EVENT_RETENTION_DAYS: 30,
        SERVICE_PROVIDER_WEBHOOK_RETENTION_DAYS: 30,
        SERVICE_AUTOMATION_RUN_RETENTION_DAYS: 90,
        SERVICE_PRUNE_BATCH_SIZE: 5,
        SERVICE_PRUNE_MAX_BATCHES: 3,
      },
    });
    org = await ctx.createOrganization();
    now = ctx.clock.now();
  });
  after(async () => ctx?.close());

  const db = () => ctx.database.db;
  const prune = () => pruneOnce({ ...ctx.deps, prunes: ctx.root.prunes }, now);
  const ids = async (table: 'events' | 'webhook_deliveries' | 'provider_webhook_deliveries' | 'automation_runs' | 'auth_sessions') =>
    (await sql<{ id: string }>`select id from ${sql.table(table)} order by id`.execute(db())).rows.map((r) => r.id);

  const event = (id: string, createdAt: Date, extra: { fanned?: boolean; key?: string; seq?: number } = {}) =>
    db()
      .insertInto('events')
      .values({
        id,
        organization_id: org.organizationId,
        type: 'publish_job.created',
        data: '{}',
        sequence_key: extra.key ?? null,
        sequence: extra.seq ?? null,
        created_at: createdAt,
        fanned_out_at: extra.fanned === false ? null : createdAt,
      } as never)
      .execute();
  const delivery = (id: string, eventId: string, status: string, createdAt: Date) =>
    db()
      .insertInto('webhook_deliveries')
      .values({
        id,
        organization_id: org.organizationId,
        endpoint_id: 'whe_retention',
        event_id: eventId,
        event_type: 'publish_job.created',
        status,
        attempt_count: 1,
        created_at: createdAt,
        updated_at: createdAt,
      })
      .execute();

  it('removes webhook deliveries, their attempts and events past the retention, and keeps what is still needed', async () => {
    await db()
      .insertInto('webhook_endpoints')
      .values({
        id: 'whe_retention',
        organization_id: org.organizationId,
        url: 'https://example.com/hook',
        description: null,
        event_types: '[]',
        enabled: true,
        disabled_reason: null,
        metadata: '{}',
        secret_enc: 'x',
        previous_secret_enc: null,
        created_at: ago(400),
        updated_at: ago(400),
      })
      .execute();
    await event('evt_old_delivered', ago(31));
    await delivery('whd_old_delivered', 'evt_old_delivered', 'delivered', ago(31));
    await db()
      .insertInto('webhook_attempts')
      .values({ id: 'wha_old', delivery_id: 'whd_old_delivered', attempt: 1, status_code: 200, duration_ms: 5, created_at: ago(31) })
      .execute();
    await event('evt_old_failed', ago(60));
    await delivery('whd_old_failed', 'evt_old_failed', 'failed', ago(60));
    await event('evt_old_pending', ago(200));
    await delivery('whd_old_pending', 'evt_old_pending', 'pending', ago(200));
    await event('evt_recent', ago(29));
    await delivery('whd_recent', 'evt_recent', 'delivered', ago(29));
    await event('evt_old_unfanned', ago(100), { fanned: false });
    await event('evt_old_plain', ago(45));
    await event('evt_seq_1', ago(50), { key: 'job_retention', seq: 1 });
    await event('evt_seq_2', ago(40), { key: 'job_retention', seq: 2 });

    const counts = await prune();
    assert.equal(counts.webhook_deliveries, 2);
    assert.equal(counts.events, 4, 'the delivered, the failed, the plain one and the older of the sequence');
    assert.deepEqual(await ids('webhook_deliveries'), ['whd_old_pending', 'whd_recent']);
    assert.deepEqual(await ids('events'), ['evt_old_pending', 'evt_old_unfanned', 'evt_recent', 'evt_seq_2']);
    const attempts = await db().selectFrom('webhook_attempts').select('id').execute();
    assert.deepEqual(attempts, [], 'attempts go with their delivery');
    // the next event of the sequence continues from the one kept
    const next = await ctx.deps.events.record(db(), {
      organizationId: org.organizationId,
      type: 'publish_job.created',
      data: {},
      sequenceKey: 'job_retention',
    });
    assert.equal(next.sequence, 3);
  });

  it('removes processed inbound platform deliveries past the retention, never unprocessed ones', async () => {
    const inbound = (id: string, receivedAt: Date, processed: boolean) =>
      sql`insert into provider_webhook_deliveries (id, platform, dedupe_key, payload, event_count, received_at, processed_at)
          values (${id}, 'youtube', ${id}, '{}'::jsonb, 1, ${receivedAt}, ${processed ? receivedAt : null})`.execute(db());
    await inbound('pwd_old', ago(31), true);
    await inbound('pwd_old_unprocessed', ago(300), false);
    await inbound('pwd_recent', ago(2), true);
    const counts = await prune();
    assert.equal(counts.provider_webhook_deliveries, 1);
    assert.deepEqual(await ids('provider_webhook_deliveries'), ['pwd_old_unprocessed', 'pwd_recent']);
  });

  it('removes finished automation runs past the retention, never queued or running ones', async () => {
    const { brandId } = await ctx.createBrand(org.organizationId, 'Retention brand');
    await db()
      .insertInto('automation_sources')
      .values({
        id: 'aus_retention',
        organization_id: org.organizationId,
        brand_id: brandId,
        kind: 'rss',
        name: 'feed',
        enabled: true,
        config: '{}',
        schedule: null,
        last_run_at: null,
        created_at: ago(400),
        updated_at: ago(400),
        deleted_at: null,
      } as never)
      .execute();
    const run = (id: string, status: string, createdAt: Date) =>
      db()
        .insertInto('automation_runs')
        .values({
          id,
          organization_id: org.organizationId,
          source_id: 'aus_retention',
          status,
          trigger: 'schedule',
          dry_run: false,
          tick_key: null,
          started_at: createdAt,
          finished_at: createdAt,
          error: null,
          output: '{}',
          created_at: createdAt,
          updated_at: createdAt,
        } as never)
        .execute();
    await run('aur_old_ok', 'succeeded', ago(91));
    await run('aur_old_failed', 'failed', ago(120));
    await run('aur_old_cancelled', 'cancelled', ago(365));
    await run('aur_old_running', 'running', ago(95));
    await run('aur_old_queued', 'queued', ago(95));
    await run('aur_recent', 'succeeded', ago(89));
    const counts = await prune();
    assert.equal(counts.automation_runs, 3);
    assert.deepEqual(await ids('automation_runs'), ['aur_old_queued', 'aur_old_running', 'aur_recent']);
  });

  it('removes idempotency records past their window and expired sessions, never live ones', async () => {
    await db()
      .insertInto('tool_api_keys')
      .values({
        id: 'tak_retention',
        user_id: org.userId,
        name: 'k',
        prefix: 'tak_retention',
        last_four: 'abcd',
        secret_hash: 'h',
        scopes: ['utm'],
      } as never)
      .execute();
    const record = (key: string, expiresAt: Date) =>
      db()
        .insertInto('tool_idempotency')
        .values({
          api_key_id: 'tak_retention',
          tool: 'utm',
          idempotency_key: key,
          fingerprint: 'f',
          state: 'completed',
          response_status: 200,
          response_body: '{}',
          created_at: new Date(expiresAt.getTime() - DAY),
          expires_at: expiresAt,
        } as never)
        .execute();
    await record('expired', new Date(now.getTime() - 1000));
    await record('inside-window', new Date(now.getTime() + 60_000));
    const session = (id: string, expiresAt: Date) =>
      db()
        .insertInto('auth_sessions')
        .values({ id, organization_id: org.organizationId, user_id: org.userId, token_hash: id, expires_at: expiresAt })
        .execute();
    await session('ses_expired', new Date(now.getTime() - 1000));
    await session('ses_live', new Date(now.getTime() + 3_600_000));
    const counts = await prune();
    assert.equal(counts.tool_idempotency, 1);
    assert.equal(counts.expiredSessions, 1);
    const left = await db().selectFrom('tool_idempotency').select('idempotency_key').execute();
    assert.deepEqual(
      left.map((r) => r.idempotency_key),
      ['inside-window'],
    );
    assert.deepEqual(await ids('auth_sessions'), ['ses_live']);
  });

  it('removes OAuth codes and tokens and sign-in exchange codes a day past their expiry, never usable ones', async () => {
    await db()
      .insertInto('oauth_apps')
      .values({
        id: 'oap_retention',
        organization_id: org.organizationId,
        name: 'r',
        client_id: 'client-retention',
        redirect_uris: ['https://app.example.test/cb'],
        scopes: ['brands:read'],
      } as never)
      .execute();
    await db()
      .insertInto('oauth_authorizations')
      .values({
        id: 'oaz_retention',
        organization_id: org.organizationId,
        oauth_app_id: 'oap_retention',
        user_id: org.userId,
        scopes: ['brands:read'],
      })
      .execute();
    const code = (hash: string, expiresAt: Date) =>
      db()
        .insertInto('oauth_codes')
        .values({
          code_hash: hash,
          authorization_id: 'oaz_retention',
          redirect_uri: 'https://app.example.test/cb',
          code_challenge: 'c',
          scopes: [],
          expires_at: expiresAt,
        })
        .execute();
    const token = (id: string, expiresAt: Date) =>
      db()
        .insertInto('oauth_tokens')
        .values({
          id,
          token_hash: id,
          kind: 'refresh',
          authorization_id: 'oaz_retention',
          family_id: 'fam',
          scopes: [],
          expires_at: expiresAt,
        } as never)
        .execute();
    const exchange = (hash: string, expiresAt: Date) =>
      db()
        .insertInto('auth_exchange_codes')
        .values({
          code_hash: hash,
          nonce_hash: 'n',
          binding_hash: 'b',
          origin: 'https://app.example.test',
          organization_id: org.organizationId,
          user_id: org.userId,
          expires_at: expiresAt,
        })
        .execute();
    // expired two days ago: removed; expired an hour ago (a replay is still recognised) or live: kept
    await code('code-old', ago(2));
    await code('code-recent', new Date(now.getTime() - 3_600_000));
    await code('code-live', new Date(now.getTime() + 60_000));
    await token('tok-old', ago(2));
    await token('tok-live', new Date(now.getTime() + DAY));
    await exchange('ex-old', ago(2));
    await exchange('ex-recent', new Date(now.getTime() - 60_000));
    const counts = await prune();
    assert.equal(counts.oauth_codes, 1);
    assert.equal(counts.oauth_tokens, 1);
    assert.equal(counts.auth_exchange_codes, 1);
    const left = async (table: 'oauth_codes' | 'auth_exchange_codes') =>
      (await sql<{ code_hash: string }>`select code_hash from ${sql.table(table)} order by code_hash`.execute(db())).rows.map(
        (r) => r.code_hash,
      );
    assert.deepEqual(await left('oauth_codes'), ['code-live', 'code-recent']);
    assert.deepEqual(await left('auth_exchange_codes'), ['ex-recent']);
    assert.deepEqual(
      (await db().selectFrom('oauth_tokens').select('id').execute()).map((r) => r.id),
      ['tok-live'],
    );
  });

  it('deletes in bounded batches: a backlog larger than one run is worked off over several runs', async () => {
    // 40 events of a year ago; a run removes at most 3 batches of 5
    await sql`
      insert into events (id, organization_id, type, data, created_at, fanned_out_at)
      select 'evt_backlog_' || lpad(g::text, 3, '0'), ${org.organizationId}, 'publish_job.created', '{}'::jsonb,
             ${ago(365)}::timestamptz + g * interval '1 minute', ${ago(365)}::timestamptz + g * interval '1 minute'
      from generate_series(1, 40) g`.execute(db());
    const backlog = async () => (await ids('events')).filter((id) => id.startsWith('evt_backlog_')).length;
    const seen: number[] = [];
    for (let run = 0; run < 3; run++) {
      const counts = await prune();
      assert.ok(counts.events! <= 15, `one run removes at most 3 batches of 5 (${counts.events})`);
      seen.push(counts.events!);
    }
    assert.deepEqual(seen, [15, 15, 10]);
    assert.equal(await backlog(), 0);
    // the oldest went first
    assert.ok((await ids('events')).includes('evt_recent'));
  });
});
