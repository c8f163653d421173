/**
 * Sandbox control route for audience comments (ROUTES.md, "Sandbox engagement control"):
 * POST /sandbox/_control/comments {platform, providerPostId, body, authorName?, authorHandle?,
 * parentProviderCommentId?} -> 201 {providerCommentId}. The comment appears in the platform's simulator,
 * so the adapter sees it through that platform's real comment-listing API.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { SANDBOX_PREFIX } from './sandbox-urls.js';
import type { GoogleSimulatorState } from './simulators/google.simulator.js';
import { addAudienceComment } from './simulators/meta/meta-comments.js';
import type { MetaSimState } from './simulators/meta.simulator.js';
import type { XSimulatorState } from './simulators/x.simulator.js';

const Body = Type.Object(
  {
    platform: Type.Union(
      ['facebook_page', 'instagram_business', 'instagram_standalone', 'threads', 'x', 'youtube'].map((p) => Type.Literal(p)),
    ),
    providerPostId: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.String({ minLength: 1, maxLength: 10_000 }),
    authorName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    authorHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9_.]+$' })),
    parentProviderCommentId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

interface ControlBody {
  platform: string;
  providerPostId: string;
  body: string;
  authorName?: string;
  authorHandle?: string;
  parentProviderCommentId?: string;
}

export function registerCommentControl(
  app: FastifyInstance,
  worlds: { meta: MetaSimState; x: XSimulatorState; google: GoogleSimulatorState },
): void {
  app.post(`${SANDBOX_PREFIX}/_control/comments`, { schema: { body: Body } }, async (request, reply) => {
    const b = request.body as ControlBody;
    const notFound = () =>
      reply.code(404).send({ error: 'not_found', message: `No ${b.platform} post (or parent comment) with that id in the sandbox.` });
    const handle = b.authorHandle ?? 'sandbox_fan';
    if (b.platform === 'x') {
      const parentId = b.parentProviderCommentId ?? b.providerPostId;
      const parent = worlds.x.tweets.get(parentId);
      if (!parent || parent.conversationId !== (worlds.x.tweets.get(b.providerPostId)?.conversationId ?? '')) return notFound();
      return reply.code(201).send({ providerCommentId: worlds.x.seedReply(parentId, { username: handle, text: b.body }).id });
    }
    if (b.platform === 'youtube') {
      if (b.parentProviderCommentId)
        return reply.code(400).send({ error: 'invalid_request', message: 'YouTube audience comments are top-level here.' });
      try {
        return reply
          .code(201)
          .send({ providerCommentId: worlds.google.addAudienceComment(b.providerPostId, b.body, b.authorName ?? handle) });
      } catch {
        return notFound();
      }
    }
    const post = worlds.meta.get(b.providerPostId);
    if (post?.kind !== 'post' || post.platform !== b.platform) return notFound();
    const id = addAudienceComment(worlds.meta, {
      postId: b.providerPostId,
      body: b.body,
      authorName: b.authorName,
      authorHandle: handle,
      parentId: b.parentProviderCommentId ?? null,
    });
    if (!id) return notFound();
    return reply.code(201).send({ providerCommentId: id });
  });
}
