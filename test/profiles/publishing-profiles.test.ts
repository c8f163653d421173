import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Platform } from '../../src/platform/social-platforms.js';
import { putChannel } from '../support/channels.js';
import { createTestContext, type TestContext } from '../support/harness.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;

describe('publishing profiles', () => {
  let ctx: TestContext;
  let a: Org;
  let b: Org;
  let brandA: string;
  let brandA2: string;
  let brandB: string;
  const ch: Record<string, string> = {};

  async function channel(org: Org, brandId: string, platform: Platform, ext: string): Promise<string> {
    return putChannel(ctx, org, { brandId, platform, externalAccountId: ext, displayName: ext, handle: `@${ext}` });
  }
  const save = (org: Org, body: Record<string, unknown>) =>
    ctx.app.inject({
      method: 'PUT',
      url: '/v1/publishing-profiles',
      headers: org.auth,
      payload: body,
    });

  before(async () => {
    ctx = await createTestContext();
    a = await ctx.createOrganization({ name: 'A' });
    b = await ctx.createOrganization({ name: 'B' });
    brandA = (await ctx.createBrand(a.organizationId, 'Alpha')).brandId;
    brandA2 = (await ctx.createBrand(a.organizationId, 'Alpha Two')).brandId;
    brandB = (await ctx.createBrand(b.organizationId, 'Beta')).brandId;
    ch.x = await channel(a, brandA, 'x', 'x1');
    ch.pin = await channel(a, brandA, 'pinterest', 'p1');
    ch.other = await channel(a, brandA2, 'x', 'x2');
    ch.foreign = await channel(b, brandB, 'x', 'x3');
  });
  after(() => ctx.close());

  it('creates (201) then updates (200) by slug with channels, batch policy defaults and exact fields', async () => {
    const body = {
      organizationId: a.organizationId,
      brandId: brandA,
      name: 'Weekday Launches',
      description: 'Launch posts',
      isDefault: true,
      scheduleSettings: {
        batchPolicy: {
          slots: [
            {
              id: 'am',
              localTime: '09:30',
              timezone: 'Europe/Berlin',
              weekdays: [1, 2, 3, 4, 5],
            },
          ],
        },
        note: 'kept',
      },
      commentSettings: { firstComment: true },
      channels: [
        {
          channelAccountId: ch.x,
          platform: 'x',
          position: 2,
          settings: { reply_settings: 'following' },
        },
        {
          channelAccountId: ch.pin,
          platform: 'pinterest',
          position: 1,
          enabled: false,
        },
      ],
    };
    const created = await save(a, body);
    assert.equal(created.statusCode, 201, created.body);
    const p = created.json();
    assert.deepEqual(Object.keys(p).sort(), [
      'brandId',
      'brandName',
      'brandSlug',
      'channels',
      'commentSettings',
      'createdAt',
      'description',
      'isDefault',
      'name',
      'organizationId',
      'profileId',
      'scheduleSettings',
      'slug',
      'updatedAt',
    ]);
    assert.equal(p.slug, 'weekday-launches');
    assert.equal(p.brandName, 'Alpha');
    assert.equal(p.isDefault, true);
    assert.deepEqual(p.scheduleSettings.batchPolicy, {
      slots: [
        {
          id: 'am',
          localTime: '09:30',
          timezone: 'Europe/Berlin',
          weekdays: [1, 2, 3, 4, 5],
          jitterSecondsMin: -600,
          jitterSecondsMax: 600,
          minGapMinutes: 120,
          productCooldownMinutes: 240,
        },
      ],
      horizonDays: 14,
    });
    assert.equal(p.scheduleSettings.note, 'kept');
    assert.deepEqual(
      p.channels.map((c: { platform: string; position: number }) => [c.platform, c.position]),
      [
        ['pinterest', 1],
        ['x', 2],
      ],
    );
    const xc = p.channels[1];
    assert.deepEqual(Object.keys(xc).sort(), [
      'brandId',
      'channelAccountId',
      'channelDisplayName',
      'channelHandle',
      'channelState',
      'createdAt',
      'enabled',
      'organizationId',
      'platform',
      'position',
      'profileChannelId',
      'profileId',
      'settings',
      'updatedAt',
    ]);
    // the channel account's own name, handle and state, as the channels area answers them
    assert.equal(xc.channelState, 'connected');
    assert.equal(xc.channelDisplayName, 'x1');
    assert.equal(xc.channelHandle, '@x1');
    assert.deepEqual(xc.settings, { reply_settings: 'following' });
    const updated = await save(a, {
      ...body,
      channels: [{ channelAccountId: ch.x, platform: 'x' }],
    });
    assert.equal(updated.statusCode, 200);
    assert.equal(updated.json().profileId, p.profileId);
    assert.equal(updated.json().channels.length, 1);
    assert.equal(updated.json().channels[0].profileChannelId, xc.profileChannelId, 'kept channel keeps its id');
    const byId = await save(a, {
      organizationId: a.organizationId,
      brandId: brandA,
      profileId: p.profileId,
      name: 'Renamed',
      slug: 'weekday-launches',
    });
    assert.equal(byId.statusCode, 200);
    assert.equal(byId.json().name, 'Renamed');
    assert.equal(byId.json().channels.length, 0);
  });

  it('keeps one default per brand: setting isDefault moves it', async () => {
    const first = (
      await ctx.app.inject({
        method: 'GET',
        url: `/v1/publishing-profiles?brandId=${brandA}`,
        headers: a.auth,
      })
    ).json().data[0];
    const second = await save(a, {
      organizationId: a.organizationId,
      brandId: brandA,
      name: 'Evenings',
      isDefault: true,
      scheduleSettings: {
        batchPolicy: {
          horizonDays: 30,
          slots: [{ id: 'pm', localTime: '18:00' }],
        },
      },
    });
    assert.equal(second.statusCode, 201);
    const list = (
      await ctx.app.inject({
        method: 'GET',
        url: `/v1/publishing-profiles?brandId=${brandA}`,
        headers: a.auth,
      })
    ).json().data;
    assert.deepEqual(
      list.map((p: { isDefault: boolean }) => p.isDefault),
      [false, true],
    );
    assert.equal(list[0].profileId, first.profileId);
    const saved = await ctx.root.areas.profiles.read.defaultProfile(ctx.database.db, a.organizationId, brandA);
    assert.equal(saved?.id, second.json().profileId);
    assert.equal((saved?.scheduleSettings.batchPolicy as { horizonDays?: number } | undefined)?.horizonDays, 30);
  });

  it('validates bounds, batch policy and channel ownership with fields', async () => {
    const base = {
      organizationId: a.organizationId,
      brandId: brandA,
      name: 'Checks',
    };
    const many = Array.from({ length: 101 }, (_, i) => ({
      channelAccountId: `cha_${i}`,
      platform: 'x',
    }));
    const cases: Array<[Record<string, unknown>, string, string[]?]> = [
      [{ ...base, name: '' }, 'invalid_public_publishing_profile_request', ['name']],
      [{ ...base, name: 'n'.repeat(121) }, 'invalid_public_publishing_profile_request', ['name']],
      [{ ...base, slug: 's'.repeat(121) }, 'invalid_public_publishing_profile_request', ['slug']],
      [{ ...base, description: 'd'.repeat(501) }, 'invalid_public_publishing_profile_request', ['description']],
      [{ ...base, channels: many }, 'invalid_public_publishing_profile_request', ['channels']],
      [
        {
          ...base,
          channels: [{ channelAccountId: ch.x, platform: 'x', position: 1001 }],
        },
        'invalid_public_publishing_profile_request',
        ['channels', '0', 'position'],
      ],
      [
        { ...base, channels: [{ channelAccountId: ch.other, platform: 'x' }] },
        'invalid_public_publishing_profile_request',
        ['channels', '0', 'channelAccountId'],
      ],
      [
        {
          ...base,
          channels: [{ channelAccountId: ch.foreign, platform: 'x' }],
        },
        'invalid_public_publishing_profile_request',
        ['channels', '0', 'channelAccountId'],
      ],
      [
        {
          ...base,
          channels: [{ channelAccountId: ch.x, platform: 'pinterest' }],
        },
        'invalid_public_publishing_profile_request',
        ['channels', '0', 'platform'],
      ],
      [
        {
          ...base,
          channels: [
            { channelAccountId: ch.x, platform: 'x' },
            { channelAccountId: ch.x, platform: 'x' },
          ],
        },
        'invalid_public_publishing_profile_request',
        ['channels', '1', 'channelAccountId'],
      ],
      [{ ...base, scheduleSettings: { batchPolicy: { slots: [] } } }, 'invalid_public_publishing_profile_request'],
      [
        {
          ...base,
          scheduleSettings: {
            batchPolicy: { slots: [{ id: 's', localTime: '24:00' }] },
          },
        },
        'invalid_public_publishing_profile_request',
      ],
      [
        {
          ...base,
          scheduleSettings: {
            batchPolicy: {
              horizonDays: 61,
              slots: [{ id: 's', localTime: '10:00' }],
            },
          },
        },
        'invalid_public_publishing_profile_request',
      ],
      [
        {
          ...base,
          scheduleSettings: {
            batchPolicy: {
              slots: [{ id: 's', localTime: '10:00', weekdays: [0] }],
            },
          },
        },
        'invalid_public_publishing_profile_request',
      ],
      [
        {
          ...base,
          scheduleSettings: {
            batchPolicy: {
              slots: [{ id: 's', localTime: '10:00', timezone: 'Mars/Base' }],
            },
          },
        },
        'invalid_public_publishing_profile_request',
      ],
      [
        {
          ...base,
          scheduleSettings: {
            batchPolicy: { slots: [{ id: 's', localTime: '10:00', bogus: 1 }] },
          },
        },
        'invalid_public_publishing_profile_request',
      ],
      [{ ...base, brandId: brandB }, 'brand_not_found'],
      [{ ...base, organizationId: b.organizationId }, 'organization_not_found'],
      [{ ...base, profileId: 'pro_missing' }, 'publishing_profile_not_found'],
    ];
    for (const [body, code, path] of cases) {
      const res = await save(a, body);
      assert.equal(res.json().error, code, JSON.stringify(body).slice(0, 200));
      if (path) assert.deepEqual(res.json().fields[0].path, path, JSON.stringify(body).slice(0, 200));
    }
  });

  it('isolates organizations, deletes with 204, and exposes enabled connected channels to publishing', async () => {
    const p = (
      await save(a, {
        organizationId: a.organizationId,
        brandId: brandA,
        name: 'Engine',
        channels: [
          { channelAccountId: ch.pin, platform: 'pinterest', position: 5 },
          { channelAccountId: ch.x, platform: 'x', position: 3 },
        ],
      })
    ).json();
    await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/channel-accounts/${ch.pin}`,
      headers: a.auth,
      payload: { organizationId: a.organizationId, state: 'disabled' },
    });
    const expansion = await ctx.root.areas.profiles.read.expandForPublishing(ctx.database.db, a.organizationId, p.profileId);
    assert.deepEqual(
      expansion?.targets.map((t) => t.channelAccountId),
      [ch.x],
    );
    assert.equal(await ctx.root.areas.profiles.read.expandForPublishing(ctx.database.db, b.organizationId, p.profileId), null);
    assert.equal(
      (
        await ctx.app.inject({
          method: 'GET',
          url: '/v1/publishing-profiles',
          headers: b.auth,
        })
      ).json().data.length,
      0,
    );
    const foreignDelete = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/publishing-profiles/${p.profileId}`,
      headers: b.auth,
    });
    assert.equal(foreignDelete.statusCode, 404);
    assert.equal(foreignDelete.json().error, 'publishing_profile_not_found');
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/publishing-profiles/${p.profileId}`,
      headers: a.auth,
    });
    assert.equal(del.statusCode, 204);
    assert.equal(
      (
        await ctx.app.inject({
          method: 'DELETE',
          url: `/v1/publishing-profiles/${p.profileId}`,
          headers: a.auth,
        })
      ).statusCode,
      404,
    );
    const readOnly = await ctx.createOrganization({ scopes: ['publish:read'] });
    assert.equal(
      (
        await save(readOnly, {
          organizationId: readOnly.organizationId,
          brandId: brandA,
          name: 'x',
        })
      ).statusCode,
      401,
    );
    assert.equal(
      (
        await ctx.app.inject({
          method: 'GET',
          url: '/v1/publishing-profiles?limit=0',
          headers: a.auth,
        })
      ).json().error,
      'invalid_public_publishing_profile_query',
    );
  });
});
