/**
 * The adapter operations every Meta platform's contract test runs against the Meta simulator, each under
 * the description of the host it calls (the simulator's guards check every request and, in these tests,
 * every answer): connect (token exchange, long-lived token, refresh), account lookup, publishing,
 * first comment, comment list, reply, hide, metrics, recent-posts reconciliation, tools and webhook
 * provisioning. Each platform's file says which of them it has and which operations they must call.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderCallContext, PublishMediaItem, PublishResult, SocialProvider } from '../../src/providers/provider.js';
import { subscribeMetaApp } from '../../src/providers/webhooks/meta-webhooks.js';
import { META_SANDBOX_APP } from '../../src/sandbox/simulators/meta.simulator.js';
import { connect, type MetaHarness, postOf, untilPublished } from '../providers/meta-harness.js';
import { underContract } from '../support/contracts.js';

export interface PublishCase {
  name: string;
  text: string;
  media: (h: MetaHarness) => PublishMediaItem[];
  settings?: Record<string, unknown>;
  /** operation ids the publish (with its polls) must call */
  calls: string[];
}

/** Publishes under the contract and polls until published; answers the post id. */
export async function publishUnderContract(
  h: MetaHarness,
  provider: SocialProvider,
  ctx: ProviderCallContext,
  c: PublishCase,
  key: string,
): Promise<string> {
  const { result } = await underContract(
    h.sim.ledger,
    `publish ${c.name}`,
    async (): Promise<PublishResult> => {
      const first = await provider.publish(ctx, { ...postOf(c.text, key, c.media(h)), settings: c.settings ?? {} });
      return untilPublished(provider, ctx, first);
    },
    c.calls,
  );
  assert.equal(result.status, 'published');
  return result.status === 'published' ? result.providerPostId : '';
}

/** Connects under the contract: the code exchange, the long-lived token, the refresh, and the accounts. */
export async function connectUnderContract(
  h: MetaHarness,
  provider: SocialProvider,
  calls: { connect: string[]; refresh: string[]; lookup: string[] },
) {
  const { result: tokens } = await underContract(h.sim.ledger, 'token exchange', () => connect(provider), calls.connect);
  await underContract(
    h.sim.ledger,
    'token refresh',
    () => provider.oauth.refresh({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }),
    calls.refresh,
  );
  const { result: accounts } = await underContract(h.sim.ledger, 'account lookup', () => provider.lookupAccounts({ tokens }), calls.lookup);
  assert.ok(accounts.length > 0);
  return { tokens, accounts };
}

/** Comments on a post under the contract: first comment, list, reply, hide. */
export async function commentsUnderContract(
  h: MetaHarness,
  provider: SocialProvider,
  ctx: ProviderCallContext,
  postId: string,
  calls: { comment: string[]; list: string[]; reply: string[]; hide?: string[] },
) {
  const first = await underContract(
    h.sim.ledger,
    'first comment',
    () => provider.postComment(ctx, { providerPostId: postId, text: 'First!' }),
    calls.comment,
  );
  await underContract(
    h.sim.ledger,
    'reply',
    () => provider.postComment(ctx, { providerPostId: postId, text: 'A reply', replyToCommentId: first.result.providerCommentId }),
    calls.reply,
  );
  const listed = await underContract(
    h.sim.ledger,
    'comment list',
    () => provider.listComments(ctx, { providerPostId: postId, limit: 50 }),
    calls.list,
  );
  assert.ok(listed.result.length > 0);
  if (calls.hide && provider.hideComment) {
    await underContract(
      h.sim.ledger,
      'hide',
      () => provider.hideComment!(ctx, { providerCommentId: first.result.providerCommentId, providerPostId: postId, hidden: true }),
      calls.hide,
    );
  }
}

/** The recent-posts reconciliation finds the post just published. */
export async function reconcileUnderContract(
  h: MetaHarness,
  provider: SocialProvider,
  ctx: ProviderCallContext,
  text: string,
  kinds: string[],
  calls: string[],
) {
  const { result } = await underContract(
    h.sim.ledger,
    'recent-posts reconciliation',
    () =>
      provider.findRecentPost!(ctx, {
        text,
        since: new Date(Date.now() - 60_000),
        until: new Date(Date.now() + 60_000),
        excludeIds: [],
        mediaKinds: kinds,
        settings: {},
      }),
    calls,
  );
  assert.equal(result.status, 'found');
}

/** Webhook provisioning: the app subscription on graph.facebook.com, with the callback's handshake. */
export async function provisionUnderContract(
  h: MetaHarness,
  platform: 'facebook_page' | 'instagram_business' | 'threads',
  object: string,
  fields: string[],
) {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(url.searchParams.get('hub.challenge') ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    await underContract(
      h.sim.ledger,
      'webhook provisioning',
      () =>
        subscribeMetaApp(platform, {
          graphBaseUrl: h.sim.baseUrls.facebook_page.apiBaseUrl,
          appId: META_SANDBOX_APP.clientId,
          appSecret: META_SANDBOX_APP.clientSecret,
          object,
          fields,
          callbackUrl,
          verifyToken: 'verify-me',
          timeoutMs: 2_000,
        }),
      ['appSubscriptions'],
    );
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
