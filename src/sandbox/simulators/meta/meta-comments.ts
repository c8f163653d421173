/**
 * Comments on the Meta simulator: the ones the account writes through the API, and audience activity
 * (comments on Facebook and Instagram, replies on Threads) written by people other than the account, as
 * the sandbox control route and tests add them. The adapters then see them through the platforms' own
 * comment-listing APIs.
 */
import type { FastifyRequest } from 'fastify';
import type { SimulatorLedger } from '../../simulator-kit.js';
import { authenticate, invalidParam, params } from './meta-http.js';
import { resolveObject } from './meta-read.routes.js';
import type { Family, MetaSimState, SimComment, SimPost } from './meta-state.js';

/** The common start of a comment write: the caller's token, the object commented on and the required message. */
export function commentRequest(state: MetaSimState, family: Family, req: FastifyRequest) {
  const token = authenticate(state, req, family);
  const { id } = req.params as { id: string };
  const target = resolveObject(state, family, token, id, 'POST');
  const message = params(req).message;
  if (!message) throw invalidParam('The parameter message is required');
  return { token, id, target, message };
}

/** Stores a comment the account wrote through the API and records it in the ledger; answers Graph's {id}. */
export function writeOwnComment(
  state: MetaSimState,
  ledger: SimulatorLedger,
  comment: Omit<SimComment, 'kind' | 'createdAt'>,
): { body: { id: string } } {
  const created = state.put({ kind: 'comment', ...comment, createdAt: state.now() });
  ledger.comments.push({
    postId: comment.postId,
    commentId: created.id,
    text: comment.text,
    at: Date.now(),
  });
  return { body: { id: created.id } };
}

export interface AudienceComment {
  postId: string;
  body: string;
  authorName?: string;
  authorHandle?: string;
  parentId?: string | null;
}

/** Adds an audience comment; answers its id, or null when the post (or parent) is unknown. */
export function addAudienceComment(state: MetaSimState, input: AudienceComment): string | null {
  const post = state.get(input.postId);
  if (post?.kind !== 'post') return null;
  const handle = input.authorHandle ?? 'sandbox_fan';
  if (post.platform === 'threads') {
    const replyTo = input.parentId ?? post.id;
    const target = state.get(replyTo);
    if (target?.kind !== 'post') return null;
    const reply: SimPost = {
      kind: 'post',
      id: state.nextId(),
      platform: 'threads',
      ownerId: `audience:${handle}`,
      text: input.body,
      mediaCount: 0,
      mediaType: 'TEXT_POST',
      permalink: `https://www.threads.net/@${handle}/post/${state.nextId()}`,
      createdAt: state.now(),
      replyToId: replyTo,
      videoState: null,
      readyAt: null,
      stats: post.stats,
    };
    state.put(reply);
    return reply.id;
  }
  if (input.parentId) {
    const parent = state.get(input.parentId);
    if (parent?.kind !== 'comment' || parent.postId !== post.id) return null;
  }
  const created = state.put({
    kind: 'comment',
    id: post.platform === 'facebook_page' ? `${post.id.split('_').pop()}_${state.nextId()}` : state.nextId(),
    postId: post.id,
    parentId: input.parentId ?? null,
    text: input.body,
    authorId: `audience:${handle}`,
    authorName: input.authorName ?? handle,
    createdAt: state.now(),
  });
  return created.id;
}

/** Edits a comment's text in place (an author editing their comment). */
export function editComment(state: MetaSimState, id: string, body: string): boolean {
  const obj = state.get(id);
  if (obj?.kind === 'comment') {
    obj.text = body;
    return true;
  }
  if (obj?.kind === 'post') {
    obj.text = body;
    return true;
  }
  return false;
}
