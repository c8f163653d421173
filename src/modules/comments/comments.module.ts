/** The comments area: listing, replies and reply drafts over the channels' provider calls. */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { AppDeps } from '../app-deps.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import type { ProfilesReadPort } from '../profiles/profiles.module.js';
import type { PublishTargetsReadPort } from '../publishing/publishing.module.js';
import { CommentDraftsService } from './comments.drafts.js';
import { CommentRepliesService } from './comments.replies.js';
import { registerCommentRoutes } from './comments.routes.js';
import { COMMENT_PLATFORMS, type CommentPlatform } from './comments.schemas.js';
import { CommentsService } from './comments.service.js';

export type CommentsPorts = Pick<AppDeps, 'config' | 'database' | 'clock' | 'events'> & {
  registry: ProviderRegistry;
  channels: ChannelsReadPort;
  brands: BrandsReadPort;
  profiles: ProfilesReadPort;
  /** publishing's published targets (profile sync, a sync request's target) */
  targets: PublishTargetsReadPort;
};

export type { CommentPlatform } from './comments.schemas.js';

export interface CommentsModule extends AreaModule {
  /** the platforms whose comments the area syncs */
  platforms: readonly CommentPlatform[];
  service: CommentsService;
  replies: CommentRepliesService;
  drafts: CommentDraftsService;
}

export function createCommentsModule(ports: CommentsPorts): CommentsModule {
  const module: CommentsModule = {
    platforms: COMMENT_PLATFORMS,
    service: new CommentsService(ports, ports),
    replies: new CommentRepliesService(ports, ports.channels),
    drafts: new CommentDraftsService(ports, ports.registry),
    read: undefined,
    jobs: [],
    routes: (app: FastifyInstance) => registerCommentRoutes(app, module),
  };
  return module;
}
