/**
 * Read-side X calls: replies of a post through recent search (conversation_id:<id>) and the composer tools
 * (mentionSearch via users search with a username-lookup fallback, communitySearch).
 * https://docs.x.com/x-api/posts/search/api-reference/get-tweets-search-recent
 * https://docs.x.com/x-api/x-api-v2/users/search , https://docs.x.com/x-api/communities/search
 */
import {
  type FindRecentPostInput,
  type ProviderCallContext,
  type ProviderComment,
  ProviderError,
  type ProviderToolName,
  type RecentPostLookup,
} from '../provider.js';
import { findInListing, WINDOW_SLACK_MS } from '../shared/recent-posts.js';
import type { XClient } from './x.client.js';

interface XTweet {
  id: string;
  text: string;
  author_id?: string;
  created_at?: string;
  conversation_id?: string;
  referenced_tweets?: Array<{ type: string; id: string }>;
  public_metrics?: Record<string, number>;
}

interface XUser {
  id: string;
  name: string;
  username: string;
  profile_image_url?: string;
  verified?: boolean;
}

interface SearchPage {
  data?: XTweet[];
  includes?: { users?: XUser[] };
  meta?: { result_count?: number; next_token?: string };
}

/** Recent search only reaches back seven days; an older start_time is refused with 400. */
const SEARCH_WINDOW_MS = 7 * 24 * 3600 * 1000 - 60_000;

export async function listConversation(
  client: XClient,
  ctx: ProviderCallContext,
  input: { providerPostId: string; limit: number; since?: string },
): Promise<ProviderComment[]> {
  const limit = Math.max(1, Math.min(input.limit, 500));
  const sinceMs = input.since ? Date.parse(input.since) : Number.NaN;
  const startTime = Number.isFinite(sinceMs) && sinceMs > Date.now() - SEARCH_WINDOW_MS ? new Date(sinceMs).toISOString() : undefined;
  const out: ProviderComment[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.get<SearchPage>(
      ctx.accessToken,
      '/tweets/search/recent',
      {
        query: `conversation_id:${input.providerPostId}`,
        max_results: Math.max(10, Math.min(100, limit - out.length)),
        'tweet.fields': 'author_id,created_at,conversation_id,referenced_tweets,public_metrics',
        expansions: 'author_id',
        'user.fields': 'username,name',
        start_time: startTime,
        next_token: nextToken,
      },
      ctx.signal,
    );
    const users = new Map((page.includes?.users ?? []).map((u) => [u.id, u]));
    for (const t of page.data ?? []) {
      if (t.id === input.providerPostId || out.length >= limit) continue;
      const author = t.author_id ? users.get(t.author_id) : undefined;
      const parent = t.referenced_tweets?.find((r) => r.type === 'replied_to')?.id ?? null;
      out.push({
        providerCommentId: t.id,
        parentProviderCommentId: parent === input.providerPostId ? null : parent,
        body: t.text,
        authorName: author?.name ?? null,
        authorHandle: author?.username ?? null,
        authorId: t.author_id ?? null,
        permalinkUrl: author ? `https://x.com/${author.username}/status/${t.id}` : `https://x.com/i/web/status/${t.id}`,
        providerCreatedAt: t.created_at ?? null,
        metrics: { ...(t.public_metrics ?? {}) },
      });
    }
    nextToken = page.meta?.next_token;
  } while (nextToken && out.length < limit);
  return out;
}

function queryOf(input: Record<string, unknown>): string {
  const q = typeof input.query === 'string' ? input.query.trim() : '';
  if (!q)
    throw new ProviderError({
      platform: 'x',
      category: 'user_content',
      message: 'input.query is required',
      providerCode: 'invalid-request',
    });
  return q;
}

const userResult = (u: XUser) => ({
  id: u.id,
  username: u.username,
  name: u.name,
  avatarUrl: u.profile_image_url ?? null,
  verified: u.verified ?? false,
});

async function mentionSearch(client: XClient, ctx: ProviderCallContext, input: Record<string, unknown>) {
  const query = queryOf(input).replace(/^@/, '');
  const fields = 'profile_image_url,verified,username,name';
  try {
    const res = await client.get<{ data?: XUser[] }>(
      ctx.accessToken,
      '/users/search',
      { query, max_results: 10, 'user.fields': fields },
      ctx.signal,
    );
    return (res.data ?? []).map(userResult);
  } catch (err) {
    // users search needs a higher access tier; an exact username lookup works on every tier
    if (!(err instanceof ProviderError) || err.category !== 'platform_rejected' || !/^\w{1,15}$/.test(query)) throw err;
    const res = await client.get<{ data?: XUser }>(
      ctx.accessToken,
      `/users/by/username/${encodeURIComponent(query)}`,
      { 'user.fields': fields },
      ctx.signal,
    );
    return res.data ? [userResult(res.data)] : [];
  }
}

async function communitySearch(client: XClient, ctx: ProviderCallContext, input: Record<string, unknown>) {
  const res = await client.get<{ data?: Array<Record<string, unknown>> }>(
    ctx.accessToken,
    '/communities/search',
    {
      query: queryOf(input),
      max_results: 10,
      'community.fields': 'id,name,description,member_count,access,created_at',
    },
    ctx.signal,
  );
  return (res.data ?? []).map((c) => ({
    id: String(c.id),
    name: String(c.name ?? ''),
    description: typeof c.description === 'string' ? c.description : null,
    memberCount: typeof c.member_count === 'number' ? c.member_count : null,
    access: typeof c.access === 'string' ? c.access : null,
  }));
}

export async function runXTool(
  client: XClient,
  ctx: ProviderCallContext,
  toolName: ProviderToolName,
  input: Record<string, unknown>,
): Promise<Array<Record<string, unknown>>> {
  if (toolName === 'mentionSearch') return mentionSearch(client, ctx, input);
  if (toolName === 'communitySearch') return communitySearch(client, ctx, input);
  throw new ProviderError({
    platform: 'x',
    category: 'platform_rejected',
    message: `X has no ${toolName} tool`,
  });
}

/**
 * Crash reconciliation: the account's own posts, newest first (GET /2/users/:id/tweets, replies and
 * reposts excluded, pagination_token; https://docs.x.com/x-api/posts/get-posts). X answers links as t.co.
 */
export function findRecentTweet(
  client: XClient,
  ctx: ProviderCallContext,
  input: FindRecentPostInput,
  urlOf: (id: string) => string | null,
): Promise<RecentPostLookup> {
  return findInListing(input, async (token) => {
    const page = await client.get<SearchPage>(
      ctx.accessToken,
      `/users/${encodeURIComponent(ctx.externalAccountId)}/tweets`,
      {
        max_results: 100,
        exclude: 'replies,retweets',
        'tweet.fields': 'created_at',
        start_time: new Date(input.since.getTime() - WINDOW_SLACK_MS).toISOString(),
        pagination_token: token,
      },
      ctx.signal,
    );
    const posts = (page.data ?? []).map((t) => ({ id: t.id, text: t.text, createdAt: Date.parse(t.created_at ?? ''), url: urlOf(t.id) }));
    return { posts, next: page.meta?.next_token };
  });
}
