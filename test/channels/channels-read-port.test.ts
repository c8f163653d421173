/** The channels area's read port as other areas call it: facts, call contexts and the token-problem state change. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChannelsReadPort, ChannelsTokenProblemsPort } from '../../src/modules/channels/channels.module.js';
import { createTestContext, type TestContext } from '../support/harness.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;

describe('channels read port', () => {
  let ctx: TestContext;
  let port: ChannelsReadPort & ChannelsTokenProblemsPort;
  let a: Org;
  let b: Org;

  const channel = async (org: Org, externalAccountId: string, accessTokenRef: string, state = 'connected') => {
    const res = await ctx.app.inject({
      method: 'PUT',
      url: '/v1/channel-accounts',
      headers: org.auth,
      payload: {
        organizationId: org.organizationId,
        platform: 'x',
        externalAccountId,
        displayName: `X ${externalAccountId}`,
        accessTokenRef,
        state,
      },
    });
    assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
    return res.json().channelAccountId as string;
  };
  const secret = (org: Org, token: string) =>
    ctx.root.shared.vault.store(ctx.database.db, {
      organizationId: org.organizationId,
      platform: 'x',
      kind: 'access',
      token,
      at: new Date(),
    });

  before(async () => {
    ctx = await createTestContext({ env: { SERVICE_CHANNEL_TOKEN_ENV_REFS: 'OPS_X=token-from-env' } });
    port = { ...ctx.root.areas.channels.read, ...ctx.root.areas.channels.tokenProblems };
    a = await ctx.createOrganization({ name: 'A' });
    b = await ctx.createOrganization({ name: 'B' });
  });
  after(() => ctx.close());

  it('answers the call context of a usable channel (stored secret or env reference) and why there is none otherwise', async () => {
    const db = ctx.database.db;
    const stored = await channel(a, 'stored', await secret(a, 'stored-token'));
    const fromEnv = await channel(a, 'env', 'env:OPS_X');
    const disabled = await channel(a, 'disabled', await secret(a, 'unused'), 'disabled');
    const ok = await port.callContext(db, a.organizationId, stored);
    assert.ok(ok.ok);
    assert.equal(ok.ctx.accessToken, 'stored-token');
    assert.equal(ok.ctx.externalAccountId, 'stored');
    assert.equal(ok.provider.platform, 'x');
    const env = await port.callContext(db, a.organizationId, fromEnv);
    assert.ok(env.ok);
    assert.equal(env.ctx.accessToken, 'token-from-env');
    assert.deepEqual(await port.callContext(db, a.organizationId, disabled), { ok: false, problem: 'not_usable', state: 'disabled' });
    // another organization's channel reads as no channel at all
    assert.deepEqual(await port.callContext(db, b.organizationId, stored), { ok: false, problem: 'not_found', state: 'deleted' });
    // several at once, of any organizations, answered in the order asked
    const many = await port.callContexts(db, [
      { organizationId: a.organizationId, channelAccountId: disabled },
      { organizationId: b.organizationId, channelAccountId: stored },
      { organizationId: a.organizationId, channelAccountId: stored },
      { organizationId: a.organizationId, channelAccountId: fromEnv },
    ]);
    assert.deepEqual(
      many.map((m) => (m.ok ? m.ctx.accessToken : m.problem)),
      ['not_usable', 'not_found', 'stored-token', 'token-from-env'],
    );
    assert.deepEqual(await port.callContexts(db, []), []);
    // a secret that is gone leaves a usable state without a token
    await db
      .deleteFrom('provider_token_secrets')
      .where('organization_id', '=', a.organizationId)
      .where('channel_account_id', '=', stored)
      .execute();
    assert.deepEqual(await port.callContext(db, a.organizationId, stored), { ok: false, problem: 'no_token', state: 'connected' });
  });

  it('answers facts of the organization’s channels only, with whether they are usable', async () => {
    const db = ctx.database.db;
    const on = await channel(a, 'facts-on', 'env:OPS_X');
    const off = await channel(a, 'facts-off', 'env:OPS_X', 'reconnect_required');
    const other = await channel(b, 'facts-b', 'env:OPS_X');
    const facts = await port.factsForPublishing(db, a.organizationId, [on, off, other, on]);
    assert.deepEqual([...facts.keys()].sort(), [on, off].sort());
    assert.equal(facts.get(on)?.usable, true);
    assert.equal(facts.get(off)?.usable, false);
    assert.equal(facts.get(off)?.state, 'reconnect_required');
    assert.equal((await port.factsForPublishing(db, a.organizationId, [])).size, 0);
  });

  it('moves a channel to a token-problem state with its event in the caller’s transaction, and skips a forbidden move', async () => {
    const db = ctx.database.db;
    const live = await channel(a, 'mark-live', 'env:OPS_X');
    const disabled = await channel(a, 'mark-disabled', 'env:OPS_X', 'disabled');
    await db
      .transaction()
      .execute((tx) => port.markTokenProblem(tx, a.organizationId, live, 'reconnect_required', 'token refused', new Date()));
    const state = async (id: string) =>
      await db.selectFrom('channel_accounts').select(['state', 'state_reason']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(await state(live), { state: 'reconnect_required', state_reason: 'token refused' });
    const events = await db
      .selectFrom('events')
      .select('data')
      .where('organization_id', '=', a.organizationId)
      .where('type', '=', 'channel_account.reconnect_required')
      .execute();
    assert.equal(events.filter((e) => (e.data as { channelAccountId?: string }).channelAccountId === live).length, 1);
    // disabled → refresh_needed is not in the transition table: nothing changes, nothing throws
    assert.equal(await port.markTokenProblem(db, a.organizationId, disabled, 'refresh_needed', 'token refused', new Date()), false);
    assert.equal((await state(disabled)).state, 'disabled');
    // without its event when asked so (the analytics sync)
    const quiet = await channel(a, 'mark-quiet', 'env:OPS_X');
    assert.equal(
      await port.markTokenProblem(db, a.organizationId, quiet, 'reconnect_required', 'token_refused', new Date(), { event: false }),
      true,
    );
    assert.equal((await state(quiet)).state, 'reconnect_required');
    const quietEvents = await db
      .selectFrom('events')
      .select('data')
      .where('organization_id', '=', a.organizationId)
      .where('type', '=', 'channel_account.reconnect_required')
      .execute();
    assert.equal(quietEvents.filter((e) => (e.data as { channelAccountId?: string }).channelAccountId === quiet).length, 0);
  });

  it('answers a usable channel or the API errors, and finds channels by platform account or platform across organizations', async () => {
    const db = ctx.database.db;
    const usable = await channel(a, 'shared-account', 'env:OPS_X');
    const elsewhere = await channel(b, 'shared-account', 'env:OPS_X');
    const off = await channel(a, 'usable-off', 'env:OPS_X', 'reconnect_required');
    const got = await port.usableChannel(db, a.organizationId, usable);
    assert.equal(got.channel.channelAccountId, usable);
    assert.equal(got.channel.platform, 'x');
    assert.equal(got.ctx.accessToken, 'token-from-env');
    await assert.rejects(port.usableChannel(db, b.organizationId, usable), {
      code: 'channel_account_not_found',
      message: `No channel account ${usable} in the principal organization.`,
    });
    await assert.rejects(port.usableChannel(db, a.organizationId, off), {
      code: 'channel_account_not_connected',
      message: `Channel account ${off} is reconnect_required; connect it again before using it.`,
    });
    assert.equal(port.isUsable('connected'), true);
    assert.equal(port.isUsable('reconnect_required'), false);
    const both = await port.ofExternalAccount(db, ['x'], 'shared-account');
    assert.deepEqual(both.map((c) => c.channelAccountId).sort(), [usable, elsewhere].sort());
    assert.deepEqual(await port.ofExternalAccount(db, [], 'shared-account'), []);
    const ofX = (await port.usableOfPlatform(db, 'x')).map((c) => c.channelAccountId);
    assert.ok(ofX.includes(usable) && ofX.includes(elsewhere) && !ofX.includes(off));
  });
});
