/**
 * Where each adapter finds its simulator when the simulators are served under /sandbox/<family> of
 * one origin (sandbox mode), and the app credentials the simulators accept by default.
 */
import type { Platform } from '../providers/provider.js';
import type { Endpoints } from '../providers/registry.js';
// the URL helpers only, not the simulators: a live process reads these settings too
import {
  googleSimulatorBaseUrls,
  META_SANDBOX_APP,
  metaSandboxBaseUrls,
  pinterestSimulatorBaseUrls,
  tiktokSimulatorBaseUrls,
  xSimulatorBaseUrls,
} from './simulators/simulator-urls.js';

export const SANDBOX_PREFIX = '/sandbox';
export type SandboxFamily = 'meta' | 'google' | 'pinterest' | 'tiktok' | 'x';

export const PLATFORM_FAMILY: Record<Platform, SandboxFamily> = {
  facebook_page: 'meta',
  instagram_business: 'meta',
  instagram_standalone: 'meta',
  threads: 'meta',
  youtube: 'google',
  pinterest: 'pinterest',
  tiktok: 'tiktok',
  x: 'x',
};

/** App credentials used in sandbox mode unless SERVICE_<PLATFORM>_CLIENT_ID/_SECRET are set. */
export const SANDBOX_APP_CREDENTIALS: Record<SandboxFamily, { clientId: string; clientSecret: string }> = {
  meta: { ...META_SANDBOX_APP },
  google: {
    clientId: 'sandbox-google-client-id',
    clientSecret: 'sandbox-google-client-secret',
  },
  pinterest: {
    clientId: 'sandbox-pinterest-app-id',
    clientSecret: 'sandbox-pinterest-app-secret',
  },
  tiktok: {
    clientId: 'sandbox-tiktok-client-key',
    clientSecret: 'sandbox-tiktok-client-secret',
  },
  x: {
    clientId: 'sandbox-x-client-id',
    clientSecret: 'sandbox-x-client-secret',
  },
};

/** Base URLs of every adapter when the simulators are mounted at origin + /sandbox/<family>. */
export function sandboxBaseUrls(origin: string): Record<Platform, Endpoints> {
  const root = `${origin.replace(/\/+$/, '')}${SANDBOX_PREFIX}`;
  const meta = metaSandboxBaseUrls(root, '/meta');
  return {
    ...meta,
    youtube: googleSimulatorBaseUrls(`${root}/google`),
    pinterest: pinterestSimulatorBaseUrls(`${root}/pinterest`),
    tiktok: tiktokSimulatorBaseUrls(root, '/tiktok'),
    x: xSimulatorBaseUrls(root, '/x'),
  };
}
