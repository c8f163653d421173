/**
 * Simulated Pages API: /feed (text, link, attached unpublished photos), /photos, /videos on the video
 * host, comments on Page posts, and DELETE /me/permissions. Publishing needs the Page's own token.
 * A /feed write honours `fields` (read-after-write: the answer is the created post read with them).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { commentRequest, writeOwnComment } from './meta-comments.js';
import {
  type Answer,
  authenticate,
  handler,
  invalidParam,
  params,
  type RouteContext,
  requireScope,
  SimError,
  unsupported,
} from './meta-http.js';
import { fetchMedia, recordPost } from './meta-media.js';
import { resolveObject } from './meta-read.routes.js';
import { pick, renderObject } from './meta-render.js';
import { emptyStats, type Family, type SimPost } from './meta-state.js';

/** Facebook: POST /{post-id|comment-id}/comments with a page token */
export function facebookComment(ctx: RouteContext, req: FastifyRequest): Answer {
  const { state, ledger } = ctx;
  const family: Family = 'facebook';
  const { token, id, target, message } = commentRequest(state, family, req);
  let postId: string;
  let parentId: string | null = null;
  if (target.kind === 'post' && target.platform === 'facebook_page') postId = target.id;
  else if (target.kind === 'comment') {
    postId = target.postId;
    parentId = target.id;
  } else throw unsupported('POST', `${id}/comments`);
  requireScope(token, 'pages_manage_engagement');
  const post = state.get(postId) as SimPost;
  const page = state.get(post.ownerId);
  return writeOwnComment(state, ledger, {
    id: `${postId.split('_').pop()}_${state.nextId()}`,
    postId,
    parentId,
    text: message,
    authorId: post.ownerId,
    authorName: page?.kind === 'page' ? page.name : 'Page',
  });
}

/** Pages API publishing: /feed, /photos and /videos on the video host. */
export function registerFacebookPublishing(app: FastifyInstance, ctx: RouteContext, prefix: string, videoPrefix: string): void {
  const { state } = ctx;
  const family: Family = 'facebook';

  const pageFor = (req: FastifyRequest) => {
    const token = authenticate(state, req, family);
    const { id } = req.params as { id: string };
    const page = resolveObject(state, family, token, id, 'POST');
    if (page.kind !== 'page') throw unsupported('POST', id);
    if (token.kind !== 'page' || token.subjectId !== page.id) {
      throw new SimError(403, {
        message:
          '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission',
        code: 200,
      });
    }
    requireScope(token, 'pages_manage_posts');
    return page;
  };

  const newPost = (pageId: string, text: string, mediaCount: number, mediaType: string): SimPost => {
    const n = state.nextId();
    return {
      kind: 'post',
      id: `${pageId}_${n}`,
      platform: 'facebook_page',
      ownerId: pageId,
      text,
      mediaCount,
      mediaType,
      permalink: `https://www.facebook.com/${pageId}/posts/${n}`,
      createdAt: state.now(),
      replyToId: null,
      videoState: null,
      readyAt: null,
      stats: emptyStats(),
    };
  };

  const checkText = (pageId: string, text: string) => {
    if ([...text].length > 63206) throw invalidParam('The message is too long', undefined, 'Posts can be at most 63206 characters.');
    const last = state.latestPostOf(pageId);
    if (text && last?.text === text)
      throw new SimError(400, {
        message: '(#506) Duplicate status message',
        code: 506,
      });
  };

  app.post(
    `${prefix}/:id/feed`,
    handler(ctx, family, 'publish', (req) => {
      const page = pageFor(req);
      const p = params(req);
      const attached = Object.keys(p)
        .filter((k) => /^attached_media\[\d+\]$/.test(k))
        .map((k) => JSON.parse(p[k]!) as { media_fbid: string });
      for (const a of attached) {
        const photo = state.get(a.media_fbid);
        if (photo?.kind !== 'fb_photo' || photo.pageId !== page.id || photo.published)
          throw invalidParam(`Invalid media_fbid ${a.media_fbid}`);
      }
      const text = p.message ?? '';
      if (!text && !p.link && attached.length === 0) throw invalidParam('Requires one of the params: message, link, attached_media');
      checkText(page.id, text);
      const post = newPost(page.id, text, attached.length, attached.length ? 'ALBUM' : p.link ? 'LINK' : 'STATUS');
      post.altTexts = attached
        .map((a) => state.get(a.media_fbid))
        .flatMap((ph) => (ph?.kind === 'fb_photo' && ph.altText ? [ph.altText] : []));
      for (const a of attached)
        Object.assign(state.get(a.media_fbid)!, {
          published: true,
          postId: post.id,
        });
      recordPost(ctx, post);
      // read-after-write (Graph API v2.9 on): with `fields`, the write answers the created post read with
      // those fields, saving the client a GET
      return { body: p.fields ? pick(renderObject(state, post), p.fields) : { id: post.id } };
    }),
  );

  app.post(
    `${prefix}/:id/photos`,
    handler(ctx, family, 'publish', async (req) => {
      const page = pageFor(req);
      const p = params(req);
      if (!(await fetchMedia(p.url)))
        throw new SimError(400, {
          message: '(#324) Missing or invalid image file',
          code: 324,
          subcode: 2069019,
        });
      const published = p.published !== 'false';
      const photo = state.put({
        kind: 'fb_photo' as const,
        id: state.nextId(),
        pageId: page.id,
        url: p.url!,
        published,
        postId: null as string | null,
        altText: p.alt_text_custom ?? null,
      });
      if (!published) return { body: { id: photo.id } };
      checkText(page.id, p.message ?? '');
      const post = newPost(page.id, p.message ?? '', 1, 'PHOTO');
      if (photo.altText) post.altTexts = [photo.altText];
      photo.postId = post.id;
      recordPost(ctx, post);
      return { body: { id: photo.id, post_id: post.id } };
    }),
  );

  app.post(
    `${videoPrefix}/:id/videos`,
    handler(ctx, family, 'publish', (req) => {
      const page = pageFor(req);
      const p = params(req);
      if (!p.file_url) throw invalidParam('The parameter file_url or source is required');
      const post: SimPost = {
        ...newPost(page.id, p.description ?? '', 1, 'VIDEO'),
        id: state.nextId(),
        videoState: 'processing',
      };
      post.permalink = `https://www.facebook.com/${page.id}/videos/${post.id}/`;
      void fetchMedia(p.file_url).then((ok) => {
        post.videoState = ok ? 'ready' : 'error';
        post.readyAt = state.now() + state.containerDelayMs;
      });
      recordPost(ctx, post);
      return { body: { id: post.id } };
    }),
  );

  app.delete(
    `${prefix}/:id/permissions`,
    handler(ctx, family, 'revoke', (req) => {
      const token = authenticate(state, req, family);
      const { id } = req.params as { id: string };
      if (token.kind === 'page') state.tokens.delete(token.token);
      else if (id === 'me' || id === token.subjectId) state.revokeUser(token.subjectId, family);
      else throw unsupported('DELETE', `${id}/permissions`);
      return { body: { success: true } };
    }),
  );
}
