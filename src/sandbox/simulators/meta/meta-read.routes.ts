/** Read side of the simulated Graph hosts: objects, /me, accounts, permissions, comments, insights, Threads publishing limits, tools. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, handler, invalidParam, missingPermission, params, type RouteContext, SimError, unsupported } from './meta-http.js';
import { familyOf, pick, renderComment, renderObject } from './meta-render.js';
import type { Family, MetaSimState, SimObject, SimPost, SimToken } from './meta-state.js';

const INSIGHT_METRICS: Record<SimPost['platform'], string[]> = {
  instagram_business: ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions', 'impressions'],
  instagram_standalone: ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions'],
  // analytics: with post_media_view and post_total_media_view_unique, the successors of the deprecated impressions
  facebook_page: [
    'post_impressions_unique',
    'post_clicks',
    'post_reactions_by_type_total',
    'post_media_view',
    'post_total_media_view_unique',
  ],
  threads: ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'],
};

function metricValue(state: MetaSimState, p: SimPost, name: string): number | Record<string, number> {
  const s = p.stats;
  const comments = p.platform === 'threads' ? state.repliesTo(p.id).length : state.commentsOf(p.id).length;
  switch (name) {
    case 'post_media_view': // analytics
    case 'views':
    case 'impressions':
      return s.views;
    case 'post_total_media_view_unique': // analytics
    case 'reach':
    case 'post_impressions_unique':
      return s.reach;
    case 'likes':
      return s.likes;
    case 'comments':
    case 'replies':
      return comments;
    case 'shares':
      return s.shares;
    case 'saved':
      return s.saved;
    case 'reposts':
      return s.reposts;
    case 'quotes':
      return s.quotes;
    case 'post_clicks':
      return s.clicks;
    case 'post_reactions_by_type_total':
      return { like: s.likes, love: 0 };
    case 'total_interactions':
      return s.likes + comments + s.shares + s.saved;
    default:
      return 0;
  }
}

export function resolveObject(state: MetaSimState, family: Family, token: SimToken, id: string, method = 'GET'): SimObject {
  const obj = state.get(id === 'me' ? token.subjectId : id);
  if (!obj || familyOf(obj, state) !== family) throw unsupported(method, id);
  return obj;
}

type PostFilter = (post: SimPost, state: MetaSimState) => boolean;
const DAY_MS = 86_400_000;
/** a video post is in the feed once processed; /{page-id}/videos lists it from the upload on, with its status */
const listedInFeed: PostFilter = (o) => o.videoState === null || o.videoState === 'ready';

/**
 * The account's own posts, newest first: Pages /{page-id}/posts (feed, published_posts) and
 * /{page-id}/videos, Instagram /{ig-user-id}/media (stories are not on it) and /{ig-user-id}/stories
 * (the stories of the last 24 hours), Threads /{user-id}/threads.
 */
const OWN_POST_EDGES: Partial<Record<SimObject['kind'], Array<{ edges: string[]; platforms: SimPost['platform'][]; keep: PostFilter }>>> = {
  page: [
    { edges: ['posts', 'feed', 'published_posts'], platforms: ['facebook_page'], keep: listedInFeed },
    { edges: ['videos'], platforms: ['facebook_page'], keep: (o) => o.videoState !== null },
  ],
  ig_user: [
    { edges: ['media'], platforms: ['instagram_business', 'instagram_standalone'], keep: (o) => o.mediaType !== 'STORY' },
    {
      edges: ['stories'],
      platforms: ['instagram_business', 'instagram_standalone'],
      keep: (o, state) => o.mediaType === 'STORY' && o.createdAt > state.now() - DAY_MS,
    },
  ],
  threads_user: [{ edges: ['threads'], platforms: ['threads'], keep: listedInFeed }],
};

/** Cursor pagination as Graph answers it: opaque before/after cursors, `next` only when more follow. */
function ownPosts(
  state: MetaSimState,
  req: FastifyRequest,
  owner: SimObject,
  platforms: SimPost['platform'][],
  keep: PostFilter,
  p: Record<string, string | undefined>,
  limit: number,
) {
  const posts = [...state.objects.values()]
    .filter(
      (o): o is SimPost =>
        o.kind === 'post' && o.ownerId === owner.id && platforms.includes(o.platform) && o.replyToId === null && keep(o, state),
    )
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  // a cursor names an item, not a position, as Graph's do: posts made while a client walks the list
  // (newest first) do not shift the next page onto items it already had
  const cursor = (i: number) => Buffer.from(`sim_cursor:${posts[i]!.id}`).toString('base64url');
  const afterId = p.after ? Buffer.from(p.after, 'base64url').toString().slice('sim_cursor:'.length) : null;
  const start = afterId === null ? 0 : posts.findIndex((o) => o.id === afterId) + 1 || posts.length;
  const data = posts.slice(start, start + limit);
  const body: Record<string, unknown> = { data: data.map((post) => pick(renderObject(state, post), p.fields)) };
  if (data.length > 0) {
    const last = start + data.length - 1;
    const paging: Record<string, unknown> = { cursors: { before: cursor(start), after: cursor(last) } };
    if (last + 1 < posts.length) {
      const next = new URL(req.url, `http://${req.headers.host ?? '127.0.0.1'}`);
      next.searchParams.set('after', cursor(last));
      paging.next = next.toString();
    }
    body.paging = paging;
  }
  return body;
}

export function registerMetaReadRoutes(app: FastifyInstance, ctx: RouteContext, family: Family, prefix: string): void {
  const { state } = ctx;

  app.get(
    `${prefix}/:id`,
    handler(ctx, family, 'read', (req: FastifyRequest) => {
      const token = authenticate(state, req, family);
      const { id } = req.params as { id: string };
      const p = params(req);
      const obj = resolveObject(state, family, token, id);
      const body = pick(renderObject(state, obj, id === 'me'), p.fields);
      const discovery = /business_discovery\.username\(([^)]*)\)/.exec(p.fields ?? '');
      if (discovery && obj.kind === 'ig_user') {
        const found = [...state.objects.values()].find((o) => o.kind === 'ig_user' && o.host === 'facebook' && o.username === discovery[1]);
        if (!found) {
          throw new SimError(400, {
            message: 'Invalid user id',
            code: 110,
            subcode: 2207013,
            type: 'IGApiException',
            userTitle: 'Cannot find user',
            userMessage: `The user with username: ${discovery[1]} cannot be found.`,
          });
        }
        body.business_discovery = renderObject(state, found);
      }
      return { body };
    }),
  );

  app.get(
    `${prefix}/:id/:edge`,
    handler(ctx, family, 'read', (req: FastifyRequest) => {
      const token = authenticate(state, req, family);
      const { id, edge } = req.params as { id: string; edge: string };
      const p = params(req);
      const obj = resolveObject(state, family, token, id);
      const limit = Math.min(Number(p.limit ?? 25) || 25, 100);
      // Threads publishing limits: 250 posts and 1,000 replies per profile in a moving 24 hours
      if (edge === 'threads_publishing_limit' && obj.kind === 'threads_user') {
        const needed = ['threads_basic', 'threads_content_publish', 'threads_manage_replies'];
        if (token.subjectId !== obj.id || needed.some((s) => !token.scopes.includes(s))) throw missingPermission('', 10);
        const since = state.now() - 86_400_000;
        const mine = [...state.objects.values()].filter(
          (o): o is SimPost => o.kind === 'post' && o.platform === 'threads' && o.ownerId === obj.id && o.createdAt >= since,
        );
        const replies = mine.filter((o) => o.replyToId).length;
        const usage = {
          quota_usage: mine.length - replies,
          config: { quota_total: 250, quota_duration: 86400 },
          reply_quota_usage: replies,
          reply_config: { quota_total: 1000, quota_duration: 86400 },
        };
        return { body: { data: [pick(usage as unknown as Record<string, unknown>, p.fields ?? 'quota_usage,config')] } };
      }
      if (edge === 'permissions' && obj.kind === 'fb_user') {
        return {
          body: {
            data: token.scopes.map((permission) => ({
              permission,
              status: 'granted',
            })),
          },
        };
      }
      if (edge === 'accounts' && obj.kind === 'fb_user') {
        if (!token.scopes.includes('pages_show_list')) return { body: { data: [] } };
        const data = obj.pageIds.map((pageId) => {
          const page = state.get(pageId);
          if (page?.kind !== 'page') return null;
          const ig = page.igId ? state.get(page.igId) : undefined;
          return {
            ...renderObject(state, page),
            access_token: state.pageToken(page.id, token).token,
            tasks: ['ANALYZE', 'ADVERTISE', 'MESSAGING', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'],
            ...(ig ? { instagram_business_account: renderObject(state, ig) } : {}),
          };
        });
        return {
          body: {
            data: data.filter(Boolean).slice(0, limit),
            paging: { cursors: { before: 'QVFIUg', after: 'QVFIUw' } },
          },
        };
      }
      const own = OWN_POST_EDGES[obj.kind]?.find((e) => e.edges.includes(edge));
      if (own) return { body: ownPosts(state, req, obj, own.platforms, own.keep, p, limit) };
      if (edge === 'comments' && (obj.kind === 'post' || obj.kind === 'comment')) {
        const post = obj.kind === 'post' ? obj : (state.get(obj.postId) as SimPost);
        const since = p.since ? Number(p.since) * 1000 : 0;
        const list = state
          .commentsOf(post.id)
          .filter((c) => (obj.kind === 'comment' ? c.parentId === obj.id : post.platform === 'facebook_page' ? true : c.parentId === null))
          .filter((c) => c.createdAt >= since);
        const ordered = p.order === 'reverse_chronological' ? list.reverse() : list;
        return {
          body: {
            data: ordered.slice(0, limit).map((c) => renderComment(c, post)),
          },
        };
      }
      if (edge === 'replies' && obj.kind === 'post' && obj.platform === 'threads') {
        return {
          body: {
            data: state
              .repliesTo(obj.id)
              .slice(0, limit)
              .map((r) => pick(renderObject(state, r), p.fields)),
          },
        };
      }
      if (edge === 'replies' && obj.kind === 'comment') {
        const post = state.get(obj.postId) as SimPost;
        return {
          body: {
            data: state
              .commentsOf(post.id)
              .filter((c) => c.parentId === obj.id)
              .map((c) => renderComment(c, post)),
          },
        };
      }
      if (edge === 'insights' && obj.kind === 'post') {
        const allowed = INSIGHT_METRICS[obj.platform];
        const wanted = (p.metric ?? '').split(',').filter(Boolean);
        const bad = wanted.find((m) => !allowed.includes(m));
        if (!wanted.length || bad)
          throw invalidParam(
            `metric[${Math.max(0, wanted.indexOf(bad ?? ''))}] must be one of the following values: ${allowed.join(', ')}`,
          );
        return {
          body: {
            data: wanted.map((name) => ({
              name,
              period: 'lifetime',
              values: [{ value: metricValue(state, obj, name) }],
              title: name,
              description: `Sandbox ${name}`,
              id: `${obj.id}/insights/${name}/lifetime`,
            })),
          },
        };
      }
      throw unsupported('GET', `${id}/${edge}`);
    }),
  );

  if (family === 'facebook') {
    app.get(
      `${prefix}/pages/search`,
      handler(ctx, family, 'tool', (req) => {
        authenticate(state, req, family);
        const q = (params(req).q ?? '').toLowerCase();
        if (!q) throw invalidParam('The parameter q is required');
        const data = [...state.objects.values()]
          .filter((o) => o.kind === 'page' && o.name.toLowerCase().includes(q))
          .map((o) => pick(renderObject(state, o), params(req).fields ?? 'id,name,link'));
        return { body: { data } };
      }),
    );
  }

  if (family === 'threads') {
    app.get(
      `${prefix}/profile_lookup`,
      handler(ctx, family, 'tool', (req) => {
        const token = authenticate(state, req, family);
        if (!token.scopes.includes('threads_profile_discovery'))
          throw new SimError(403, {
            message: '(#10) Application does not have permission for this action',
            code: 10,
          });
        const username = params(req).username ?? '';
        const u = [...state.objects.values()].find((o) => o.kind === 'threads_user' && o.username === username);
        if (!u || u.kind !== 'threads_user') throw invalidParam(`The requested user ${username} was not found`);
        return {
          body: {
            username: u.username,
            name: u.name,
            profile_picture_url: `https://scontent.cdninstagram.com/sandbox/threads/${u.id}.jpg`,
            biography: u.biography,
            follower_count: u.followers,
            is_verified: u.verified,
          },
        };
      }),
    );
  }
}
