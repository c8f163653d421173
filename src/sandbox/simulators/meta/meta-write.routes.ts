/**
 * Write side of the simulated Graph hosts: Instagram and Threads containers and publishing, Instagram
 * comments and replies (Facebook Page publishing lives in sim-facebook.routes.ts). Media URLs are fetched like the
 * platforms do ("we cURL media"), so an unreachable URL fails the container with the platform's error.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { commentRequest, writeOwnComment } from './meta-comments.js';
import { facebookComment, registerFacebookPublishing } from './meta-facebook.routes.js';
import {
  authenticate,
  handler,
  invalidParam,
  mediaNotReady,
  params,
  type RouteContext,
  requireScope,
  SimError,
  unsupported,
} from './meta-http.js';
import { fetchMedia, recordPost } from './meta-media.js';
import { resolveObject } from './meta-read.routes.js';
import { shortcode } from './meta-render.js';
import { emptyStats, type Family, type SimContainer, type SimPost, type SimToken } from './meta-state.js';

const DAY_MS = 24 * 3600 * 1000;

const PUBLISH_SCOPE: Record<Family, string> = {
  facebook: 'instagram_content_publish',
  instagram: 'instagram_business_content_publish',
  threads: 'threads_content_publish',
};
const COMMENT_SCOPE: Record<Family, string> = {
  facebook: 'instagram_manage_comments',
  instagram: 'instagram_business_manage_comments',
  threads: 'threads_manage_replies',
};
const TEXT_LIMIT: Record<Family, number> = {
  facebook: 2200,
  instagram: 2200,
  threads: 500,
};

/** Threads counts emojis by their UTF-8 byte length; Instagram counts characters. */
function textLength(family: Family, text: string): number {
  if (family !== 'threads') return [...text].length;
  let n = 0;
  for (const ch of text) n += /\p{Extended_Pictographic}/u.test(ch) ? Buffer.byteLength(ch) : 1;
  return n;
}

export function registerMetaWriteRoutes(
  app: FastifyInstance,
  ctx: RouteContext,
  family: Family,
  prefix: string,
  videoPrefix?: string,
): void {
  const { state, ledger } = ctx;
  const delay = () => state.now() + state.containerDelayMs;

  /** the IG or Threads account the token may publish as */
  const actingAccount = (token: SimToken, id: string) => {
    const target = resolveObject(state, family, token, id, 'POST');
    const allowed =
      token.subjectId === target.id ||
      (token.kind === 'user' &&
        [...state.objects.values()].some((o) => o.kind === 'page' && o.ownerId === token.subjectId && o.igId === target.id)) ||
      (token.kind === 'page' &&
        state.get(token.subjectId)?.kind === 'page' &&
        (state.get(token.subjectId) as { igId: string | null }).igId === target.id);
    if (!allowed || (target.kind !== 'ig_user' && target.kind !== 'threads_user')) throw unsupported('POST', id);
    return target;
  };

  const checkQuota = (ownerId: string) => {
    const limit = family === 'threads' ? state.publishLimits.threads : state.publishLimits.instagram;
    if (state.postsOf(ownerId, state.now() - DAY_MS).length >= limit) {
      throw new SimError(400, {
        message: 'Application request limit reached',
        code: 9,
        subcode: 2207042,
        type: 'OAuthException',
        userTitle: 'Cannot publish',
        userMessage: 'You reached the maximum number of posts that is allowed to be published by the Content Publishing API.',
      });
    }
  };

  /** container for Instagram (/media) or Threads (/threads) */
  const createContainer = async (req: FastifyRequest, edge: 'media' | 'threads') => {
    const token = authenticate(state, req, family);
    const { id } = req.params as { id: string };
    const owner = actingAccount(token, id);
    requireScope(token, PUBLISH_SCOPE[family], 10);
    const p = params(req);
    const text = (edge === 'media' ? p.caption : p.text) ?? '';
    if (textLength(family, text) > TEXT_LIMIT[family]) {
      throw invalidParam(
        `The ${edge === 'media' ? 'caption' : 'text'} is too long`,
        undefined,
        `The text can be at most ${TEXT_LIMIT[family]} characters.`,
      );
    }
    if (family !== 'threads' && (text.match(/#[\p{L}\p{N}_]+/gu) ?? []).length > 30) {
      throw invalidParam('The caption has more than 30 hashtags', undefined, 'Captions can contain at most 30 hashtags.');
    }
    const isChild = p.is_carousel_item === 'true';
    const mediaType = (p.media_type ?? (p.video_url ? 'VIDEO' : p.image_url ? 'IMAGE' : '')).toUpperCase();
    if (edge === 'threads' && !mediaType) throw invalidParam('media_type is required');
    if (edge === 'media' && !mediaType) throw invalidParam('The parameter image_url or video_url is required');
    if (p.reply_to_id) {
      requireScope(token, 'threads_manage_replies', 10);
      const parent = state.get(p.reply_to_id);
      if (parent?.kind !== 'post' || parent.platform !== 'threads') throw unsupported('POST', p.reply_to_id);
    }
    const container: SimContainer = {
      kind: 'container',
      id: state.nextId(),
      family,
      ownerId: owner.id,
      mediaType: mediaType === 'REELS' ? 'VIDEO' : mediaType,
      text,
      children: [],
      replyToId: p.reply_to_id ?? null,
      altText: p.alt_text ?? null,
      state: 'IN_PROGRESS',
      readyAt: null,
      error: null,
      createdAt: state.now(),
    };
    if (mediaType === 'CAROUSEL') {
      const children = (p.children ?? '').split(',').filter(Boolean);
      const max = family === 'threads' ? 20 : 10;
      if (children.length < 2 || children.length > max)
        throw invalidParam(`A carousel needs 2 to ${max} children`, undefined, `Carousels hold 2 to ${max} items.`);
      for (const childId of children) {
        const child = state.get(childId);
        if (child?.kind !== 'container' || child.ownerId !== owner.id) throw unsupported('POST', childId);
        if (state.containerStatus(child) !== 'FINISHED') throw mediaNotReady();
      }
      container.children = children;
      container.readyAt = state.now();
    } else if (mediaType === 'TEXT') {
      if (!text) throw invalidParam('The parameter text is required for TEXT posts');
      container.readyAt = state.now();
    } else if (['IMAGE', 'STORIES'].includes(mediaType) && p.image_url && edge === 'media') {
      // Instagram fetches images while creating the container and answers the failure directly
      if (!(await fetchMedia(p.image_url))) {
        throw new SimError(400, {
          message: 'Only photo or video can be accepted as media type.',
          code: 9004,
          subcode: 2207052,
          userTitle: 'Media download has failed.',
          userMessage: `The media could not be fetched from this uri: ${p.image_url}`,
        });
      }
      container.readyAt = delay();
    } else if (['IMAGE', 'VIDEO', 'REELS', 'STORIES'].includes(mediaType)) {
      const url = mediaType === 'IMAGE' || (mediaType === 'STORIES' && p.image_url) ? p.image_url : p.video_url;
      if (!url) throw invalidParam(`The parameter ${mediaType === 'IMAGE' ? 'image_url' : 'video_url'} is required`);
      // videos (and all Threads media) are fetched after the answer; the container reports the outcome
      void fetchMedia(url).then((ok) => {
        if (ok) container.readyAt = delay();
        else {
          container.state = 'ERROR';
          container.error =
            family === 'threads'
              ? mediaType === 'VIDEO'
                ? 'FAILED_DOWNLOADING_VIDEO'
                : 'UNKNOWN'
              : 'Error: 2207052 Media download has failed. The media URI does not meet our requirements.';
        }
      });
    } else throw invalidParam(`Unsupported media_type ${mediaType}`);
    if (isChild) container.mediaType = `${container.mediaType}:CHILD`;
    state.put(container);
    return { body: { id: container.id } };
  };

  const publishContainer = (req: FastifyRequest) => {
    const token = authenticate(state, req, family);
    const { id } = req.params as { id: string };
    const owner = actingAccount(token, id);
    requireScope(token, PUBLISH_SCOPE[family], 10);
    const c = state.get(params(req).creation_id ?? '');
    if (c?.kind !== 'container' || c.ownerId !== owner.id || c.mediaType.endsWith(':CHILD'))
      throw invalidParam('The parameter creation_id is invalid', 2207008);
    const status = state.containerStatus(c);
    if (status === 'PUBLISHED') throw invalidParam('This media has already been published', 2207008);
    if (status !== 'FINISHED') throw mediaNotReady();
    if (!c.replyToId) checkQuota(owner.id);
    const postId = state.nextId();
    const platform = family === 'threads' ? 'threads' : family === 'instagram' ? 'instagram_standalone' : 'instagram_business';
    const username = owner.username;
    const post: SimPost = {
      kind: 'post',
      id: postId,
      platform,
      ownerId: owner.id,
      text: c.text,
      mediaCount: c.mediaType === 'TEXT' ? 0 : Math.max(1, c.children.length),
      mediaType: c.mediaType === 'STORIES' ? 'STORY' : c.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : c.mediaType,
      permalink:
        family === 'threads'
          ? `https://www.threads.net/@${username}/post/${shortcode(postId)}`
          : `https://www.instagram.com/p/${shortcode(postId)}/`,
      createdAt: state.now(),
      replyToId: c.replyToId,
      videoState: null,
      readyAt: null,
      stats: emptyStats(),
      altTexts: (c.children.length ? c.children.map((id) => state.get(id)) : [c])
        .map((x) => (x?.kind === 'container' ? x.altText : null))
        .filter((a): a is string => !!a),
    };
    // a Threads reply is a comment from the service's point of view: count it with comments
    if (c.replyToId) {
      state.put(post);
      ledger.comments.push({
        postId: c.replyToId,
        commentId: postId,
        text: c.text,
        at: Date.now(),
      });
    } else recordPost(ctx, post);
    c.state = 'PUBLISHED';
    return { body: { id: postId } };
  };

  if (family !== 'threads') {
    app.post(
      `${prefix}/:id/media`,
      handler(ctx, family, 'container', (req) => createContainer(req, 'media')),
    );
    app.post(`${prefix}/:id/media_publish`, handler(ctx, family, 'publish', publishContainer));
  } else {
    app.post(
      `${prefix}/:id/threads`,
      handler(ctx, family, 'container', (req) => createContainer(req, 'threads')),
    );
    app.post(`${prefix}/:id/threads_publish`, handler(ctx, family, 'publish', publishContainer));
  }

  // Instagram comments and replies; on the Facebook host, Page posts and their comments go to facebookComment
  if (family !== 'threads') {
    const comment = (req: FastifyRequest, asReply: boolean) => {
      const { token, id, target, message } = commentRequest(state, family, req);
      let postId: string;
      let parentId: string | null = null;
      if (!asReply && target.kind === 'post' && target.platform.startsWith('instagram')) postId = target.id;
      else if (asReply && target.kind === 'comment') {
        postId = target.postId;
        parentId = target.parentId ?? target.id;
      } else throw unsupported('POST', `${id}/${asReply ? 'replies' : 'comments'}`);
      requireScope(token, COMMENT_SCOPE[family], 10);
      const post = state.get(postId) as SimPost;
      const author = state.get(post.ownerId);
      return writeOwnComment(state, ledger, {
        id: state.nextId(),
        postId,
        parentId,
        text: message,
        authorId: post.ownerId,
        authorName: author?.kind === 'ig_user' ? author.username : 'sandbox',
      });
    };
    const isFacebookTarget = (id: string) => {
      const target = state.get(id);
      const post = target?.kind === 'comment' ? state.get(target.postId) : target;
      return family === 'facebook' && post?.kind === 'post' && post.platform === 'facebook_page';
    };
    app.post(
      `${prefix}/:id/comments`,
      handler(ctx, family, 'comment', (req) =>
        isFacebookTarget((req.params as { id: string }).id) ? facebookComment(ctx, req) : comment(req, false),
      ),
    );
    app.post(
      `${prefix}/:id/replies`,
      handler(ctx, family, 'comment', (req) => comment(req, true)),
    );
  }

  if (family === 'facebook' && videoPrefix) registerFacebookPublishing(app, ctx, prefix, videoPrefix);
}
