/**
 * Where each simulator's routes live under the origin and prefix it is served at, and the app credentials
 * the Meta simulator accepts by default: what the adapters need in sandbox mode, kept apart from the
 * simulators themselves so a process pointing its adapters at them does not load every simulator (and its
 * platform descriptions) to learn a URL.
 */
import { GRAPH_API_VERSION, THREADS_API_VERSION } from '../../providers/meta-shared/meta-api-version.js';
import type { Endpoints } from '../../providers/registry.js';

/** the simulator serves the versions the adapters call (src/providers/meta-shared/meta-api-version.ts) */
const META_SIM_GRAPH_VERSION = GRAPH_API_VERSION;
const META_SIM_THREADS_VERSION = THREADS_API_VERSION;
/** app credentials the simulator accepts unless others are given */
export const META_SANDBOX_APP = {
  clientId: 'sandbox-meta-app',
  clientSecret: 'sandbox-meta-secret',
} as const;

export type MetaPlatform = 'facebook_page' | 'instagram_business' | 'instagram_standalone' | 'threads';

/** Base URLs for the four adapters when the simulator is served at origin + prefix. */
export function metaSandboxBaseUrls(origin: string, prefix = ''): Record<MetaPlatform, Endpoints> {
  const root = `${origin.replace(/\/+$/, '')}${prefix.replace(/\/+$/, '')}`;
  const fb = {
    apiBaseUrl: `${root}/facebook/graph/${META_SIM_GRAPH_VERSION}`,
    authBaseUrl: `${root}/facebook/www/${META_SIM_GRAPH_VERSION}`,
    uploadBaseUrl: `${root}/facebook/video/${META_SIM_GRAPH_VERSION}`,
  };
  return {
    facebook_page: fb,
    instagram_business: { ...fb, uploadBaseUrl: fb.apiBaseUrl },
    instagram_standalone: {
      apiBaseUrl: `${root}/instagram/graph/${META_SIM_GRAPH_VERSION}`,
      authBaseUrl: `${root}/instagram/api`,
      uploadBaseUrl: `${root}/instagram/graph/${META_SIM_GRAPH_VERSION}`,
    },
    threads: {
      apiBaseUrl: `${root}/threads/graph/${META_SIM_THREADS_VERSION}`,
      authBaseUrl: `${root}/threads/www`,
      uploadBaseUrl: `${root}/threads/graph/${META_SIM_THREADS_VERSION}`,
    },
  };
}

/** Base URLs the YouTube adapter must use to talk to a simulator served at `base` (origin + prefix). */
export function googleSimulatorBaseUrls(base: string): Endpoints {
  const root = base.replace(/\/+$/, '');
  return {
    apiBaseUrl: `${root}/youtube/v3`,
    authBaseUrl: `${root}/oauth`,
    uploadBaseUrl: `${root}/upload/youtube/v3`,
  };
}

/** Base URLs the Pinterest adapter must use to talk to a simulator served at `base` (origin + prefix). */
export function pinterestSimulatorBaseUrls(base: string): Endpoints {
  const root = base.replace(/\/+$/, '');
  return {
    apiBaseUrl: `${root}/v5`,
    authBaseUrl: `${root}/web`,
    uploadBaseUrl: `${root}/media-upload`,
  };
}

/** Base URLs an adapter uses to reach a simulator served at origin + prefix (e.g. "http://127.0.0.1:3000", "/sandbox/tiktok"). */
export function tiktokSimulatorBaseUrls(origin: string, prefix = ''): Endpoints {
  const base = `${origin.replace(/\/$/, '')}${prefix.replace(/\/$/, '')}`;
  // the API base carries the version, as the production one does (open.tiktokapis.com/v2)
  return { apiBaseUrl: `${base}/v2`, authBaseUrl: base, uploadBaseUrl: base };
}

/** Base URLs an adapter uses to reach a simulator served at origin + prefix (e.g. "http://127.0.0.1:3000", "/sandbox/x"). */
export function xSimulatorBaseUrls(origin: string, prefix = ''): Endpoints {
  const base = `${origin.replace(/\/$/, '')}${prefix.replace(/\/$/, '')}`;
  // the adapter's API and upload URLs carry the version path, as production's do
  return { apiBaseUrl: `${base}/2`, authBaseUrl: base, uploadBaseUrl: `${base}/2` };
}
