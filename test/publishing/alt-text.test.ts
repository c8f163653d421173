/**
 * A library item's alt text travels with a job's media to every platform that takes one: X media
 * metadata, Facebook photo alt_text_custom, Instagram and Threads image containers' alt_text, Pinterest
 * alt_text. Checked on what each simulator received.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Platform } from '../../src/providers/provider.js';
import { multipartBody } from '../media/media-helpers.js';
import {
  call,
  connectPlatform,
  createPlatformOrg,
  type PlatformHarness,
  publishingFixture,
  settle,
  startPlatformHarness,
} from './platform-harness.js';

describe('alt text of library media', () => {
  let h: PlatformHarness;
  const photo = publishingFixture('photo-640.jpg');

  before(async () => {
    h = await startPlatformHarness();
    await h.ctx.startWorker();
  });
  after(() => h?.close());

  it('reaches X, Facebook, Instagram, Threads and Pinterest with the post', async () => {
    const org = await createPlatformOrg(h, 'Alt text');
    const altText = 'A red bicycle leaning on a blue wall';
    // the alt text field after the file (the fields may come in any order)
    const { body, contentType } = multipartBody([
      { name: 'file', value: photo, filename: 'alt.jpg' },
      { name: 'altText', value: Buffer.from(altText) },
    ]);
    const up = await h.ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: { ...org.auth, 'content-type': contentType },
      payload: body,
    });
    assert.ok(up.statusCode === 201 || up.statusCode === 200, up.body);
    const mediaId = up.json().mediaLibraryItemId as string;

    const platforms: Platform[] = ['x', 'facebook_page', 'instagram_business', 'threads', 'pinterest'];
    const channels = new Map<Platform, { channelAccountId: string; externalAccountId: string }>();
    for (const p of platforms) channels.set(p, await connectPlatform(h, org, p));
    const board = h.pinterest.state.boardsOf(channels.get('pinterest')!.externalAccountId)[0]!.id;
    const text = `alt text ${Date.now()}`;
    const created = await call(h, org, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId: org.brandId,
        text,
        mediaLibraryItemIds: [mediaId],
        targets: platforms.map((p) => ({
          platform: p,
          channelAccountId: channels.get(p)!.channelAccountId,
          ...(p === 'pinterest' ? { settings: { boardId: board } } : {}),
        })),
      },
      dryRun: false,
      enqueue: true,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.media[0].altText, altText, 'the job media carries the library alt text');
    const job = await settle(h, org, created.body.publishJobId as string, 90_000);
    for (const t of job.targets) assert.equal(t.state, 'published', JSON.stringify(t));

    const received = (ledger: { posts: Array<{ text: string; altTexts?: string[] }> }) =>
      ledger.posts.filter((p) => p.text === text).map((p) => p.altTexts ?? []);
    assert.deepEqual(received(h.x.ledger), [[altText]], 'X media metadata');
    assert.deepEqual(received(h.pinterest.ledger), [[altText]], 'Pinterest alt_text');
    // Facebook photo, Instagram image container, Threads image container
    assert.deepEqual(received(h.meta.ledger), [[altText], [altText], [altText]]);
  });
});
