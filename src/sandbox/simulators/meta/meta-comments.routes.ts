/**
 * Comment reading and moderation of the simulated Graph hosts, as the platforms document them:
 *
 *   GET  /{post-id|comment-id}/comments   Facebook (filter=stream lists replies too, since) and Instagram
 *   GET  /{ig-comment-id}/replies         Instagram replies to a top-level comment
 *   GET  /{threads-media-id}/replies      Threads top-level replies
 *   GET  /{threads-media-id}/conversation Threads: every reply at any depth, flat
 *   POST /{comment-id}?is_hidden=         Facebook hide/unhide
 *   POST /{ig-comment-id}?hide=           Instagram hide/unhide
 *   POST /{threads-reply-id}/manage_reply?hide=  Threads hide/unhide
 *
 * Lists are cursor-paginated (`paging.cursors.after`, `paging.next`) with at most COMMENT_PAGE_MAX items
 * a page, so clients must follow the cursors as they must against the real API.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, handler, invalidParam, params, type RouteContext, requireScope, unsupported } from './meta-http.js';
import { resolveObject } from './meta-read.routes.js';
import { pick, renderComment } from './meta-render.js';
import type { Family, MetaSimState, SimComment, SimPost, SimToken } from './meta-state.js';

const COMMENT_PAGE_MAX = 25;

const hiddenIds = new WeakMap<MetaSimState, Set<string>>();
function hiddenSet(state: MetaSimState): Set<string> {
  let s = hiddenIds.get(state);
  if (!s) {
    s = new Set();
    hiddenIds.set(state, s);
  }
  return s;
}

function authorHandle(state: MetaSimState, ownerId: string): string | null {
  const owner = state.get(ownerId);
  if (owner?.kind === 'threads_user' || owner?.kind === 'ig_user') return owner.username;
  if (ownerId.startsWith('audience:')) return ownerId.slice('audience:'.length);
  return null;
}

function renderListedComment(state: MetaSimState, c: SimComment, post: SimPost): Record<string, unknown> {
  const base = renderComment(c, post);
  if (post.platform === 'facebook_page') return { ...base, is_hidden: hiddenSet(state).has(c.id) };
  const handle = authorHandle(state, c.authorId) ?? c.authorName;
  return { ...base, username: handle, from: { id: c.authorId, username: handle }, hidden: hiddenSet(state).has(c.id) };
}

function renderReply(state: MetaSimState, r: SimPost, token: SimToken, root: string): Record<string, unknown> {
  return {
    id: r.id,
    text: r.text,
    username: authorHandle(state, r.ownerId),
    permalink: r.permalink,
    timestamp: new Date(r.createdAt).toISOString(),
    media_type: r.mediaType,
    is_reply: true,
    root_post: { id: root },
    ...(r.replyToId ? { replied_to: { id: r.replyToId } } : {}),
    is_reply_owned_by_me: r.ownerId === token.subjectId,
    hide_status: hiddenSet(state).has(r.id) ? 'HIDDEN' : 'NOT_HUSHED',
    has_replies: state.repliesTo(r.id).length > 0,
  };
}

/** One page of `items` after the request's cursor, with Graph paging. */
function paged(req: FastifyRequest, items: Array<Record<string, unknown>>) {
  const p = params(req);
  const limit = Math.max(1, Math.min(Number(p.limit ?? COMMENT_PAGE_MAX) || COMMENT_PAGE_MAX, COMMENT_PAGE_MAX));
  let offset = 0;
  if (p.after) {
    offset = Number(Buffer.from(p.after, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0) throw invalidParam('Invalid after cursor');
  }
  const data = items.slice(offset, offset + limit).map((i) => pick(i, p.fields));
  const end = offset + data.length;
  const cursors = { before: Buffer.from(String(offset)).toString('base64url'), after: Buffer.from(String(end)).toString('base64url') };
  const paging: Record<string, unknown> = { cursors };
  if (end < items.length) {
    const next = new URL(`http://sim${req.url}`);
    next.searchParams.set('after', cursors.after);
    paging.next = `${req.protocol}://${req.headers.host}${next.pathname}${next.search}`;
  }
  return { body: { data, paging } };
}

function descendants(state: MetaSimState, rootId: string): SimPost[] {
  const out: SimPost[] = [];
  const walk = (id: string) => {
    for (const r of state.repliesTo(id)) {
      out.push(r);
      walk(r.id);
    }
  };
  walk(rootId);
  return out.sort((a, b) => a.createdAt - b.createdAt);
}

/** Hides (flag 'true') or shows a comment or reply; the answer of every hide endpoint. */
function setHidden(state: MetaSimState, id: string, flag: string): { body: { success: true } } {
  if (flag === 'true') hiddenSet(state).add(id);
  else hiddenSet(state).delete(id);
  return { body: { success: true } };
}

export function registerMetaCommentRoutes(app: FastifyInstance, ctx: RouteContext, family: Family, prefix: string): void {
  const { state } = ctx;
  /** The request's token and the object its :id names (refused as unsupported for `method` when unknown). */
  const target = (req: FastifyRequest, method?: string) => {
    const token = authenticate(state, req, family);
    const { id } = req.params as { id: string };
    return { token, id, obj: resolveObject(state, family, token, id, method) };
  };

  app.get(
    `${prefix}/:id/comments`,
    handler(ctx, family, 'comments_list', (req) => {
      const { id, obj } = target(req);
      const p = params(req);
      if (obj.kind !== 'post' && obj.kind !== 'comment') throw unsupported('GET', `${id}/comments`);
      const post = obj.kind === 'post' ? obj : (state.get(obj.postId) as SimPost);
      if (post.platform === 'threads') throw unsupported('GET', `${id}/comments`);
      const since = p.since ? Number(p.since) * 1000 : 0;
      // Facebook's filter=stream lists every comment flat (replies carry parent); otherwise top level only
      const stream = post.platform === 'facebook_page' && p.filter === 'stream';
      let list = state
        .commentsOf(post.id)
        .filter((c) => (obj.kind === 'comment' ? c.parentId === obj.id : stream ? true : c.parentId === null))
        .filter((c) => c.createdAt >= since);
      if (p.order === 'reverse_chronological') list = list.reverse();
      return paged(
        req,
        list.map((c) => renderListedComment(state, c, post)),
      );
    }),
  );

  app.get(
    `${prefix}/:id/replies`,
    handler(ctx, family, 'comments_list', (req) => {
      const { token, id, obj } = target(req);
      if (obj.kind === 'post' && obj.platform === 'threads') {
        return paged(
          req,
          state.repliesTo(obj.id).map((r) => renderReply(state, r, token, obj.id)),
        );
      }
      if (obj.kind === 'comment') {
        const post = state.get(obj.postId) as SimPost;
        return paged(
          req,
          state
            .commentsOf(post.id)
            .filter((c) => c.parentId === obj.id)
            .map((c) => renderListedComment(state, c, post)),
        );
      }
      throw unsupported('GET', `${id}/replies`);
    }),
  );

  app.get(
    `${prefix}/:id/conversation`,
    handler(ctx, family, 'comments_list', (req) => {
      const { token, id, obj } = target(req);
      if (obj.kind !== 'post' || obj.platform !== 'threads') throw unsupported('GET', `${id}/conversation`);
      const list = descendants(state, obj.id);
      if (params(req).reverse === 'true') list.reverse();
      return paged(
        req,
        list.map((r) => renderReply(state, r, token, obj.id)),
      );
    }),
  );

  // hide/unhide: Facebook is_hidden, Instagram hide on the comment node
  app.post(
    `${prefix}/:id`,
    handler(ctx, family, 'comment_hide', (req) => {
      const { token, id, obj } = target(req, 'POST');
      const p = params(req);
      const flag = family === 'facebook' && p.is_hidden !== undefined ? p.is_hidden : p.hide;
      if (obj.kind !== 'comment' || flag === undefined) throw unsupported('POST', id);
      const post = state.get(obj.postId) as SimPost;
      if (post.platform === 'facebook_page') {
        if (p.is_hidden === undefined) throw invalidParam('The parameter is_hidden is required');
        requireScope(token, 'pages_manage_engagement');
      } else requireScope(token, family === 'facebook' ? 'instagram_manage_comments' : 'instagram_business_manage_comments');
      return setHidden(state, obj.id, flag);
    }),
  );

  if (family === 'threads') {
    app.post(
      `${prefix}/:id/manage_reply`,
      handler(ctx, family, 'comment_hide', (req) => {
        const { token, id, obj } = target(req, 'POST');
        const p = params(req);
        if (obj.kind !== 'post' || !obj.replyToId || p.hide === undefined) throw unsupported('POST', `${id}/manage_reply`);
        requireScope(token, 'threads_manage_replies', 10);
        return setHidden(state, obj.id, p.hide);
      }),
    );
  }
}
