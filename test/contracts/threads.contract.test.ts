/**
 * Threads under the description written from its reference pages (contracts/threads; Meta publishes no
 * machine-readable one): every adapter operation runs against the Meta simulator, whose guard checks each
 * request and, here, each answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { THREADS_API_VERSION } from '../../src/providers/meta-shared/meta-api-version.js';
import type { ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { createThreadsProvider } from '../../src/providers/threads/threads.provider.js';
import { THREADS_API } from '../../src/providers/threads/threads.rules.js';
import { ctxFor, type MetaHarness, startMetaHarness } from '../providers/meta-harness.js';
import { underContract, verdictOf } from '../support/contracts.js';
import { assertRecordFollowsDescription } from './api-record.js';
import {
  commentsUnderContract,
  connectUnderContract,
  provisionUnderContract,
  publishUnderContract,
  reconcileUnderContract,
} from './meta-contract-flow.js';

const POST = ['createContainer', 'readMedia', 'publishContainer'];

describe('threads contract: every request and answer against the Threads API description', () => {
  let h: MetaHarness;
  let provider: SocialProvider;
  let th: ProviderCallContext;

  before(async () => {
    h = await startMetaHarness();
    provider = createThreadsProvider(h.config('threads'));
  });
  after(() => h.close());

  test('connect: code exchange, long-lived token, refresh, the profile', async () => {
    const { tokens, accounts } = await connectUnderContract(h, provider, {
      connect: ['oauthAccessToken', 'longLivedToken'],
      refresh: ['refreshToken'],
      lookup: ['me'],
    });
    th = ctxFor(tokens.accessToken, accounts[0]!.externalAccountId);
  });

  test('publish text, image, video and carousel', async () => {
    await publishUnderContract(
      h,
      provider,
      th,
      { name: 'text', text: 'Hello Threads', media: () => [], calls: ['createContainer', 'publishContainer'] },
      't1',
    );
    await publishUnderContract(h, provider, th, { name: 'image', text: 'A photo', media: (x) => [x.image()], calls: POST }, 't2');
    await publishUnderContract(h, provider, th, { name: 'video', text: 'A clip', media: (x) => [x.video()], calls: POST }, 't3');
    await publishUnderContract(h, provider, th, { name: 'carousel', text: 'Two', media: (x) => [x.image(), x.video()], calls: POST }, 't4');
  });

  test('replies, reply quota, hide, insights, reconciliation, tools and webhook provisioning', async () => {
    const postId = await publishUnderContract(
      h,
      provider,
      th,
      { name: 'text', text: 'Reply to me', media: () => [], calls: ['createContainer', 'publishContainer'] },
      't5',
    );
    await commentsUnderContract(h, provider, th, postId, {
      comment: ['createContainer', 'publishContainer'],
      reply: ['createContainer', 'publishContainer'],
      list: ['conversation'],
      hide: ['manageReply'],
    });
    await underContract(h.sim.ledger, 'reply quota', () => provider.replyBudget!(th), ['publishingLimit']);
    await underContract(h.sim.ledger, 'insights', () => provider.fetchPostAnalytics(th, { providerPostId: postId }), ['mediaInsights']);
    await underContract(h.sim.ledger, 'permalink', () => provider.fetchPermalink(th, postId), ['readMedia']);
    await reconcileUnderContract(h, provider, th, 'Reply to me', [], ['userThreads']);
    await underContract(h.sim.ledger, 'pageProfile tool', () => provider.runTool(th, 'pageProfile', {}), ['me']);
    await provisionUnderContract(h, 'threads', 'threads', ['replies']);
  });

  test('the description rejects what the Threads API refuses', async () => {
    const noType = await verdictOf('threads', {
      method: 'POST',
      path: `/${THREADS_API_VERSION}/123/threads`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: { access_token: 't', text: 'x' },
    });
    assert.deepEqual(
      noType.violations.map((v) => v.field),
      ['body.media_type'],
    );
    const badControl = await verdictOf('threads', {
      method: 'POST',
      path: `/${THREADS_API_VERSION}/123/threads`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: { access_token: 't', media_type: 'TEXT', text: 'x', reply_control: 'nobody' },
    });
    assert.ok(badControl.violations.some((v) => v.field === 'body.reply_control'));
  });

  test('the API version record follows the vendored description', async () => {
    await assertRecordFollowsDescription(THREADS_API);
  });
});
