/**
 * The one place for the Meta API versions the adapters call. The default base URLs of Facebook Pages,
 * Instagram (both logins) and Threads, the simulators' paths and the contract descriptions
 * (contracts/facebook-graph, instagram-graph, threads, built by scripts/contracts/build-meta-google.ts)
 * are all built from these; each adapter's `<PLATFORM>_API` record in its rules file names the version
 * and the description it was checked against. SERVICE_<PLATFORM>_API_BASE_URL (and _AUTH_, _UPLOAD_)
 * still point an adapter anywhere.
 */

import type { PlatformApiVersion } from '../shared/api-version.js';

/** Graph API version (graph.facebook.com, graph-video.facebook.com, www.facebook.com dialogs, graph.instagram.com). */
export const GRAPH_API_VERSION = 'v25.0';

/** Threads API version (graph.threads.net). */
export const THREADS_API_VERSION = 'v1.0';

/** Date of the node specs (facebook/facebook-business-sdk-codegen, source.json committedAt) the Graph descriptions are built from. */
const GRAPH_DESCRIPTION_DATE = '2026-03-26';

/** The version record of an adapter on the Graph API, checked against the `contract` description. */
export function graphApiVersion(contract: string, reference: string, version = `Graph API ${GRAPH_API_VERSION}`): PlatformApiVersion {
  return { version, contract, descriptionVersion: GRAPH_API_VERSION, descriptionDate: GRAPH_DESCRIPTION_DATE, reference };
}
