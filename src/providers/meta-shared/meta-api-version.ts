/**
 * The one place for the Meta API versions the adapters call, and the descriptions they were checked
 * against (contracts/facebook-graph, contracts/instagram-graph, contracts/threads; docs/platforms.md).
 * The default base URLs of Facebook Pages, Instagram (both logins) and Threads, the simulators' paths and
 * the contract descriptions are all built from these; SERVICE_<PLATFORM>_API_BASE_URL (and _AUTH_, _UPLOAD_)
 * still point an adapter anywhere.
 */

/** Graph API version (graph.facebook.com, graph-video.facebook.com, www.facebook.com dialogs, graph.instagram.com). */
export const GRAPH_API_VERSION = 'v25.0';

/** Threads API version (graph.threads.net). */
export const THREADS_API_VERSION = 'v1.0';

/** Date of the node specs (facebook/facebook-business-sdk-codegen) the Graph descriptions are built from. */
export const GRAPH_DESCRIPTION_DATE = '2026-03-26';

/** Date the hand-written Threads description was checked against its reference pages. */
export const THREADS_DESCRIPTION_DATE = '2026-11-28';
