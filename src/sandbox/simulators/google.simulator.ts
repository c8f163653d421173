/**
 * Loopback simulator of Google OAuth 2.0 and the YouTube Data API v3 subset the YouTube adapter calls.
 * A Fastify plugin: tests start it alone on 127.0.0.1:0 (startYoutubeSimulator); sandbox mode mounts
 * it inside the service under a prefix and points the adapter at googleSimulatorBaseUrls(origin+prefix).
 *
 * Routes (relative to the mount prefix):
 *   GET  /oauth/o/oauth2/v2/auth    consent screen: approves at once, 302 to redirect_uri?code&state
 *   POST /oauth/token, /oauth/revoke
 *   POST|PUT /upload/youtube/v3/videos   resumable videos.insert
 *   GET  /youtube/v3/{channels,videos,commentThreads,videoCategories}, POST /youtube/v3/{commentThreads,comments}
 *
 * Failure operations for FailureQueue.inject: token, revoke, channels, upload_init,
 * publish (the final PUT), videos_list, comment_insert, comments_list, categories.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Endpoints } from '../../providers/registry.js';
import { type RunningSimulator, rawBodySimulatorPlugin, type SimulatorPluginOptions, startSimulatorServer } from '../simulator-kit.js';
import { registerGoogleOAuthRoutes } from './google/google-oauth.routes.js';
import { GoogleSimulatorState } from './google/google-state.js';
import { registerWebSubHubRoutes } from './google/websub-hub.routes.js';
import { registerYoutubeApiRoutes } from './google/youtube-api.routes.js';
import { enforceYoutubeContract } from './google/youtube-contract.js';
import { registerYoutubeUploadRoutes } from './google/youtube-upload.routes.js';
import { googleSimulatorBaseUrls } from './simulator-urls.js';

export { GoogleSimulatorState } from './google/google-state.js';

export type GoogleSimulatorOptions = SimulatorPluginOptions<GoogleSimulatorState>;

export { googleSimulatorBaseUrls } from './simulator-urls.js';

// every request is judged by the YouTube Data API description first (contracts/youtube)
export const googleSimulatorPlugin: FastifyPluginAsync<GoogleSimulatorOptions> = rawBodySimulatorPlugin(enforceYoutubeContract, [
  registerGoogleOAuthRoutes,
  registerYoutubeUploadRoutes,
  registerYoutubeApiRoutes,
  registerWebSubHubRoutes,
]);

export type RunningYoutubeSimulator = RunningSimulator<GoogleSimulatorState, Endpoints>;

export async function startYoutubeSimulator(opts: { state?: GoogleSimulatorState } = {}): Promise<RunningYoutubeSimulator> {
  return startSimulatorServer(googleSimulatorPlugin, opts.state ?? new GoogleSimulatorState(), googleSimulatorBaseUrls);
}
