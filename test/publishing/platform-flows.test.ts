/**
 * Publish flows of the URL-based platforms (Instagram with Facebook Login and with Instagram Login,
 * Facebook Page photo and video, Threads) through HTTP and the worker: media uploaded to the library
 * reach the simulator as our signed content URL, which it fetches over loopback before it publishes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Platform } from '../../src/providers/provider.js';
import {
  connectPlatform,
  createPlatformOrg,
  type PlatformHarness,
  publishingFixture,
  publishNow,
  settle,
  sha256,
  startPlatformHarness,
  uploadMedia,
} from './platform-harness.js';

describe('publish flows through signed content URLs', { concurrency: true }, () => {
  let h: PlatformHarness;
  const photo = publishingFixture('photo-640.jpg');
  const clip = publishingFixture('clip-640x360-5s.mp4');

  before(async () => {
    h = await startPlatformHarness();
    await h.ctx.startWorker();
  });
  after(() => h?.close());

  /** Publishes one library item on the platform and checks target, ledger and the fetch of our URL. */
  async function flow(
    platform: Platform,
    file: Buffer,
    filename: string,
    steps: (account: string) => RegExp[],
    settings?: Record<string, unknown>,
  ) {
    // an organization per flow: its library item (and so its content URL) belongs to this flow alone
    const org = await createPlatformOrg(h, `${platform} ${filename}`);
    const channel = await connectPlatform(h, org, platform);
    const mediaId = await uploadMedia(h, org, file, filename);
    const text = `${platform} ${filename} ${Date.now()}`;
    const jobId = await publishNow(
      h,
      org,
      { platform, channelAccountId: channel.channelAccountId, ...(settings ? { settings } : {}) },
      text,
      [mediaId],
    );
    const job = await settle(h, org, jobId);
    const target = job.targets[0]!;
    assert.equal(target.state, 'published', JSON.stringify(target));
    assert.equal(job.status, 'published');
    assert.ok(target.providerPostId, 'provider post id');
    assert.match(String(target.providerUrl), /^https:\/\//);
    assert.equal(target.attempts, 1);

    const posts = h.meta.ledger.posts.filter((p) => p.text === text);
    assert.equal(posts.length, 1, `one ${platform} post`);
    assert.equal(posts[0]!.mediaCount, 1);
    assert.equal(posts[0]!.postId, target.providerPostId);
    assert.equal(posts[0]!.accountId, channel.externalAccountId);

    // the simulator fetched our signed content route and got exactly the uploaded bytes
    const fetched = h.served.filter((s) => s.path.startsWith(`/v1/media/${mediaId}/content`));
    assert.ok(fetched.length >= 1, `the ${platform} simulator fetched the content URL`);
    for (const f of fetched) {
      assert.equal(f.status, 200);
      assert.equal(f.bytes, file.length);
      assert.equal(f.sha256, sha256(file));
    }

    // the platform's calls, in this order (container, status polling, publish, ...)
    const calls = h.meta.ledger.requests.map((r) => `${r.method} ${r.url}`);
    let from = 0;
    for (const step of steps(channel.externalAccountId)) {
      const at = calls.findIndex((c, i) => i >= from && step.test(c));
      assert.ok(at >= 0, `${platform}: no ${step} after call ${from}`);
      from = at + 1;
    }
    return { target, mediaId };
  }

  it('instagram_business: image container, status polling, media_publish', async () => {
    await flow('instagram_business', photo, 'ig-business.jpg', (a) => [
      new RegExp(`^POST /facebook/graph/[^/]+/${a}/media$`),
      /^GET \/facebook\/graph\/[^/]+\/\d+\?fields=status_code/,
      new RegExp(`^POST /facebook/graph/[^/]+/${a}/media_publish$`),
    ]);
  });

  it('instagram_standalone: reel container from a video URL, polled until finished', async () => {
    await flow(
      'instagram_standalone',
      clip,
      'ig-reel.mp4',
      (a) => [
        new RegExp(`^POST /instagram/graph/[^/]+/${a}/media$`),
        /^GET \/instagram\/graph\/[^/]+\/\d+\?fields=status_code/,
        new RegExp(`^POST /instagram/graph/[^/]+/${a}/media_publish$`),
      ],
      { postType: 'reel' },
    );
  });

  it('facebook_page: photo from a URL', async () => {
    await flow('facebook_page', photo, 'fb-photo.jpg', (a) => [new RegExp(`^POST /facebook/graph/[^/]+/${a}/photos$`)]);
  });

  it('facebook_page: video from a file_url, polled until ready', async () => {
    await flow('facebook_page', clip, 'fb-video.mp4', (a) => [
      new RegExp(`^POST /facebook/video/[^/]+/${a}/videos$`),
      /^GET \/facebook\/graph\/[^/]+\/\d+\?fields=status/,
    ]);
  });

  it('threads: image container with status polling', async () => {
    await flow('threads', photo, 'threads.jpg', (a) => [
      new RegExp(`^POST /threads/graph/[^/]+/${a}/threads$`),
      /^GET \/threads\/graph\/[^/]+\/\d+\?fields=status/,
      new RegExp(`^POST /threads/graph/[^/]+/${a}/threads_publish$`),
    ]);
  });
});
