/**
 * Publish flows of the platforms that take uploaded bytes (YouTube resumable upload, Pinterest media
 * upload, TikTok Direct Post FILE_UPLOAD, X chunked media upload) plus Pinterest image Pins from our
 * signed content URL, through HTTP and the worker; and a first comment on X.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Platform } from '../../src/providers/provider.js';
import type { SimulatorLedger } from '../../src/sandbox/simulator-kit.js';
import {
  call,
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
import type { Org } from './publishing-harness.js';

describe('publish flows with uploaded bytes', { concurrency: true }, () => {
  let h: PlatformHarness;
  const photo = publishingFixture('photo-640.jpg');
  const clip = publishingFixture('clip-640x360-5s.mp4');

  before(async () => {
    h = await startPlatformHarness();
    await h.ctx.startWorker();
  });
  after(() => h?.close());

  /** A fresh organization with a connected channel of the platform and one uploaded library item. */
  async function prepare(platform: Platform, file: Buffer, filename: string) {
    const org = await createPlatformOrg(h, `${platform} ${filename}`);
    const channel = await connectPlatform(h, org, platform);
    const mediaId = await uploadMedia(h, org, file, filename);
    return { org, channel, mediaId, text: `${platform} ${filename} ${Date.now()}` };
  }

  /** Runs a provider tool for the channel through the public route. */
  async function tool(org: Org, name: string, channelAccountId: string) {
    const r = await call(h, org, 'POST', `/v1/providers/tools/${name}`, { channelAccountId });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.results as Array<Record<string, unknown>>;
  }

  /** Waits for the job and checks the published target and the one post the simulator received. */
  async function published(
    org: Org,
    jobId: string,
    ledger: SimulatorLedger,
    text: string,
    accountId: string,
    // the id the simulator recorded, when the platform names the post differently from its public id
    ledgerId: (providerPostId: string) => string = (id) => id,
  ) {
    const job = await settle(h, org, jobId);
    const target = job.targets[0]!;
    assert.equal(target.state, 'published', JSON.stringify(target));
    assert.equal(job.status, 'published');
    assert.ok(target.providerPostId, 'provider post id');
    assert.match(String(target.providerUrl), /^https:\/\//);
    const posts = ledger.posts.filter((p) => p.text === text);
    assert.equal(posts.length, 1, 'exactly one post received');
    assert.equal(posts[0]!.mediaCount, 1);
    assert.equal(posts[0]!.postId, ledgerId(target.providerPostId));
    assert.equal(posts[0]!.accountId, accountId);
    return target;
  }

  it('youtube: resumable upload of the video bytes with title and privacy', async () => {
    const { org, channel, mediaId, text } = await prepare('youtube', clip, 'yt.mp4');
    const title = `Launch ${Date.now()}`;
    const jobId = await publishNow(
      h,
      org,
      { platform: 'youtube', channelAccountId: channel.channelAccountId, settings: { title, privacyStatus: 'unlisted' } },
      text,
      [mediaId],
    );
    const target = await published(org, jobId, h.youtube.ledger, text, channel.externalAccountId);
    const video = h.youtube.state.videos.get(target.providerPostId);
    assert.ok(video, 'the simulator holds the uploaded video');
    assert.equal(video.bytes, clip.length);
    assert.equal(video.resource.snippet.title, title);
    assert.equal(video.resource.snippet.description, text);
    assert.equal(video.resource.status.privacyStatus, 'unlisted');
    // one resumable session: the metadata POST, then the bytes
    assert.equal(h.youtube.ledger.count('upload_init'), 1);
    assert.equal(h.youtube.ledger.count('publish'), 1);
  });

  it('pinterest: image Pin on a board from our signed content URL', async () => {
    const { org, channel, mediaId, text } = await prepare('pinterest', photo, 'pin.jpg');
    const boards = await tool(org, 'boardList', channel.channelAccountId);
    const boardId = String(boards[0]?.id);
    assert.ok(h.pinterest.state.boardsOf(channel.externalAccountId).some((b) => b.id === boardId));
    const jobId = await publishNow(
      h,
      org,
      { platform: 'pinterest', channelAccountId: channel.channelAccountId, settings: { boardId, title: 'Pin title' } },
      text,
      [mediaId],
    );
    const target = await published(org, jobId, h.pinterest.ledger, text, channel.externalAccountId);
    const pin = h.pinterest.state.pins.get(target.providerPostId);
    assert.equal(pin?.resource.board_id, boardId);
    const fetched = h.served.filter((s) => s.path.startsWith(`/v1/media/${mediaId}/content`));
    assert.ok(fetched.length >= 1, 'the simulator fetched the content URL');
    for (const f of fetched) {
      assert.equal(f.status, 200);
      assert.equal(f.sha256, sha256(photo));
    }
  });

  it('pinterest: video Pin from a media upload', async () => {
    const { org, channel, mediaId, text } = await prepare('pinterest', clip, 'pin.mp4');
    const boardId = String((await tool(org, 'boardList', channel.channelAccountId))[0]?.id);
    const before = new Set(h.pinterest.state.media.keys());
    const jobId = await publishNow(
      h,
      org,
      { platform: 'pinterest', channelAccountId: channel.channelAccountId, settings: { boardId } },
      text,
      [mediaId],
    );
    const target = await published(org, jobId, h.pinterest.ledger, text, channel.externalAccountId);
    const uploads = [...h.pinterest.state.media.entries()].filter(([id, m]) => !before.has(id) && m.ownerId === channel.externalAccountId);
    assert.equal(uploads.length, 1, 'one media upload');
    assert.equal(uploads[0]![1].bytes, clip.length);
    assert.equal(uploads[0]![1].status, 'succeeded');
    const pin = h.pinterest.state.pins.get(target.providerPostId);
    assert.equal((pin?.resource.media_source as { media_id?: string } | undefined)?.media_id ?? uploads[0]![0], uploads[0]![0]);
    assert.equal(
      h.served.filter((s) => s.path.startsWith(`/v1/media/${mediaId}/content`)).length,
      0,
      'video bytes were uploaded, not fetched',
    );
  });

  it('tiktok: creator_info, init, chunked upload and status fetch', async () => {
    const { org, channel, mediaId, text } = await prepare('tiktok', clip, 'tt.mp4');
    const options = await tool(org, 'privacyOptions', channel.channelAccountId);
    // a public post: SELF_ONLY posts never get a public id or URL
    const privacy = String(options.find((o) => o.value === 'PUBLIC_TO_EVERYONE')?.value);
    assert.ok(
      options.some((o) => o.value === privacy),
      JSON.stringify(options),
    );
    const jobId = await publishNow(
      h,
      org,
      {
        platform: 'tiktok',
        channelAccountId: channel.channelAccountId,
        settings: {
          privacy_level: privacy,
          disable_comment: false,
          disable_duet: true,
          disable_stitch: true,
          brand_content_toggle: false,
          brand_organic_toggle: false,
        },
      },
      text,
      [mediaId],
    );
    const publishes = () => [...h.tiktok.state.publishes.values()].filter((p) => p.openId === channel.externalAccountId);
    // the simulator records the publish_id; the target holds the public video id status fetch answered
    await published(org, jobId, h.tiktok.ledger, text, channel.externalAccountId, (videoId) => {
      const p = publishes().find((x) => x.videoId === videoId);
      assert.ok(p, `a publish produced video ${videoId}`);
      return p.publishId;
    });
    assert.equal(publishes().length, 1, 'one Direct Post init');
    assert.equal(publishes()[0]!.kind, 'video');
    assert.equal(publishes()[0]!.privacyLevel, privacy);
    assert.equal(publishes()[0]!.videoSize, clip.length);
    assert.equal(publishes()[0]!.receivedBytes, clip.length);
    const l = h.tiktok.ledger;
    // creator_info for the tool and again before init; one init, the upload, then status fetch
    assert.ok(l.count('creator_info') >= 2);
    assert.equal(l.count('publish'), 1);
    assert.ok(l.count('upload') >= 1);
    assert.ok(l.count('status') >= 1);
  });

  it('x: chunked media upload, then the post with the media', async () => {
    const { org, channel, mediaId, text } = await prepare('x', clip, 'x.mp4');
    const jobId = await publishNow(h, org, { platform: 'x', channelAccountId: channel.channelAccountId }, text, [mediaId]);
    const target = await published(org, jobId, h.x.ledger, text, channel.externalAccountId);
    const tweet = h.x.state.tweets.get(target.providerPostId);
    assert.equal(tweet?.mediaKeys.length, 1);
    const media = [...h.x.state.media.values()].find((m) => m.mediaKey === tweet?.mediaKeys[0]);
    assert.ok(media?.finalized, 'upload finalized');
    assert.equal(media.totalBytes, clip.length);
    assert.equal(
      [...media.segments.values()].reduce((a, b) => a + b, 0),
      clip.length,
    );
  });

  it('x: the first comment is posted as a reply after the post', async () => {
    const { org, channel, mediaId, text } = await prepare('x', photo, 'x.jpg');
    const jobId = await publishNow(
      h,
      org,
      {
        platform: 'x',
        channelAccountId: channel.channelAccountId,
        settings: { firstComment: { content: 'More in the thread', delayMs: 50 } },
      },
      text,
      [mediaId],
    );
    const target = await published(org, jobId, h.x.ledger, text, channel.externalAccountId);
    const deadline = Date.now() + 8000;
    let fc: { state: string; providerCommentId?: string } | undefined;
    while (Date.now() < deadline) {
      fc = (await call(h, org, 'GET', `/v1/publish/jobs/${jobId}`)).body.targets[0].firstComment;
      if (fc?.state === 'posted' || fc?.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 60));
    }
    assert.equal(fc?.state, 'posted', JSON.stringify(fc));
    const replies = h.x.ledger.comments.filter((c) => c.postId === target.providerPostId);
    assert.equal(replies.length, 1);
    assert.equal(replies[0]!.text, 'More in the thread');
    assert.equal(replies[0]!.commentId, fc?.providerCommentId);
    assert.ok(replies[0]!.at >= h.x.ledger.posts.find((p) => p.postId === target.providerPostId)!.at);
  });
});
