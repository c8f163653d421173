/** Wires the comments area once per deps. */
import type { AppDeps } from '../../app-deps.js';
import { createProviderRegistry } from '../../providers/registry.js';
import { TokenVault } from '../channels/token-vault.js';
import { CommentsService } from './comments.service.js';

export interface CommentsModule {
  service: CommentsService;
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
  const module: CommentsModule = { service: new CommentsService(deps, channels) };
  modules.set(deps, module);
  return module;
}
