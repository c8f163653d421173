import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURES, fixture } from '../media/media-helpers.js';
import { createTestContext, type TestContext } from '../support/harness.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;

describe('webhook event catalog: channel and media events are recorded with their change', () => {
  let ctx: TestContext;
  let a: Org;

  const eventsOf = (type: string) =>
    ctx.database.db.selectFrom('events').selectAll().where('type', '=', type).orderBy('created_at').execute();
  const first = <T>(rows: T[]): T => {
    const row = rows[0];
    assert.ok(row, 'an event row');
    return row;
  };
  const dataOf = (row: { data: unknown }) => (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as Record<string, unknown>;

  before(async () => {
    ctx = await createTestContext();
    a = await ctx.createOrganization({ name: 'A' });
  });
  after(() => ctx.close());

  it('channel_account.connected / refresh_needed / reconnect_required / disconnected, once per real state change', async () => {
    const ref = await ctx.root.shared.vault.store(ctx.database.db, {
      organizationId: a.organizationId,
      platform: 'x',
      kind: 'access',
      token: 'tok-1',
      at: new Date(),
    });
    const body = { organizationId: a.organizationId, platform: 'x', externalAccountId: 'ev-1', displayName: 'Ev', accessTokenRef: ref };
    const created = await ctx.app.inject({ method: 'PUT', url: '/v1/channel-accounts', headers: a.auth, payload: body });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().channelAccountId as string;
    // a second upsert in the same state is no state change: no second event
    const again = await ctx.app.inject({ method: 'PUT', url: '/v1/channel-accounts', headers: a.auth, payload: body });
    assert.equal(again.statusCode, 200, again.body);
    const connected = await eventsOf('channel_account.connected');
    assert.equal(connected.length, 1);
    assert.equal(first(connected).organization_id, a.organizationId);
    assert.equal(dataOf(first(connected)).channelAccountId, id);
    assert.equal(dataOf(first(connected)).state, 'connected');

    const patch = (state: string) =>
      ctx.app.inject({
        method: 'PATCH',
        url: `/v1/channel-accounts/${id}`,
        headers: a.auth,
        payload: { organizationId: a.organizationId, state },
      });
    for (const [state, type] of [
      ['refresh_needed', 'channel_account.refresh_needed'],
      ['reconnect_required', 'channel_account.reconnect_required'],
    ] as const) {
      const res = await patch(state);
      assert.equal(res.statusCode, 200, res.body);
      const rows = await eventsOf(type);
      assert.equal(rows.length, 1, type);
      assert.equal(first(rows).organization_id, a.organizationId);
      assert.equal(dataOf(first(rows)).channelAccountId, id);
      assert.equal(dataOf(first(rows)).state, state);
    }
    // the same state again records nothing
    assert.equal((await patch('reconnect_required')).statusCode, 200);
    assert.equal((await eventsOf('channel_account.reconnect_required')).length, 1);

    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/channel-accounts/${id}`,
      headers: a.auth,
      payload: { organizationId: a.organizationId },
    });
    assert.equal(del.statusCode, 200, del.body);
    const again2 = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/channel-accounts/${id}`,
      headers: a.auth,
      payload: { organizationId: a.organizationId },
    });
    assert.equal(again2.statusCode, 200, again2.body);
    const disconnected = await eventsOf('channel_account.disconnected');
    assert.equal(disconnected.length, 1);
    assert.equal(first(disconnected).organization_id, a.organizationId);
    assert.equal(dataOf(first(disconnected)).channelAccountId, id);
    assert.equal(dataOf(first(disconnected)).state, 'deleted');
  });

  it('media.ready when an upload creates an item (not for a duplicate), media.deleted on DELETE (once)', async () => {
    const payload = { organizationId: a.organizationId, dataBase64: fixture(FIXTURES.png).toString('base64') };
    const up = await ctx.app.inject({ method: 'POST', url: '/v1/media', headers: a.auth, payload });
    assert.equal(up.statusCode, 201, up.body);
    const id = up.json().mediaLibraryItemId as string;
    const dup = await ctx.app.inject({ method: 'POST', url: '/v1/media', headers: a.auth, payload });
    assert.equal(dup.statusCode, 200, dup.body);
    const ready = await eventsOf('media.ready');
    assert.equal(ready.length, 1);
    assert.equal(first(ready).organization_id, a.organizationId);
    assert.equal(dataOf(first(ready)).mediaLibraryItemId, id);
    assert.equal(dataOf(first(ready)).lifecycleState, 'active');

    const del = await ctx.app.inject({ method: 'DELETE', url: `/v1/media/${id}`, headers: a.auth });
    assert.equal(del.statusCode, 202, del.body);
    await ctx.app.inject({ method: 'DELETE', url: `/v1/media/${id}`, headers: a.auth });
    const deleted = await eventsOf('media.deleted');
    assert.equal(deleted.length, 1);
    assert.equal(first(deleted).organization_id, a.organizationId);
    assert.equal(dataOf(first(deleted)).mediaLibraryItemId, id);
  });
});
