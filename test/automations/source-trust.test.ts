/**
 * Trust boundaries of automation sources, checked when a source is saved (not only when it runs):
 * another organization's channel, profile or product is 404 with that kind's code, as reading it would
 * be; an RSS feedUrl is refused for every internal spelling, credentials and internal names, without DNS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrandsService } from '../../src/modules/brands/brands.service.js';
import { putChannel } from '../support/channels.js';
import { createTestContext, type TestContext } from '../support/harness.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;

describe('automation sources: references and feed URLs checked at save', () => {
  let ctx: TestContext;
  let a: Org;
  let b: Org;
  let brandA: string;
  let brandA2: string;
  let brandB: string;
  const own = { channel: '', profile: '', product: '' };
  const foreign = { channel: '', profile: '', product: '' };
  let otherBrandProduct = '';

  async function channel(org: Org, brandId: string, ext: string): Promise<string> {
    return putChannel(ctx, org, { brandId, platform: 'x', externalAccountId: ext, displayName: ext });
  }
  async function profile(org: Org, brandId: string, channelAccountId: string): Promise<string> {
    const res = await ctx.app.inject({
      method: 'PUT',
      url: '/v1/publishing-profiles',
      headers: org.auth,
      payload: {
        organizationId: org.organizationId,
        brandId,
        name: `P ${channelAccountId}`,
        channels: [{ channelAccountId, platform: 'x' }],
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().profileId;
  }
  const product = async (org: Org, brandId: string, name: string) =>
    (await new BrandsService(ctx.database.db).createProduct(org.organizationId, brandId, { name }, new Date())).productId;

  const post = (org: Org, body: Record<string, unknown>) =>
    ctx.app.inject({ method: 'POST', url: '/v1/automation-sources', headers: org.auth, payload: body });
  const patch = (org: Org, id: string, body: Record<string, unknown>) =>
    ctx.app.inject({ method: 'PATCH', url: `/v1/automation-sources/${id}`, headers: org.auth, payload: body });
  const rss = (config: Record<string, unknown>) => ({
    brandId: brandA,
    kind: 'rss_feed',
    name: 'Blog',
    config: { feedUrl: 'https://blog.example.com/feed.xml', ...config },
  });
  const rotation = (config: Record<string, unknown>) => ({
    brandId: brandA,
    kind: 'product_rotation',
    name: 'Catalog',
    config: { itemsPerRun: 1, textTemplate: 'Meet {{title}}', ...config },
  });
  const sourceCount = async () =>
    Number(
      (
        await ctx.database.db
          .selectFrom('automation_sources')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  before(async () => {
    ctx = await createTestContext({ env: { SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true' } });
    a = await ctx.createOrganization({ name: 'A' });
    b = await ctx.createOrganization({ name: 'B' });
    brandA = (await ctx.createBrand(a.organizationId, 'Alpha')).brandId;
    brandA2 = (await ctx.createBrand(a.organizationId, 'Alpha Two')).brandId;
    brandB = (await ctx.createBrand(b.organizationId, 'Beta')).brandId;
    own.channel = await channel(a, brandA, 'a1');
    own.profile = await profile(a, brandA, own.channel);
    own.product = await product(a, brandA, 'Red Shoe');
    otherBrandProduct = await product(a, brandA2, 'Blue Shoe');
    foreign.channel = await channel(b, brandB, 'b1');
    foreign.profile = await profile(b, brandB, foreign.channel);
    foreign.product = await product(b, brandB, 'Green Shoe');
  });
  after(() => ctx.close());

  it("saves sources that refer to the organization's own channels, profile and products", async () => {
    const r = await post(a, rss({ targets: [{ platform: 'x', channelAccountId: own.channel }], profileId: own.profile }));
    assert.equal(r.statusCode, 201, r.body);
    const p = await post(a, rotation({ productIds: [own.product], profileId: own.profile }));
    assert.equal(p.statusCode, 201, p.body);
  });

  it("refuses another organization's ids with 404 and the referenced kind's code, on create and on update, storing nothing", async () => {
    const before = await sourceCount();
    const cases: Array<[Record<string, unknown>, string, string[]]> = [
      [
        rss({ targets: [{ platform: 'x', channelAccountId: foreign.channel }] }),
        'channel_account_not_found',
        ['config', 'targets', '0', 'channelAccountId'],
      ],
      [
        rss({
          targets: [
            { platform: 'x', channelAccountId: own.channel },
            { platform: 'x', channelAccountId: 'cha_01HZZZZZZZZZZZZZZZZZZZZZZZ' },
          ],
        }),
        'channel_account_not_found',
        ['config', 'targets', '1', 'channelAccountId'],
      ],
      [rss({ profileId: foreign.profile }), 'publishing_profile_not_found', ['config', 'profileId']],
      [rotation({ profileId: foreign.profile }), 'publishing_profile_not_found', ['config', 'profileId']],
      [rotation({ productIds: [own.product, foreign.product] }), 'product_not_found', ['config', 'productIds', '1']],
      [rotation({ productIds: [otherBrandProduct] }), 'product_not_found', ['config', 'productIds', '0']],
    ];
    for (const [body, code, path] of cases) {
      const res = await post(a, body);
      assert.equal(res.statusCode, 404, `${code}: ${res.body}`);
      assert.equal(res.json().error, code);
      assert.deepEqual(res.json().fields?.[0]?.path, path);
      assert.ok(!res.body.includes('Beta') && !res.body.includes('Green Shoe'), 'nothing of the other organization is told');
    }
    assert.equal(await sourceCount(), before);

    // the same on update: the stored config stays as it was
    const saved = (await post(a, rotation({ productIds: [own.product] }))).json();
    const updates: Array<[Record<string, unknown>, string]> = [
      [{ config: { productIds: [foreign.product] } }, 'product_not_found'],
      [{ config: { profileId: foreign.profile } }, 'publishing_profile_not_found'],
    ];
    for (const [body, code] of updates) {
      const res = await patch(a, saved.automationSourceId, body);
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().error, code);
    }
    const rssSaved = (await post(a, rss({}))).json();
    const res = await patch(a, rssSaved.automationSourceId, {
      config: { targets: [{ platform: 'x', channelAccountId: foreign.channel }] },
    });
    assert.equal(res.json().error, 'channel_account_not_found');
    const listed = await ctx.app.inject({ url: `/v1/automation-sources?brandId=${brandA}&limit=100`, headers: a.auth });
    const after = (listed.json().data as Array<{ automationSourceId: string; config: Record<string, unknown> }>).find(
      (s) => s.automationSourceId === saved.automationSourceId,
    );
    assert.deepEqual(after?.config.productIds, [own.product]);
    assert.ok(!listed.body.includes(foreign.channel) && !listed.body.includes(foreign.profile) && !listed.body.includes(foreign.product));
  });

  it('refuses internal feed URLs in every spelling, credentials and internal names at save (no DNS needed)', async () => {
    const refused = [
      'http://127.0.0.1/feed',
      'http://2130706433/feed', // decimal
      'http://017700000001/feed', // octal
      'http://0x7f000001/feed', // hex
      'http://0x7f.1/feed',
      'http://127.1/feed',
      'http://[::1]/feed',
      'http://[::ffff:127.0.0.1]/feed', // IPv4-mapped IPv6
      'http://[::ffff:a9fe:a9fe]/feed',
      'http://0.0.0.0/feed',
      'http://0/feed',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
      'http://10.0.0.5/feed',
      'http://192.168.1.1/feed',
      'http://172.16.0.1/feed',
      'http://100.64.0.1/feed',
      'http://[fc00::1]/feed',
      'http://[fe80::1]/feed',
      'http://localhost/feed',
      'http://localhost./feed', // trailing dot
      'http://LOCALHOST../feed',
      'http://feeds.localhost/feed',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://printer.local/feed',
      'http://intranet/feed', // a single label: an internal name
      'https://user:pw@blog.example.com/feed.xml', // credentials
      'https://token@blog.example.com/feed.xml',
    ];
    for (const feedUrl of refused) {
      const res = await post(a, rss({ feedUrl }));
      assert.equal(res.statusCode, 400, `${feedUrl}: ${res.body}`);
      assert.equal(res.json().error, 'invalid_public_automation_source_create_request', feedUrl);
      assert.deepEqual(res.json().fields?.[0]?.path, ['config', 'feedUrl'], feedUrl);
    }
    const saved = (await post(a, rss({}))).json();
    const upd = await patch(a, saved.automationSourceId, { config: { feedUrl: 'http://[::ffff:169.254.169.254]/' } });
    assert.equal(upd.statusCode, 400);
    assert.equal(upd.json().error, 'invalid_public_automation_source_update_request');
    for (const feedUrl of [
      'https://blog.example.com/feed.xml',
      'http://93.184.215.14/rss',
      'https://[2606:4700:4700::1111]/feed',
      'https://news.example.org./feed',
    ]) {
      assert.equal((await post(a, rss({ feedUrl }))).statusCode, 201, feedUrl);
    }
  });
});

describe('automation sources: the test allow-list reaches loopback simulators', () => {
  it('accepts a loopback feed when the outbound allow-list for tests lists it', async () => {
    const ctx = await createTestContext({ env: { SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32' } });
    try {
      const org = await ctx.createOrganization();
      const { brandId } = await ctx.createBrand(org.organizationId, 'Shop');
      const body = (feedUrl: string) => ({ brandId, kind: 'rss_feed', name: 'Local', config: { feedUrl } });
      const ok = await ctx.app.inject({
        method: 'POST',
        url: '/v1/automation-sources',
        headers: org.auth,
        payload: body('http://127.0.0.1:8080/feed'),
      });
      assert.equal(ok.statusCode, 201, ok.body);
      const other = await ctx.app.inject({
        method: 'POST',
        url: '/v1/automation-sources',
        headers: org.auth,
        payload: body('http://169.254.169.254/'),
      });
      assert.equal(other.statusCode, 400, 'only what the list names');
    } finally {
      await ctx.close();
    }
  });
});
