/**
 * Loopback simulator of the Pinterest API v5 subset the Pinterest adapter calls. A Fastify plugin:
 * tests start it alone on 127.0.0.1:0 (startPinterestSimulator); sandbox mode mounts it inside the
 * service under a prefix and points the adapter at pinterestSimulatorBaseUrls(origin + prefix).
 *
 * Routes (relative to the mount prefix):
 *   GET  /web/oauth/             consent screen: approves at once, 302 to redirect_uri?code&state
 *   POST /v5/oauth/token         Basic client auth; authorization_code and refresh_token grants
 *   GET  /v5/user_account, /v5/boards, /v5/pins/{id}, /v5/pins/{id}/analytics
 *   POST /v5/pins, /v5/media; GET /v5/media/{id}; POST /media-upload/ (the upload_url)
 *
 * Failure operations for FailureQueue.inject: token, user_account, boards, publish (Pin creation),
 * pin_get, pin_analytics, media_register, media_upload, media_status.
 */
import type { FastifyPluginAsync } from 'fastify';
import { loadContract } from '../../platform/contracts/contracts.js';
import type { Endpoints } from '../../providers/registry.js';
import { type RunningSimulator, rawBodySimulatorPlugin, type SimulatorPluginOptions, startSimulatorServer } from '../simulator-kit.js';
import { registerPinterestApiRoutes } from './pinterest/pinterest-api.routes.js';
import { enforcePinterestContract } from './pinterest/pinterest-contract.js';
import { registerPinterestMediaRoutes } from './pinterest/pinterest-media.routes.js';
import { registerPinterestOAuthRoutes } from './pinterest/pinterest-oauth.routes.js';
import { PinterestSimulatorState } from './pinterest/pinterest-state.js';
import { pinterestSimulatorBaseUrls } from './simulator-urls.js';

export { PinterestSimulatorState } from './pinterest/pinterest-state.js';

export type PinterestSimulatorOptions = SimulatorPluginOptions<PinterestSimulatorState>;

export { pinterestSimulatorBaseUrls } from './simulator-urls.js';

export const pinterestSimulatorPlugin: FastifyPluginAsync<PinterestSimulatorOptions> = rawBodySimulatorPlugin(enforcePinterestContract, [
  registerPinterestOAuthRoutes,
  registerPinterestApiRoutes,
  registerPinterestMediaRoutes,
]);

export type RunningPinterestSimulator = RunningSimulator<PinterestSimulatorState, Endpoints>;

export async function startPinterestSimulator(opts: { state?: PinterestSimulatorState } = {}): Promise<RunningPinterestSimulator> {
  // standalone (tests): read the description before the first request rather than on it
  await loadContract('pinterest');
  return startSimulatorServer(pinterestSimulatorPlugin, opts.state ?? new PinterestSimulatorState(), pinterestSimulatorBaseUrls);
}
