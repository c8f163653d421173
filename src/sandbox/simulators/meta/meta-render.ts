/** Renders simulator objects in the Graph shapes of each host, honouring the `fields` parameter. */
import type { Family, MetaSimState, SimComment, SimObject, SimPost } from './meta-state.js';

/** top-level names of a Graph fields expression: "a,b{c,d},e.limit(1)" -> [a, b, e] */
function topLevelFields(expr: string | undefined): string[] | null {
  if (!expr) return null;
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of expr) {
    if (ch === '{' || ch === '(') depth += 1;
    if (ch === '}' || ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((f) => f.trim().split(/[.{]/)[0]!).filter(Boolean);
}

export function pick(obj: Record<string, unknown>, fields: string | undefined): Record<string, unknown> {
  const names = topLevelFields(fields);
  if (!names) return obj;
  const out: Record<string, unknown> = { id: obj.id };
  for (const n of names) if (obj[n] !== undefined) out[n] = obj[n];
  return out;
}

export function shortcode(id: string): string {
  return Buffer.from(id).toString('base64url').slice(0, 11);
}

/** The host an object lives on; a comment lives on its post's host (Instagram Login comments on graph.instagram.com). */
export function familyOf(obj: SimObject, state?: MetaSimState): Family {
  switch (obj.kind) {
    case 'fb_user':
    case 'page':
    case 'fb_photo':
      return 'facebook';
    case 'ig_user':
      return obj.host;
    case 'threads_user':
      return 'threads';
    case 'container':
      return obj.family;
    case 'post':
      return obj.platform === 'threads' ? 'threads' : obj.platform === 'instagram_standalone' ? 'instagram' : 'facebook';
    case 'comment': {
      const post = state?.get(obj.postId);
      return post && post.kind !== 'comment' ? familyOf(post, state) : 'facebook';
    }
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');
}

export function renderComment(c: SimComment, post: SimPost | undefined): Record<string, unknown> {
  if (post?.platform === 'facebook_page') {
    return {
      id: c.id,
      message: c.text,
      from: { id: c.authorId, name: c.authorName },
      created_time: iso(c.createdAt),
      permalink_url: `https://www.facebook.com/${post.id.replace('_', '/posts/')}?comment_id=${c.id}`,
      like_count: 0,
      comment_count: 0,
      ...(c.parentId ? { parent: { id: c.parentId } } : {}),
    };
  }
  return {
    id: c.id,
    text: c.text,
    username: c.authorName,
    timestamp: iso(c.createdAt),
    like_count: 0,
    ...(c.parentId ? { parent_id: c.parentId } : {}),
  };
}

export function renderObject(state: MetaSimState, obj: SimObject, asMe = false): Record<string, unknown> {
  switch (obj.kind) {
    case 'fb_user':
      return { id: obj.id, name: obj.name };
    case 'page':
      return {
        id: obj.id,
        name: obj.name,
        username: obj.username,
        about: obj.about,
        category: obj.category,
        fan_count: obj.fanCount,
        followers_count: obj.fanCount,
        link: `https://www.facebook.com/${obj.username}`,
        picture: {
          data: {
            url: `https://scontent.xx.fbcdn.net/sandbox/${obj.id}.jpg`,
            height: 50,
            width: 50,
            is_silhouette: false,
          },
        },
        verification_status: 'not_verified',
        ...(obj.igId ? { instagram_business_account: { id: obj.igId } } : {}),
      };
    case 'ig_user': {
      const mediaCount = state.postsOf(obj.id, 0).length;
      return {
        id: obj.id,
        ...(asMe || obj.host === 'instagram' ? { user_id: obj.id, account_type: 'BUSINESS' } : {}),
        username: obj.username,
        name: obj.name,
        biography: obj.biography,
        website: `https://example.com/${obj.username}`,
        followers_count: obj.followers,
        follows_count: obj.follows,
        media_count: mediaCount,
        profile_picture_url: `https://scontent.cdninstagram.com/sandbox/${obj.id}.jpg`,
      };
    }
    case 'threads_user':
      return {
        id: obj.id,
        username: obj.username,
        name: obj.name,
        threads_profile_picture_url: `https://scontent.cdninstagram.com/sandbox/threads/${obj.id}.jpg`,
        threads_biography: obj.biography,
      };
    case 'container': {
      const status = state.containerStatus(obj);
      if (obj.family === 'threads')
        return {
          id: obj.id,
          status,
          ...(obj.error ? { error_message: obj.error } : {}),
        };
      return {
        id: obj.id,
        status_code: status,
        status: obj.error ?? (status === 'FINISHED' ? 'Finished: Media has been uploaded and it is ready to be published.' : status),
      };
    }
    case 'post':
      return renderPost(state, obj);
    case 'comment':
      return renderComment(obj, state.get(obj.postId) as SimPost | undefined);
    case 'fb_photo':
      return { id: obj.id, link: obj.url, created_time: iso(state.now()) };
  }
}

function renderPost(state: MetaSimState, p: SimPost): Record<string, unknown> {
  const comments = state.commentsOf(p.id).length;
  if (p.platform === 'facebook_page') {
    if (p.videoState) {
      const done = p.videoState === 'ready' && p.readyAt !== null && state.now() >= p.readyAt;
      const videoStatus = p.videoState === 'error' ? 'error' : done ? 'ready' : 'processing';
      return {
        id: p.id,
        description: p.text,
        created_time: iso(p.createdAt),
        permalink_url: `/${p.ownerId}/videos/${p.id}/`,
        status: {
          video_status: videoStatus,
          uploading_phase: { status: 'complete' },
          processing_phase: {
            status: videoStatus === 'processing' ? 'in_progress' : videoStatus === 'error' ? 'error' : 'complete',
          },
          publishing_phase: { status: done ? 'complete' : 'not_started' },
        },
      };
    }
    return {
      id: p.id,
      message: p.text,
      created_time: iso(p.createdAt),
      permalink_url: p.permalink,
      comments: { summary: { total_count: comments } },
    };
  }
  if (p.platform === 'threads') {
    const owner = state.get(p.ownerId);
    return {
      id: p.id,
      text: p.text,
      media_type: p.mediaType,
      permalink: p.permalink,
      timestamp: iso(p.createdAt),
      username: owner?.kind === 'threads_user' ? owner.username : null,
      is_reply: p.replyToId !== null,
      ...(p.replyToId ? { replied_to: { id: p.replyToId } } : {}),
    };
  }
  const owner = state.get(p.ownerId);
  const story = p.mediaType === 'STORY';
  return {
    id: p.id,
    // stories carry no caption
    ...(story ? {} : { caption: p.text }),
    media_type: p.mediaType,
    media_product_type: story ? 'STORY' : p.mediaType === 'VIDEO' ? 'REELS' : 'FEED',
    permalink: p.permalink,
    timestamp: iso(p.createdAt),
    username: owner?.kind === 'ig_user' ? owner.username : null,
    like_count: p.stats.likes,
    comments_count: comments,
  };
}
