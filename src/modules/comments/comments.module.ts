/** The comments area: listing, replies and reply drafts over the channels' provider calls. */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { AreaModule } from '../../http/area-module.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { TokenVault } from '../channels/token-vault.js';
import { CommentDraftsService } from './comments.drafts.js';
import { CommentRepliesService } from './comments.replies.js';
import { registerCommentRoutes } from './comments.routes.js';
import { CommentsService } from './comments.service.js';

export type CommentsPorts = Pick<AppDeps, 'config' | 'database' | 'clock' | 'events'> & { registry: ProviderRegistry; vault: TokenVault };

export interface CommentsModule extends AreaModule {
  service: CommentsService;
  replies: CommentRepliesService;
  drafts: CommentDraftsService;
}

export function createCommentsModule(ports: CommentsPorts): CommentsModule {
  const channels = { db: ports.database.db, vault: ports.vault, registry: ports.registry };
  const module: CommentsModule = {
    service: new CommentsService(ports, channels),
    replies: new CommentRepliesService(ports, channels),
    drafts: new CommentDraftsService(ports, ports.registry),
    read: undefined,
    jobs: [],
    routes: (app: FastifyInstance) => registerCommentRoutes(app, module),
  };
  return module;
}
