/**
 * Provider webhooks against the loopback simulators: provisioning for real (Graph verifies our GET
 * handshake, X runs its CRC, the hub verifies the topic), then deliveries signed as each platform
 * signs them, and what they change: a comment appears, a deauthorized channel needs a reconnect, a
 * YouTube feed entry makes a processing video target publish without waiting for its next poll.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { hubSubscriptions, publishToHub } from '../../src/sandbox/simulators/google/websub-hub.routes.js';
import { addAudienceComment } from '../../src/sandbox/simulators/meta/meta-comments.js';
import { appSubscriptions } from '../../src/sandbox/simulators/meta/meta-subscriptions.routes.js';
import { META_SANDBOX_APP } from '../../src/sandbox/simulators/meta.simulator.js';
import { deliverActivity } from '../../src/sandbox/simulators/x/x-webhooks.routes.js';
import { publishedPost } from '../comments/comments-helpers.js';
import {
  call,
  connectPlatform,
  createPlatformOrg,
  type PlatformHarness,
  publishingFixture,
  publishNow,
  startPlatformHarness,
  uploadMedia,
} from '../publishing/platform-harness.js';
import { INTERNAL_TOKEN, type Org } from '../publishing/publishing-harness.js';
import { waitFor } from '../support/wait.js';

const VERIFY_TOKEN = 'meta-verify-token-for-tests';
const HUB_SECRET = 'websub-secret-for-tests';
const X_CONSUMER_SECRET = 'sandbox-x-consumer-secret';

const until = <T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000) =>
  waitFor(what, probe, timeoutMs, 100);

const metaSign = (body: string, secret: string = META_SANDBOX_APP.clientSecret) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('provider webhooks through the simulators', () => {
  let h: PlatformHarness;
  const post = (platform: string, body: string, headers: Record<string, string>) =>
    h.ctx.app.inject({
      method: 'POST',
      url: `/v1/provider-webhooks/${platform}`,
      headers: { 'content-type': 'application/json', ...headers },
      payload: body,
    });
  const provision = (platforms: string[], dryRun: boolean) =>
    h.ctx.app.inject({
      method: 'POST',
      url: '/v1/internal/provider-webhooks/provision',
      headers: { 'x-service-internal-token': INTERNAL_TOKEN },
      payload: { platforms, dryRun },
    });

  const channelOf = async (org: Org, id: string) => {
    const list = (await call(h, org, 'GET', '/v1/channel-accounts')).body.data as Array<Record<string, unknown>>;
    const c = list.find((x) => x.channelAccountId === id);
    assert.ok(c, `channel ${id} listed`);
    return c;
  };

  before(async () => {
    h = await startPlatformHarness((sims) => ({
      SERVICE_PROVIDER_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
      SERVICE_X_WEBHOOK_APP_BEARER_TOKEN: 'sandbox-x-app-bearer-token',
      SERVICE_X_WEBHOOK_SECRET: X_CONSUMER_SECRET,
      SERVICE_YOUTUBE_WEBHOOK_SECRET: HUB_SECRET,
      SERVICE_YOUTUBE_WEBSUB_HUB_URL: `${sims.youtube}/websub/subscribe`,
    }));
    await h.ctx.startWorker();
  });
  after(() => h?.close());

  it('Meta: provisioning subscribes the app (Graph verified our handshake); a signed comment change syncs the comment once', async () => {
    const dry = await provision(['facebook_page', 'instagram_business', 'threads'], true);
    assert.equal(dry.statusCode, 200, dry.body);
    assert.equal(appSubscriptions(h.meta.state).size, 0, 'a dry run calls nothing');
    const real = await provision(['facebook_page', 'instagram_business', 'threads'], false);
    assert.equal(real.statusCode, 200, real.body);
    for (const p of real.json().platforms) assert.equal(p.outcome, 'provisioned', JSON.stringify(p));
    const page = appSubscriptions(h.meta.state).get('page');
    assert.ok(page, 'page subscription exists');
    assert.match(page.callbackUrl, /\/v1\/provider-webhooks\/facebook_page$/);
    assert.deepEqual(page.fields, ['feed']);
    assert.equal(appSubscriptions(h.meta.state).get('threads')?.fields[0], 'replies');

    const p = await publishedPost(h, 'facebook_page');
    const commentId = addAudienceComment(h.meta.state, {
      postId: p.providerPostId,
      body: 'Is this in stock?',
      authorHandle: 'fan',
      authorName: 'Fan',
      parentId: null,
    });
    assert.ok(commentId);
    const body = JSON.stringify({
      object: 'page',
      entry: [
        {
          id: p.externalAccountId,
          time: Math.floor(Date.now() / 1000),
          changes: [
            {
              field: 'feed',
              value: {
                item: 'comment',
                verb: 'add',
                post_id: p.providerPostId,
                comment_id: commentId,
                message: 'Is this in stock?',
                from: { id: '9', name: 'Fan' },
              },
            },
          ],
        },
      ],
    });
    const first = await post('facebook_page', body, { 'x-hub-signature-256': metaSign(body) });
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { received: true, duplicate: false, events: 1 });
    const listed = await until('the comment', async () => {
      const list = (await call(h, p.org, 'GET', `/v1/social-comments?channelAccountId=${p.channelAccountId}`)).body.data as Array<
        Record<string, unknown>
      >;
      return list.find((c) => c.providerCommentId === commentId);
    });
    assert.equal(listed.body, 'Is this in stock?');
    assert.equal(listed.postTargetId, p.postTargetId);
    // the platform retries the same delivery: recorded once, nothing done twice
    const reads = h.meta.ledger.count('comments_list') + h.meta.ledger.count('read');
    const retry = await post('facebook_page', body, { 'x-hub-signature-256': metaSign(body) });
    assert.equal(retry.statusCode, 200);
    assert.deepEqual(retry.json(), { received: true, duplicate: true, events: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(h.meta.ledger.count('comments_list') + h.meta.ledger.count('read'), reads, 'no second sync');
    const list = (await call(h, p.org, 'GET', `/v1/social-comments?channelAccountId=${p.channelAccountId}`)).body.data;
    assert.equal(list.length, 1);
    // a body signed with another secret, or changed after signing, is refused
    assert.equal((await post('facebook_page', body, { 'x-hub-signature-256': metaSign(body, 'not-the-app-secret') })).statusCode, 401);
    assert.equal((await post('facebook_page', `${body} `, { 'x-hub-signature-256': metaSign(body) })).statusCode, 401);
  });

  it('Threads: a signed uninstall (deauthorize) signed_request marks the channel reconnect_required', async () => {
    const org = await createPlatformOrg(h, 'threads deauth');
    const channel = await connectPlatform(h, org, 'threads');
    const payload = Buffer.from(
      JSON.stringify({ algorithm: 'HMAC-SHA256', issued_at: Math.floor(Date.now() / 1000), user_id: channel.externalAccountId }),
    ).toString('base64url');
    const sig = createHmac('sha256', META_SANDBOX_APP.clientSecret).update(payload).digest('base64url');
    const form = (signed: string) =>
      h.ctx.app.inject({
        method: 'POST',
        url: '/v1/provider-webhooks/threads',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ signed_request: signed }).toString(),
      });
    assert.equal((await form(`${sig.slice(1)}x.${payload}`)).statusCode, 401);
    const ok = await form(`${sig}.${payload}`);
    assert.equal(ok.statusCode, 200, ok.body);
    await until('reconnect_required', async () => (await channelOf(org, channel.channelAccountId)).state === 'reconnect_required');
  });

  it('X: provisioning registers the webhook (CRC answered) and subscribes the account; replies sync, revoke needs a reconnect', async () => {
    // CRC handshake computed with the consumer secret
    const crc = await h.ctx.app.inject({ method: 'GET', url: '/v1/provider-webhooks/x?crc_token=abc123' });
    assert.equal(crc.statusCode, 200);
    assert.deepEqual(crc.json(), { response_token: `sha256=${createHmac('sha256', X_CONSUMER_SECRET).update('abc123').digest('base64')}` });

    const p = await publishedPost(h, 'x');
    const real = await provision(['x'], false);
    assert.equal(real.statusCode, 200, real.body);
    const x = real.json().platforms[0];
    assert.equal(x.outcome, 'provisioned', JSON.stringify(x));
    const hook = [...h.x.state.webhooks.values()][0]!;
    assert.equal(hook.valid, true);
    assert.ok(hook.subscribers.has(p.externalAccountId));
    // provisioning again reuses the webhook
    assert.equal((await provision(['x'], false)).json().platforms[0].outcome, 'provisioned');
    assert.equal(h.x.state.webhooks.size, 1);

    const reply = h.x.state.seedReply(p.providerPostId, { username: 'fan_x', text: 'Great thread' });
    const statuses = await deliverActivity(h.x.state, p.externalAccountId, {
      tweet_create_events: [
        {
          id_str: reply.id,
          text: 'Great thread',
          in_reply_to_status_id_str: p.providerPostId,
          user: { id_str: reply.authorId ?? '42', screen_name: 'fan_x' },
        },
      ],
    });
    assert.deepEqual(statuses, [200]);
    await until('the X reply', async () => {
      const list = (await call(h, p.org, 'GET', `/v1/social-comments?channelAccountId=${p.channelAccountId}`)).body.data as Array<
        Record<string, unknown>
      >;
      return list.find((c) => c.providerCommentId === reply.id);
    });
    // signature refusals
    const body = JSON.stringify({ for_user_id: p.externalAccountId, tweet_create_events: [] });
    assert.equal((await post('x', body, {})).statusCode, 401);
    assert.equal(
      (await post('x', body, { 'x-twitter-webhooks-signature': `sha256=${createHmac('sha256', 'other').update(body).digest('base64')}` }))
        .statusCode,
      401,
    );
    const good = await post('x', body, {
      'x-twitter-webhooks-signature': `sha256=${createHmac('sha256', X_CONSUMER_SECRET).update(body).digest('base64')}`,
    });
    assert.equal(good.statusCode, 200);

    await deliverActivity(h.x.state, p.externalAccountId, {
      user_event: { revoke: { date_time: new Date().toISOString(), target: { app_id: '1' }, source: { user_id: p.externalAccountId } } },
    });
    await until('X channel reconnect_required', async () => {
      return (await channelOf(p.org, p.channelAccountId)).state === 'reconnect_required';
    });
  });

  it('YouTube: the hub verifies our topic; a signed feed entry polls the processing video at once', async () => {
    const org = await createPlatformOrg(h, 'youtube hub');
    const channel = await connectPlatform(h, org, 'youtube');
    const topic = `https://www.youtube.com/xml/feeds/videos.xml?channel_id=${channel.externalAccountId}`;
    // an unknown topic is not confirmed
    const unknown = await h.ctx.app.inject({
      method: 'GET',
      url: `/v1/provider-webhooks/youtube?hub.mode=subscribe&hub.challenge=c1&hub.topic=${encodeURIComponent(`${topic}x`)}`,
    });
    assert.equal(unknown.statusCode, 403);
    const dry = await provision(['youtube'], true);
    assert.equal(dry.json().platforms[0].steps.length, 1);
    assert.equal(hubSubscriptions(h.youtube.state).size, 0);
    const real = await provision(['youtube'], false);
    assert.equal(real.json().platforms[0].outcome, 'provisioned', real.body);
    await until('hub verification', async () =>
      [...hubSubscriptions(h.youtube.state).values()].find((s) => s.topic === topic && s.state === 'verified'),
    );

    // a video that stays processing until its next read; the regular poll comes 15 s later
    h.youtube.state.processingReads = 1;
    const media = await uploadMedia(h, org, publishingFixture('clip-640x360-5s.mp4'), 'clip.mp4');
    const jobId = await publishNow(
      h,
      org,
      { platform: 'youtube', channelAccountId: channel.channelAccountId, settings: { title: 'Hub test', privacyStatus: 'unlisted' } },
      'hub video',
      [media],
    );
    const processing = await until('processing', async () => {
      const job = (await call(h, org, 'GET', `/v1/publish/jobs/${jobId}`)).body;
      return job.targets[0].state === 'processing' ? job.targets[0] : null;
    });
    const seenAt = Date.now();
    const videoId = processing.providerPostId as string;
    const atom = `<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns="http://www.w3.org/2005/Atom">
  <link rel="hub" href="https://pubsubhubbub.appspot.com"/>
  <link rel="self" href="${topic}"/>
  <title>YouTube video feed</title>
  <entry>
    <id>yt:video:${videoId}</id>
    <yt:videoId>${videoId}</yt:videoId>
    <yt:channelId>${channel.externalAccountId}</yt:channelId>
    <title>Hub test</title>
    <link rel="alternate" href="https://www.youtube.com/watch?v=${videoId}"/>
    <published>${new Date().toISOString()}</published>
    <updated>${new Date().toISOString()}</updated>
  </entry>
</feed>`;
    // unsigned or wrongly signed deliveries are refused
    assert.equal((await post('youtube', atom, { 'content-type': 'application/atom+xml' })).statusCode, 401);
    const wrong = `sha1=${createHmac('sha1', 'other').update(atom).digest('hex')}`;
    assert.equal((await post('youtube', atom, { 'content-type': 'application/atom+xml', 'x-hub-signature': wrong })).statusCode, 401);
    assert.deepEqual(await publishToHub(h.youtube.state, topic, atom), [200]);
    const done = await until(
      'published',
      async () => {
        const job = (await call(h, org, 'GET', `/v1/publish/jobs/${jobId}`)).body;
        return job.targets[0].state === 'published' ? job.targets[0] : null;
      },
      30_000,
    );
    assert.ok(Date.now() - seenAt < 14_000, `published ${Date.now() - seenAt} ms after processing: before the 15 s poll`);
    assert.match(done.providerUrl, /watch\?v=/);
  });
});
