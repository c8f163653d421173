import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setChannelState } from '../../src/modules/channels/channel-context.js';
import { CHANNEL_ACCOUNT_STATES, CHANNEL_TRANSITIONS, canTransition } from '../../src/modules/channels/channel-states.js';
import { channelsRepository } from '../../src/modules/channels/channels.repository.js';
import { AppError } from '../../src/platform/errors.js';
import { createTestContext, type TestContext } from '../support/harness.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;

describe('channel accounts', () => {
  let ctx: TestContext;
  let a: Org;
  let b: Org;
  let brandA: string;
  let brandB: string;

  const storeSecret = (organizationId: string, token = `tok-${Math.random()}`) =>
    ctx.root.shared.vault.store(ctx.database.db, {
      organizationId,
      platform: 'x',
      kind: 'access',
      token,
      at: new Date(),
    });

  const put = (org: Org, body: Record<string, unknown>) =>
    ctx.app.inject({
      method: 'PUT',
      url: '/v1/channel-accounts',
      headers: org.auth,
      payload: body,
    });

  before(async () => {
    ctx = await createTestContext({
      env: { SERVICE_CHANNEL_TOKEN_ENV_REFS: 'OPS_X=token-from-env,OTHER=x' },
    });
    a = await ctx.createOrganization({ name: 'A' });
    b = await ctx.createOrganization({ name: 'B' });
    brandA = (await ctx.createBrand(a.organizationId, 'Alpha')).brandId;
    brandB = (await ctx.createBrand(b.organizationId, 'Beta')).brandId;
  });
  after(() => ctx.close());

  it('upserts on organization + platform + externalAccountId: 201 then 200, state default connected, no token in the answer', async () => {
    const ref = await storeSecret(a.organizationId, 'very-secret-token');
    const body = {
      organizationId: a.organizationId,
      platform: 'x',
      externalAccountId: '123',
      displayName: 'Acme on X',
      accessTokenRef: ref,
      brandId: brandA,
      handle: 'acme',
    };
    const created = await put(a, body);
    assert.equal(created.statusCode, 201, created.body);
    const ch = created.json();
    assert.deepEqual(Object.keys(ch).sort(), [
      'brandId',
      'brandName',
      'brandSlug',
      'channelAccountId',
      'createdAt',
      'displayName',
      'externalAccountId',
      'handle',
      'organizationId',
      'platform',
      'platformAppId',
      'state',
      'tokenExpiresAt',
      'updatedAt',
    ]);
    assert.equal(ch.state, 'connected');
    assert.equal(ch.brandName, 'Alpha');
    assert.ok(ch.channelAccountId.startsWith('cha_'));
    assert.ok(!created.body.includes('very-secret-token'));
    const updated = await put(a, {
      ...body,
      displayName: 'Acme',
      tokenExpiresAt: '2030-01-01T00:00:00.000Z',
    });
    assert.equal(updated.statusCode, 200);
    assert.equal(updated.json().channelAccountId, ch.channelAccountId);
    assert.equal(updated.json().displayName, 'Acme');
    assert.equal(updated.json().tokenExpiresAt, '2030-01-01T00:00:00.000Z');
    // the token is stored encrypted: its ciphertext does not contain it
    const rows = await ctx.database.db
      .selectFrom('provider_token_secrets')
      .select(['ciphertext', 'channel_account_id'])
      .where('id', '=', ref)
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.channel_account_id, ch.channelAccountId);
    assert.ok(!rows[0]!.ciphertext.includes('very-secret-token'));
  });

  it('accepts env:NAME refs listed in configuration and refuses unresolvable refs with 400', async () => {
    const ok = await put(a, {
      organizationId: a.organizationId,
      platform: 'threads',
      externalAccountId: 't1',
      displayName: 'T',
      accessTokenRef: 'env:OPS_X',
    });
    assert.equal(ok.statusCode, 201, ok.body);
    const foreign = await storeSecret(b.organizationId);
    for (const [ref, field] of [
      ['env:MISSING', 'accessTokenRef'],
      ['the-token-itself', 'accessTokenRef'],
      [foreign, 'accessTokenRef'],
      ['sec_01HZZZZZZZZZZZZZZZZZZZZZZZ', 'accessTokenRef'],
    ] as const) {
      const res = await put(a, {
        organizationId: a.organizationId,
        platform: 'threads',
        externalAccountId: 't2',
        displayName: 'T',
        accessTokenRef: ref,
      });
      assert.equal(res.statusCode, 400, ref);
      assert.equal(res.json().error, 'channel_token_ref_unresolvable', ref);
      assert.deepEqual(res.json().fields[0].path, [field]);
      assert.ok(!res.body.includes('token-from-env'));
    }
    const badRefresh = await put(a, {
      organizationId: a.organizationId,
      platform: 'threads',
      externalAccountId: 't2',
      displayName: 'T',
      accessTokenRef: 'env:OPS_X',
      refreshTokenRef: 'env:NOPE',
    });
    assert.equal(badRefresh.json().error, 'channel_token_ref_unresolvable');
    assert.deepEqual(badRefresh.json().fields[0].path, ['refreshTokenRef']);
    // a secret another channel holds cannot be claimed by a second channel
    const held = await storeSecret(a.organizationId);
    assert.equal(
      (
        await put(a, {
          organizationId: a.organizationId,
          platform: 'tiktok',
          externalAccountId: 'k1',
          displayName: 'K',
          accessTokenRef: held,
        })
      ).statusCode,
      201,
    );
    const claimed = await put(a, {
      organizationId: a.organizationId,
      platform: 'tiktok',
      externalAccountId: 'k2',
      displayName: 'K',
      accessTokenRef: held,
    });
    assert.equal(claimed.statusCode, 400);
    assert.equal(claimed.json().error, 'channel_token_ref_unresolvable');
  });

  it('refuses another organization in the body (404 organization_not_found), a foreign brand (404) and invalid bodies (400)', async () => {
    const ref = await storeSecret(a.organizationId);
    const base = {
      organizationId: a.organizationId,
      platform: 'x',
      externalAccountId: 'z',
      displayName: 'Z',
      accessTokenRef: ref,
    };
    const wrongOrg = await put(a, {
      ...base,
      organizationId: b.organizationId,
    });
    assert.equal(wrongOrg.statusCode, 404);
    assert.equal(wrongOrg.json().error, 'organization_not_found');
    const foreignBrand = await put(a, { ...base, brandId: brandB });
    assert.equal(foreignBrand.statusCode, 404);
    assert.equal(foreignBrand.json().error, 'brand_not_found');
    for (const bad of [
      { ...base, platform: 'myspace' },
      { ...base, displayName: '' },
      { ...base, extra: 1 },
      { ...base, state: 'bogus' },
    ]) {
      const res = await put(a, bad);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_public_channel_account_request');
    }
    const deletedState = await put(a, { ...base, state: 'deleted' });
    assert.equal(deletedState.statusCode, 409);
    assert.equal(deletedState.json().error, 'channel_account_invalid_transition');
  });

  it("lists with filters and pagination, only the principal organization's channels", async () => {
    const refB = await storeSecret(b.organizationId);
    assert.equal(
      (
        await put(b, {
          organizationId: b.organizationId,
          platform: 'x',
          externalAccountId: '123',
          displayName: 'B on X',
          accessTokenRef: refB,
        })
      ).statusCode,
      201,
    );
    const all = (
      await ctx.app.inject({
        method: 'GET',
        url: '/v1/channel-accounts',
        headers: a.auth,
      })
    ).json();
    assert.ok(all.data.length >= 2);
    assert.ok(all.data.every((c: { organizationId: string }) => c.organizationId === a.organizationId));
    const xOnly = (
      await ctx.app.inject({
        method: 'GET',
        url: `/v1/channel-accounts?platform=x&brandId=${brandA}&state=connected`,
        headers: a.auth,
      })
    ).json();
    assert.deepEqual(
      xOnly.data.map((c: { externalAccountId: string }) => c.externalAccountId),
      ['123'],
    );
    const p1 = (
      await ctx.app.inject({
        method: 'GET',
        url: '/v1/channel-accounts?limit=1',
        headers: a.auth,
      })
    ).json();
    assert.equal(p1.data.length, 1);
    const p2 = (
      await ctx.app.inject({
        method: 'GET',
        url: `/v1/channel-accounts?limit=1&cursor=${p1.nextCursor}`,
        headers: a.auth,
      })
    ).json();
    assert.notEqual(p2.data[0].channelAccountId, p1.data[0].channelAccountId);
    for (const q of ['limit=0', 'platform=myspace', 'state=nope', 'unknown=1', `cursor=${p1.nextCursor}&platform=x`]) {
      const res = await ctx.app.inject({
        method: 'GET',
        url: `/v1/channel-accounts?${q}`,
        headers: a.auth,
      });
      assert.equal(res.statusCode, 400, q);
      assert.equal(res.json().error, 'invalid_public_channel_account_query', q);
    }
    const scoped = await ctx.createOrganization({ scopes: ['brands:read'] });
    assert.equal(
      (
        await ctx.app.inject({
          method: 'GET',
          url: '/v1/channel-accounts',
          headers: scoped.auth,
        })
      ).statusCode,
      401,
    );
  });

  it("patches with at least one field, checks state transitions, and hides other organizations' channels", async () => {
    const list = (
      await ctx.app.inject({
        method: 'GET',
        url: '/v1/channel-accounts?platform=x',
        headers: a.auth,
      })
    ).json();
    const id = list.data[0].channelAccountId;
    const patch = (org: Org, body: Record<string, unknown>, target = id) =>
      ctx.app.inject({
        method: 'PATCH',
        url: `/v1/channel-accounts/${target}`,
        headers: org.auth,
        payload: body,
      });
    const empty = await patch(a, { organizationId: a.organizationId });
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().error, 'invalid_public_channel_account_request');
    const renamed = await patch(a, {
      organizationId: a.organizationId,
      displayName: 'Renamed',
      handle: null,
      additionalSettings: { username: 'acme' },
    });
    assert.equal(renamed.statusCode, 200);
    assert.equal(renamed.json().displayName, 'Renamed');
    assert.equal(renamed.json().handle, null);
    assert.equal((await patch(a, { organizationId: a.organizationId, state: 'disabled' })).json().state, 'disabled');
    const refused = await patch(a, {
      organizationId: a.organizationId,
      state: 'expiring',
    });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().error, 'channel_account_invalid_transition');
    assert.equal((await patch(a, { organizationId: a.organizationId, state: 'connected' })).json().state, 'connected');
    const viaPatchDelete = await patch(a, {
      organizationId: a.organizationId,
      state: 'deleted',
    });
    assert.equal(viaPatchDelete.statusCode, 400);
    const foreign = await patch(b, {
      organizationId: b.organizationId,
      displayName: 'mine now',
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error, 'channel_account_not_found');
    const wrongOrg = await patch(a, {
      organizationId: b.organizationId,
      displayName: 'x',
    });
    assert.equal(wrongOrg.json().error, 'organization_not_found');
  });

  it('disconnects with a summary computed from what was done, runs publishing hooks, and is idempotent', async () => {
    const ref = await storeSecret(a.organizationId);
    const ch = (
      await put(a, {
        organizationId: a.organizationId,
        platform: 'pinterest',
        externalAccountId: 'pin-1',
        displayName: 'Pins',
        accessTokenRef: ref,
        brandId: brandA,
      })
    ).json();
    const profile = await ctx.app.inject({
      method: 'PUT',
      url: '/v1/publishing-profiles',
      headers: a.auth,
      payload: {
        organizationId: a.organizationId,
        brandId: brandA,
        name: 'Main',
        channels: [{ channelAccountId: ch.channelAccountId, platform: 'pinterest' }],
      },
    });
    assert.equal(profile.statusCode, 201, profile.body);
    const seen: string[] = [];
    const unregister = ctx.root.disconnects.subscribe(async (_tx, organizationId, channelAccountId) => {
      seen.push(`${organizationId}:${channelAccountId}`);
      return {
        cancelledPostTargetCount: 2,
        needsAttentionBatchTargetCount: 1,
      };
    });
    try {
      const foreign = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/channel-accounts/${ch.channelAccountId}`,
        headers: b.auth,
        payload: { organizationId: b.organizationId },
      });
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().error, 'channel_account_not_found');
      const res = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/channel-accounts/${ch.channelAccountId}`,
        headers: a.auth,
        payload: { organizationId: a.organizationId, reason: 'rebrand' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.state, 'deleted');
      assert.deepEqual(body.disconnectSummary, {
        alreadyDisconnected: false,
        // the sandbox-less test app reaches no platform: nothing was revoked there
        revokedChannelTokenCount: 0,
        revokedProviderTokenSecretCount: 1,
        cancelledPostTargetCount: 2,
        needsReconnectPostTargetCount: 0,
        needsAttentionPostTargetCount: 0,
        cancelledBatchTargetCount: 0,
        needsReconnectBatchTargetCount: 0,
        needsAttentionBatchTargetCount: 1,
        disabledPublishingProfileChannelCount: 1,
      });
      assert.deepEqual(seen, [`${a.organizationId}:${ch.channelAccountId}`]);
      assert.equal((await ctx.database.db.selectFrom('provider_token_secrets').select('id').where('id', '=', ref).execute()).length, 0);
      const p = (
        await ctx.app.inject({
          method: 'GET',
          url: `/v1/publishing-profiles?brandId=${brandA}`,
          headers: a.auth,
        })
      ).json();
      assert.equal(p.data[0].channels[0].enabled, false);
      assert.equal(p.data[0].channels[0].channelState, 'deleted');
      const again = (
        await ctx.app.inject({
          method: 'DELETE',
          url: `/v1/channel-accounts/${ch.channelAccountId}`,
          headers: a.auth,
          payload: { organizationId: a.organizationId },
        })
      ).json();
      assert.equal(again.disconnectSummary.alreadyDisconnected, true);
      assert.equal(again.disconnectSummary.revokedProviderTokenSecretCount, 0);
      assert.equal(seen.length, 1);
      // deleted channels leave the default list, stay readable with state=deleted
      const listed = (
        await ctx.app.inject({
          method: 'GET',
          url: '/v1/channel-accounts?platform=pinterest',
          headers: a.auth,
        })
      ).json();
      assert.equal(listed.data.length, 0);
      const deleted = (
        await ctx.app.inject({
          method: 'GET',
          url: '/v1/channel-accounts?state=deleted',
          headers: a.auth,
        })
      ).json();
      assert.equal(deleted.data.length, 1);
      // a new upsert brings it back connected
      const ref2 = await storeSecret(a.organizationId);
      const back = await put(a, {
        organizationId: a.organizationId,
        platform: 'pinterest',
        externalAccountId: 'pin-1',
        displayName: 'Pins',
        accessTokenRef: ref2,
      });
      assert.equal(back.statusCode, 200);
      assert.equal(back.json().state, 'connected');
    } finally {
      unregister();
    }
  });
  it('applies every allowed transition and refuses every other one, in the changing transaction', async () => {
    let n = 0;
    for (const from of CHANNEL_ACCOUNT_STATES) {
      for (const to of CHANNEL_ACCOUNT_STATES) {
        if (from === to) continue;
        const id = `cha_T${String(n++).padStart(25, '0')}`;
        await channelsRepository.insert(ctx.database.db, {
          id,
          organizationId: a.organizationId,
          brandId: null,
          platform: 'x',
          externalAccountId: id,
          displayName: 'T',
          handle: null,
          platformAppId: null,
          state: from,
          scopes: [],
          accessTokenRef: null,
          refreshTokenRef: null,
          tokenExpiresAt: null,
          at: new Date(),
        });
        const allowed = CHANNEL_TRANSITIONS[from].includes(to);
        assert.equal(canTransition(from, to), allowed);
        try {
          await ctx.database.db.transaction().execute((tx) => setChannelState(tx, a.organizationId, id, to, 'test'));
          assert.ok(allowed, `${from} -> ${to} should be refused`);
          assert.equal((await channelsRepository.get(ctx.database.db, a.organizationId, id))!.state, to);
        } catch (err) {
          assert.ok(!allowed, `${from} -> ${to} should be allowed: ${(err as Error).message}`);
          assert.ok(err instanceof AppError && err.code === 'channel_account_invalid_transition');
          assert.equal((await channelsRepository.get(ctx.database.db, a.organizationId, id))!.state, from, 'unchanged');
        }
      }
    }
    // a refused move is not a silent no-op: deleted -> expiring, for example
    assert.equal(canTransition('deleted', 'expiring'), false);
    assert.equal(canTransition('connected', 'connected'), true);
  });

  it("reports another organization's channel as not found", async () => {
    const other = b.organizationId;
    const row = (
      await ctx.database.db
        .selectFrom('channel_accounts')
        .select('id')
        .where('organization_id', '=', a.organizationId)
        .executeTakeFirstOrThrow()
    ).id;
    await assert.rejects(
      ctx.database.db.transaction().execute((tx) => setChannelState(tx, other, row, 'disabled', null)),
      (err: unknown) => err instanceof AppError && err.code === 'channel_account_not_found',
    );
  });
});
