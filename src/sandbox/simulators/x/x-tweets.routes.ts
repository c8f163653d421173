/**
 * Post endpoints of the X simulator: POST /2/tweets (weighted 280-character limit, duplicate detection,
 * media and reply checks), GET /2/tweets/:id with fields and expansions, recent search of a
 * conversation, and PUT /2/tweets/:id/hidden (hide replies: scope tweet.moderate.write, only replies in a
 * conversation the user started; https://docs.x.com/x-api/posts/hide-replies/quickstart). Top-level posts
 * go to ledger.posts, replies to ledger.comments.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import twitter from 'twitter-text';
import { authorize, invalidRequest, problem, simulate, type XSimContext } from './x-http.js';
import type { XSimTweet } from './x-state.js';
import { userJson } from './x-users.routes.js';

const listParam = (req: FastifyRequest, name: string) =>
  String((req.query as Record<string, string>)[name] ?? '')
    .split(',')
    .filter(Boolean);

export function registerXTweetRoutes(app: FastifyInstance, ctx: XSimContext): void {
  const { state, ledger } = ctx;

  function tweetJson(t: XSimTweet, fields: string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {
      id: t.id,
      text: t.text,
      edit_history_tweet_ids: [t.id],
    };
    if (fields.includes('author_id')) out.author_id = t.authorId;
    if (fields.includes('created_at')) out.created_at = t.createdAt;
    if (fields.includes('conversation_id')) out.conversation_id = t.conversationId;
    if (fields.includes('public_metrics')) out.public_metrics = { ...t.metrics };
    if (fields.includes('referenced_tweets')) {
      const refs = [];
      if (t.inReplyToId) refs.push({ type: 'replied_to', id: t.inReplyToId });
      if (t.quoteTweetId) refs.push({ type: 'quoted', id: t.quoteTweetId });
      if (refs.length) out.referenced_tweets = refs;
    }
    if (t.mediaKeys.length && fields.includes('attachments')) out.attachments = { media_keys: t.mediaKeys };
    return out;
  }

  function includesFor(req: FastifyRequest, tweets: XSimTweet[]) {
    if (!listParam(req, 'expansions').includes('author_id')) return undefined;
    const fields = listParam(req, 'user.fields');
    const authors = [...new Set(tweets.map((t) => t.authorId))].map((id) => state.users.get(id)).filter((u) => u !== undefined);
    return { users: authors.map((u) => userJson(u, fields)) };
  }

  /** Checks media ids: owned by the author, finalized, processed, at most 4 images or 1 video/GIF. */
  function mediaKeysFor(userId: string, ids: unknown): string[] {
    if (ids === undefined) return [];
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > 4)
      throw invalidRequest('media.media_ids must hold 1-4 ids.', 'media.media_ids');
    const items = ids.map((id) => state.media.get(String(id)));
    if (items.some((m) => !m || m.ownerId !== userId || !m.finalized || m.failure || m.readyAt > Date.now())) {
      throw invalidRequest('Your media IDs are invalid.', 'media.media_ids');
    }
    const categories = new Set(items.map((m) => m?.category));
    if (categories.size > 1 || ((categories.has('tweet_video') || categories.has('tweet_gif')) && items.length > 1)) {
      throw invalidRequest('Your media IDs are invalid: videos and GIFs cannot be combined with other media.', 'media.media_ids');
    }
    return items.map((m) => m?.mediaKey ?? '');
  }

  app.post(
    '/2/tweets',
    simulate(ctx, 'publish', (req) => {
      const token = authorize(ctx, req, ['tweet.read', 'tweet.write', 'users.read'], 'tweets_create', state.postsPer15Minutes);
      const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
      const text = typeof body.text === 'string' ? body.text : '';
      const media = (body.media ?? undefined) as { media_ids?: unknown } | undefined;
      const mediaKeys = mediaKeysFor(token.userId, media?.media_ids);
      if (!text && mediaKeys.length === 0) throw invalidRequest('Post text or media is required.', 'text');
      if (text && twitter.parseTweet(text).weightedLength > 280) throw invalidRequest('Your Tweet text is too long.', 'text');
      const reply = body.reply as { in_reply_to_tweet_id?: unknown } | undefined;
      const replyTo = reply?.in_reply_to_tweet_id !== undefined ? String(reply.in_reply_to_tweet_id) : null;
      if (replyTo && !state.tweets.has(replyTo))
        throw invalidRequest('The post you are replying to does not exist.', 'reply.in_reply_to_tweet_id');
      const quote = typeof body.quote_tweet_id === 'string' ? body.quote_tweet_id : null;
      if (quote && !state.tweets.has(quote)) throw invalidRequest('The quoted post does not exist.', 'quote_tweet_id');
      if (typeof body.community_id === 'string' && !state.communities.some((c) => c.id === body.community_id)) {
        throw invalidRequest('The community does not exist.', 'community_id');
      }
      if (
        body.reply_settings !== undefined &&
        !['following', 'mentionedUsers', 'subscribers', 'verified'].includes(String(body.reply_settings))
      ) {
        throw invalidRequest('reply_settings must be one of following, mentionedUsers, subscribers, verified.', 'reply_settings');
      }
      const since = Date.now() - 86_400_000;
      const duplicate = text
        ? [...state.tweets.values()].some((t) => t.authorId === token.userId && t.text === text && Date.parse(t.createdAt) > since)
        : false;
      if (duplicate) throw problem(403, 'You are not allowed to create a Tweet with duplicate content.');
      const tweet = state.createTweet(token.userId, text, {
        inReplyToId: replyTo,
        quoteTweetId: quote,
        mediaKeys,
      });
      if (replyTo)
        ledger.comments.push({
          postId: replyTo,
          commentId: tweet.id,
          text,
          at: Date.now(),
        });
      else
        ledger.posts.push({
          platform: 'x',
          accountId: token.userId,
          postId: tweet.id,
          text,
          mediaCount: mediaKeys.length,
          altTexts: [...state.media.values()].filter((m) => mediaKeys.includes(m.mediaKey) && m.altText).map((m) => m.altText!),
          at: Date.now(),
        });
      return {
        status: 201,
        body: {
          data: {
            id: tweet.id,
            text: tweet.text,
            edit_history_tweet_ids: [tweet.id],
          },
        },
      };
    }),
  );

  app.get(
    '/2/tweets/search/recent',
    simulate(ctx, 'search', (req) => {
      authorize(ctx, req, ['tweet.read', 'users.read'], 'search_recent', 300);
      const q = req.query as Record<string, string | undefined>;
      const match = /^conversation_id:(\d+)$/.exec((q.query ?? '').trim());
      if (!match) throw invalidRequest('Only conversation_id:<id> queries are simulated.', 'query');
      const max = Number(q.max_results ?? 10);
      if (!Number.isInteger(max) || max < 10 || max > 100) {
        throw invalidRequest('The `max_results` query parameter value is not between 10 and 100', 'max_results');
      }
      const start = q.start_time ? Date.parse(q.start_time) : 0;
      if (q.start_time && (Number.isNaN(start) || start < Date.now() - 7 * 86_400_000)) {
        throw invalidRequest('start_time must be a date within the last 7 days.', 'start_time');
      }
      const all = [...state.tweets.values()]
        .filter((t) => t.conversationId === match[1] && Date.parse(t.createdAt) >= start)
        .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
      const offset = q.next_token ? Number(Buffer.from(q.next_token, 'base64url').toString()) || 0 : 0;
      const size = Math.min(max, state.searchPageLimit ?? max);
      const page = all.slice(offset, offset + size);
      const fields = listParam(req, 'tweet.fields');
      const meta: Record<string, unknown> = { result_count: page.length };
      if (page.length)
        Object.assign(meta, {
          newest_id: page[0]?.id,
          oldest_id: page.at(-1)?.id,
        });
      if (offset + size < all.length) meta.next_token = Buffer.from(String(offset + size)).toString('base64url');
      const body: Record<string, unknown> = { meta };
      if (page.length) {
        body.data = page.map((t) => tweetJson(t, fields));
        const includes = includesFor(req, page);
        if (includes) body.includes = includes;
      }
      return { status: 200, body };
    }),
  );

  // https://docs.x.com/x-api/posts/get-posts : a user's posts, newest first, pagination_token
  app.get(
    '/2/users/:id/tweets',
    simulate(ctx, 'user_tweets', (req) => {
      authorize(ctx, req, ['tweet.read', 'users.read'], 'user_tweets', 900);
      const q = req.query as Record<string, string | undefined>;
      const userId = (req.params as { id: string }).id;
      if (!/^\d{1,19}$/.test(userId)) throw invalidRequest(`The \`id\` query parameter value [${userId}] is not valid`, 'id');
      const max = Number(q.max_results ?? 10);
      if (!Number.isInteger(max) || max < 5 || max > 100) {
        throw invalidRequest('The `max_results` query parameter value is not between 5 and 100', 'max_results');
      }
      const exclude = (q.exclude ?? '').split(',').filter(Boolean);
      const start = q.start_time ? Date.parse(q.start_time) : 0;
      const end = q.end_time ? Date.parse(q.end_time) : Number.POSITIVE_INFINITY;
      const all = [...state.tweets.values()]
        .filter((t) => t.authorId === userId && !(exclude.includes('replies') && t.inReplyToId))
        .filter((t) => Date.parse(t.createdAt) >= start && Date.parse(t.createdAt) <= end)
        .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
      // a token names a post, not a position (posts made while a client pages do not shift its next page):
      // next_token the page's oldest post (the next page is older), previous_token its newest
      const token = q.pagination_token ? Buffer.from(q.pagination_token, 'base64url').toString() : '';
      const [dir, ref] = token.includes(':') ? (token.split(':') as [string, string]) : ['', ''];
      const refId = /^\d{1,19}$/.test(ref) ? BigInt(ref) : null;
      let page: typeof all;
      if (refId !== null && dir === 'before') page = all.filter((t) => BigInt(t.id) > refId).slice(-max);
      else if (refId !== null) page = all.filter((t) => BigInt(t.id) < refId).slice(0, max);
      else page = all.slice(0, max);
      const meta: Record<string, unknown> = { result_count: page.length };
      if (page.length) Object.assign(meta, { newest_id: page[0]?.id, oldest_id: page.at(-1)?.id });
      const oldest = page.at(-1);
      const newest = page[0];
      if (oldest && all.some((t) => BigInt(t.id) < BigInt(oldest.id)))
        meta.next_token = Buffer.from(`after:${oldest.id}`).toString('base64url');
      if (newest && all.some((t) => BigInt(t.id) > BigInt(newest.id)))
        meta.previous_token = Buffer.from(`before:${newest.id}`).toString('base64url');
      const body: Record<string, unknown> = { meta };
      if (page.length) body.data = page.map((t) => tweetJson(t, listParam(req, 'tweet.fields')));
      return { status: 200, body };
    }),
  );

  app.put(
    '/2/tweets/:id/hidden',
    simulate(ctx, 'hide_reply', (req) => {
      // 50 requests per 15 minutes per user
      const token = authorize(ctx, req, ['tweet.moderate.write', 'tweet.read', 'users.read'], 'hide_replies', 50);
      const id = (req.params as { id: string }).id;
      const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
      if (typeof body.hidden !== 'boolean') throw invalidRequest('$.hidden: is missing but it is required', 'hidden');
      const tweet = state.tweets.get(id);
      if (!tweet)
        throw problem(404, `Could not find tweet with id: [${id}].`, 'https://api.x.com/2/problems/resource-not-found', undefined, {
          resource_type: 'tweet',
          parameter: 'id',
          resource_id: id,
          value: id,
        });
      const root = state.tweets.get(tweet.conversationId);
      if (!tweet.inReplyToId || !root || root.authorId !== token.userId || tweet.authorId === token.userId)
        throw problem(403, 'You can only hide or unhide replies to conversations you started.');
      if (body.hidden) state.hiddenReplies.add(id);
      else state.hiddenReplies.delete(id);
      return { status: 200, body: { data: { hidden: body.hidden } } };
    }),
  );

  app.get(
    '/2/tweets/:id',
    simulate(ctx, 'tweet_lookup', (req) => {
      authorize(ctx, req, ['tweet.read', 'users.read'], 'tweet_lookup', 900);
      const id = (req.params as { id: string }).id;
      const tweet = state.tweets.get(id);
      if (!tweet) {
        return {
          status: 200,
          body: {
            errors: [
              {
                value: id,
                detail: `Could not find tweet with id: [${id}].`,
                title: 'Not Found Error',
                resource_type: 'tweet',
                parameter: 'id',
                resource_id: id,
                type: 'https://api.x.com/2/problems/resource-not-found',
              },
            ],
          },
        };
      }
      const body: Record<string, unknown> = {
        data: tweetJson(tweet, listParam(req, 'tweet.fields')),
      };
      const includes = includesFor(req, [tweet]);
      if (includes) body.includes = includes;
      return { status: 200, body };
    }),
  );
}
