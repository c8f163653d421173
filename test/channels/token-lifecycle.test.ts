/**
 * Token lifecycle against a standalone X simulator: near-expiry channels go expiring -> connected with
 * new encrypted tokens; a refused refresh -> reconnect_required; transient failures back off, retry and
 * end in refresh_needed, never disconnecting the channel.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runTokenLifecycle } from '../../src/modules/channels/token-lifecycle.jobs.js';
import { type RunningXSimulator, startXSimulator } from '../../src/sandbox/simulators/x.simulator.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { xSimulatorEnv } from '../support/simulators.js';

describe('token lifecycle job', () => {
  let ctx: TestContext;
  let sim: RunningXSimulator;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;

  before(async () => {
    // tokens live 10 minutes: inside the 15-minute refresh window from the start
    sim = await startXSimulator({
      clientId: 'cid',
      clientSecret: 'csecret',
      accessTokenTtlSeconds: 600,
    });
    ctx = await createTestContext({
      env: {
        ...xSimulatorEnv(sim, 'cid', 'csecret'),
        SERVICE_CHANNEL_REFRESH_MAX_FAILURES: '2',
      },
    });
    org = await ctx.createOrganization();
  });
  after(async () => {
    await ctx.close();
    await sim.close();
  });

  const lifecycle = () => {
    const m = ctx.root.shared;
    return runTokenLifecycle({
      db: ctx.database.db,
      config: ctx.config,
      vault: m.vault,
      registry: m.registry,
      clock: ctx.clock,
    });
  };
  const channel = (id: string) => ctx.database.db.selectFrom('channel_accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  async function connectX(user: string): Promise<string> {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/channel-accounts/connect-url',
      headers: org.auth,
      payload: { platform: 'x' },
    });
    const url = new URL(res.json().authorizationUrl);
    url.searchParams.set('sandbox_user', user);
    const consent = await fetch(url, { redirect: 'manual' });
    const cb = new URL(consent.headers.get('location')!);
    const done = await ctx.app.inject({
      method: 'GET',
      url: `/v1/channel-accounts/oauth/callback/x${cb.search}`,
    });
    assert.equal(done.statusCode, 200, done.body);
    return done.json().channelAccountId;
  }

  it('refreshes a near-expiry channel: connected with new encrypted tokens, old secrets deleted', async () => {
    const id = await connectX('refresh_ok');
    const before = await channel(id);
    const report = await lifecycle();
    assert.ok(report.refreshed >= 1);
    const after = await channel(id);
    assert.equal(after.state, 'connected');
    assert.notEqual(after.access_token_ref, before.access_token_ref);
    assert.notEqual(after.refresh_token_ref, before.refresh_token_ref);
    const secrets = await ctx.database.db.selectFrom('provider_token_secrets').select('id').where('channel_account_id', '=', id).execute();
    assert.deepEqual(secrets.map((s) => s.id).sort(), [after.access_token_ref, after.refresh_token_ref].sort());
    // the new token works at the platform
    const tool = await ctx.app.inject({
      method: 'POST',
      url: '/v1/providers/tools/mentionSearch',
      headers: org.auth,
      payload: { channelAccountId: id, input: { query: 'refresh_ok' } },
    });
    assert.equal(tool.statusCode, 200, tool.body);
    await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/channel-accounts/${id}`,
      headers: org.auth,
      payload: { organizationId: org.organizationId },
    });
  });

  it('moves a channel whose refresh the platform refuses to reconnect_required', async () => {
    const id = await connectX('refused');
    sim.failures.inject({ kind: 'expired_token', operation: 'token' });
    const report = await lifecycle();
    assert.equal(report.reconnectRequired, 1);
    const row = await channel(id);
    assert.equal(row.state, 'reconnect_required');
    assert.equal(row.state_reason, 'refresh_refused');
    const tool = await ctx.app.inject({
      method: 'POST',
      url: '/v1/providers/tools/mentionSearch',
      headers: org.auth,
      payload: { channelAccountId: id, input: { query: 'x' } },
    });
    assert.equal(tool.statusCode, 409);
    assert.equal(tool.json().error, 'channel_account_not_connected');
    await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/channel-accounts/${id}`,
      headers: org.auth,
      payload: { organizationId: org.organizationId },
    });
  });

  it('retries transient failures with backoff, reports refresh_needed after the limit, never disconnects, then recovers', async () => {
    const id = await connectX('flaky');
    sim.failures.inject({ kind: 'server_error', operation: 'token', times: 2 });
    const r1 = await lifecycle();
    assert.equal(r1.retrying, 1);
    let row = await channel(id);
    assert.equal(row.state, 'expiring');
    assert.equal(row.refresh_failures, 1);
    assert.ok(row.next_refresh_at && new Date(row.next_refresh_at) > ctx.clock.now());
    assert.equal((await lifecycle()).retrying, 0, 'not due again before the backoff');
    ctx.clock.advance(5 * 60_000);
    await lifecycle();
    row = await channel(id);
    assert.equal(row.state, 'refresh_needed');
    assert.equal(row.refresh_failures, 2);
    assert.ok(row.access_token_ref, 'tokens are kept');
    ctx.clock.advance(10 * 60_000);
    const r3 = await lifecycle();
    assert.equal(r3.refreshed, 1);
    row = await channel(id);
    assert.equal(row.state, 'connected');
    assert.equal(row.refresh_failures, 0);
    await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/channel-accounts/${id}`,
      headers: org.auth,
      payload: { organizationId: org.organizationId },
    });
  });

  it('leaves a channel disconnected during the platform call as the user left it', async () => {
    const id = await connectX('raced');
    // the platform holds the refresh for 5 s, well past the DELETE below even on a loaded host
    sim.failures.inject({ kind: 'timeout', operation: 'token', delayMs: 5000 });
    const running = lifecycle();
    await new Promise((r) => setTimeout(r, 100));
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/channel-accounts/${id}`,
      headers: org.auth,
      payload: { organizationId: org.organizationId },
    });
    assert.equal(del.statusCode, 200);
    const report = await running;
    assert.equal(report.refreshed, 0);
    const row = await channel(id);
    assert.equal(row.state, 'deleted');
    assert.equal(row.access_token_ref, null);
    const secrets = await ctx.database.db.selectFrom('provider_token_secrets').select('id').where('channel_account_id', '=', id).execute();
    assert.equal(secrets.length, 0);
  });

  it('removes account-choice placeholders abandoned for a day, with their secrets', async () => {
    const m = ctx.root.shared;
    const at = new Date(ctx.clock.now().getTime() - 2 * 86_400_000);
    const make = async (id: string, ext: string, when: Date) => {
      await ctx.database.db
        .insertInto('channel_accounts')
        .values({
          id,
          organization_id: org.organizationId,
          brand_id: null,
          platform: 'facebook_page',
          external_account_id: ext,
          display_name: 'Choose',
          handle: null,
          platform_app_id: null,
          state: 'in_between_steps',
          state_reason: null,
          scopes: [],
          access_token_ref: null,
          refresh_token_ref: null,
          token_expires_at: null,
          additional_settings: '{}',
          pending_choices: '[]',
          next_refresh_at: null,
          created_at: when,
          updated_at: when,
        })
        .execute();
      await m.vault.store(ctx.database.db, {
        organizationId: org.organizationId,
        platform: 'facebook_page',
        kind: 'access',
        token: 't',
        channelAccountId: id,
        at: when,
      });
    };
    await make('cha_01JABANDONED0000000000000', 'pending:cst_old', at);
    await make('cha_01JRECENT00000000000000000', 'pending:cst_new', ctx.clock.now());
    await lifecycle();
    const left = await ctx.database.db
      .selectFrom('channel_accounts')
      .select('id')
      .where('external_account_id', 'like', 'pending:%')
      .execute();
    assert.deepEqual(
      left.map((r) => r.id),
      ['cha_01JRECENT00000000000000000'],
    );
    const secrets = await ctx.database.db
      .selectFrom('provider_token_secrets')
      .select('id')
      .where('channel_account_id', '=', 'cha_01JABANDONED0000000000000')
      .execute();
    assert.equal(secrets.length, 0);
  });
});
