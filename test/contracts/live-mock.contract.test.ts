/**
 * The service in live mode with X and Pinterest pointed at servers made from each platform's published
 * description alone (test/support/contract-mock-server.ts): text, image, video and carousel posts go
 * through HTTP, the plan checks and the worker, then comment sync and analytics reads run on the same
 * adapters; every request they send must be one the description accepts. The mock answers are the
 * description's own, with the few overrides a coherent flow needs (numeric ids the next call carries, a
 * processing state that ends, an upload URL on the mock host).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { describeViolations, loadContract } from '../../src/platform/contracts/contracts.js';
import type { Platform, ProviderCallContext } from '../../src/providers/provider.js';
import {
  connectPlatform,
  createPlatformOrg,
  type PlatformHarness,
  publishingFixture,
  publishNow,
  settle,
  startPlatformHarness,
  uploadMedia,
} from '../publishing/platform-harness.js';
import type { Org } from '../publishing/publishing-harness.js';
import { type ContractMockServer, startContractMockServer } from '../support/contract-mock-server.js';

let lastId = 1_900_000_000_000_000_000n;
const nextId = () => {
  lastId += 1n;
  return String(lastId);
};
const mediaId = (request: FastifyRequest) => (request.params as Record<string, string>)['*']?.split('/')[3] ?? nextId();

describe('live mode against mock servers made from the X and Pinterest descriptions', () => {
  let x: ContractMockServer;
  let pinterest: ContractMockServer;
  let h: PlatformHarness;
  let org: Org;
  const channels: Partial<Record<Platform, { channelAccountId: string; externalAccountId: string }>> = {};
  const photo = publishingFixture('photo-640.jpg');
  const clip = publishingFixture('clip-640x360-5s.mp4');

  before(async () => {
    const xContract = await loadContract('x');
    /** the description's own Post answer for the ids asked, without the partial-error list its example carries */
    const postsAnswer = (operationId: string, ids: string[]) => {
      const generated = xContract.mockResponse(operationId).body as { data: Record<string, unknown> | Array<Record<string, unknown>> };
      const one = (id: string) => ({ ...(Array.isArray(generated.data) ? generated.data[0] : generated.data), id });
      return { status: 200, body: { data: operationId === 'getPostsById' ? one(ids[0] ?? '') : ids.map(one) } };
    };
    x = await startContractMockServer('x', {
      answers: {
        getPostsById: (r) => postsAnswer('getPostsById', [String(r.url.split('?')[0]?.split('/').pop())]),
        getPostsByIds: (r) => postsAnswer('getPostsByIds', String((r.query as { ids?: string }).ids).split(',')),
        createPosts: (r) => {
          const id = nextId();
          return { status: 201, body: { data: { id, text: (r.body as { text?: string }).text ?? '', edit_history_tweet_ids: [id] } } };
        },
        mediaUpload: () => ({ status: 200, body: { data: { id: nextId(), media_key: `3_${lastId}` } } }),
        initializeMediaUpload: () => ({ status: 200, body: { data: { id: nextId(), media_key: `7_${lastId}` } } }),
        finalizeMediaUpload: (r) => ({
          status: 200,
          body: { data: { id: mediaId(r), processing_info: { state: 'pending', check_after_secs: 1 } } },
        }),
        getMediaUploadStatus: (r) => ({
          status: 200,
          body: {
            data: {
              id: String((r.query as { media_id?: string }).media_id),
              processing_info: { state: 'succeeded', progress_percent: 100 },
            },
          },
        }),
      },
    });
    pinterest = await startContractMockServer('pinterest', {
      answers: {
        'media/create': () => ({
          status: 201,
          body: { media_id: nextId(), media_type: 'video', upload_url: `${pinterest.url}/media-upload/`, upload_parameters: { key: 'k' } },
        }),
        'media/get': (r) => ({
          status: 200,
          body: { media_id: (r.params as Record<string, string>)['*']?.split('/')[2], media_type: 'video', status: 'succeeded' },
        }),
      },
      // the upload_url is a storage bucket's presigned form POST, outside the API description
      extraRoutes: (app) => app.post('/media-upload/', async (_req, reply) => reply.code(204).send()),
    });
    const urls = (base: string, version: string) => ({
      apiBaseUrl: `${base}${version}`,
      authBaseUrl: base,
      uploadBaseUrl: `${base}${version}`,
    });
    h = await startPlatformHarness(() => ({
      SERVICE_X_API_BASE_URL: urls(x.url, '/2').apiBaseUrl,
      SERVICE_X_UPLOAD_BASE_URL: urls(x.url, '/2').uploadBaseUrl,
      SERVICE_X_AUTH_BASE_URL: x.url,
      SERVICE_PINTEREST_API_BASE_URL: `${pinterest.url}/v5`,
      SERVICE_PINTEREST_AUTH_BASE_URL: pinterest.url,
      SERVICE_PINTEREST_UPLOAD_BASE_URL: `${pinterest.url}/media-upload`,
    }));
    await h.ctx.startWorker();
    org = await createPlatformOrg(h, 'contract mocks');
    channels.x = await connectPlatform(h, org, 'x');
    channels.pinterest = await connectPlatform(h, org, 'pinterest');
  });
  after(async () => {
    await h?.close();
    await x?.close();
    await pinterest?.close();
  });

  async function publish(platform: Platform, text: string, media: string[], settings?: Record<string, unknown>) {
    const channel = channels[platform]!;
    const jobId = await publishNow(
      h,
      org,
      { platform, channelAccountId: channel.channelAccountId, ...(settings ? { settings } : {}) },
      text,
      media,
    );
    const job = await settle(h, org, jobId, 30_000);
    assert.equal(job.targets[0]?.state, 'published', `${platform} "${text}": ${JSON.stringify(job.targets[0])}`);
    return job.targets[0]!.providerPostId;
  }

  function assertClean(mock: ContractMockServer, expected: string[]) {
    const violations = mock.calls.flatMap((c) => c.violations);
    assert.equal(violations.length, 0, describeViolations(violations));
    const called = new Set(mock.calls.map((c) => c.operationId));
    for (const op of expected) assert.ok(called.has(op), `${op} was not called (called: ${[...called].join(', ')})`);
  }

  it('X: text, image and video posts publish with zero request violations; comment sync and analytics reads too', async () => {
    const photoId = await uploadMedia(h, org, photo, 'photo.jpg');
    const clipId = await uploadMedia(h, org, clip, 'clip.mp4');
    const postId = await publish('x', `x text ${Date.now()}`, []);
    await publish('x', `x image ${Date.now()}`, [photoId]);
    await publish('x', `x video ${Date.now()}`, [clipId]);
    const adapter = h.ctx.root.shared.registry.get('x');
    const ctx: ProviderCallContext = { accessToken: 'mock-token', externalAccountId: channels.x!.externalAccountId, channelSettings: {} };
    await adapter.listComments(ctx, { providerPostId: postId, limit: 20 });
    await adapter.fetchPostMetrics!(ctx, { providerPostId: postId });
    await adapter.fetchPostAnalytics(ctx, { providerPostId: postId });
    assertClean(x, [
      'createPosts',
      'mediaUpload',
      'initializeMediaUpload',
      'appendMediaUpload',
      'finalizeMediaUpload',
      'getMediaUploadStatus',
      'searchPostsRecent',
      'getPostsByIds',
      'getPostsById',
    ]);
  });

  it('Pinterest: image, carousel and video Pins publish with zero request violations; analytics reads too', async () => {
    const photoId = await uploadMedia(h, org, photo, 'photo.jpg');
    // a second image: the same JPEG with bytes after its end marker (the library keeps distinct content apart)
    const otherId = await uploadMedia(h, org, Buffer.concat([photo, Buffer.from('carousel')]), 'photo-2.jpg');
    const clipId = await uploadMedia(h, org, clip, 'clip.mp4');
    const settings = { boardId: '549755885175' };
    const pinId = await publish('pinterest', `pin image ${Date.now()}`, [photoId], settings);
    await publish('pinterest', `pin carousel ${Date.now()}`, [photoId, otherId], settings);
    await publish('pinterest', `pin video ${Date.now()}`, [clipId], settings);
    const adapter = h.ctx.root.shared.registry.get('pinterest');
    const ctx: ProviderCallContext = {
      accessToken: 'mock-token',
      externalAccountId: channels.pinterest!.externalAccountId,
      channelSettings: {},
    };
    await adapter.fetchPostMetrics!(ctx, { providerPostId: pinId });
    await adapter.fetchPostAnalytics(ctx, { providerPostId: pinId });
    assertClean(pinterest, ['pins/create', 'media/create', 'media/get', 'pins/analytics']);
  });
});
