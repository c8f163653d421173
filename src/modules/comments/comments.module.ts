/** Wires the comments area once per deps. */
import type { AppDeps } from '../../app-deps.js';
import { createProviderRegistry } from '../../providers/registry.js';
import { TokenVault } from '../channels/token-vault.js';
import { CommentDraftsService } from './comments.drafts.js';
import { CommentRepliesService } from './comments.replies.js';
import { CommentsService } from './comments.service.js';

export interface CommentsModule {
  service: CommentsService;
  replies: CommentRepliesService;
  drafts: CommentDraftsService;
}

const modules = new WeakMap<AppDeps, CommentsModule>();

export function commentsModule(deps: AppDeps): CommentsModule {
  const existing = modules.get(deps);
  if (existing) return existing;
  const channels = {
    db: deps.database.db,
    vault: new TokenVault(deps.encryptor, deps.config),
    registry: createProviderRegistry(deps.config),
  };
  const module: CommentsModule = {
    service: new CommentsService(deps, channels),
    replies: new CommentRepliesService(deps, channels),
    drafts: new CommentDraftsService(deps, channels.registry),
  };
  modules.set(deps, module);
  return module;
}
