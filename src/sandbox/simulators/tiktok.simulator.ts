/**
 * Loopback simulator of the TikTok APIs the adapter calls (Login Kit v2, user info, Content Posting API
 * Direct Post with FILE_UPLOAD chunks, photo posts, status fetch, video query), with TikTok's response
 * envelope {"data":{...},"error":{"code","message","log_id"}} and the FailureQueue switches.
 *
 * Runs standalone on 127.0.0.1:<random> (tests) or mounted under a prefix of another Fastify app (sandbox
 * mode); in both cases authBaseUrl and uploadBaseUrl are the origin + prefix and apiBaseUrl adds /v2.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Endpoints } from '../../providers/registry.js';
import { type RunningSimulator, type SimulatorPluginOptions, simulatorPlugin, startSimulatorServer } from '../simulator-kit.js';
import { tiktokSimulatorBaseUrls } from './simulator-urls.js';
import { enforceTiktokContract } from './tiktok/tiktok-contract.js';
import { addBodyParsers } from './tiktok/tiktok-http.js';
import { registerTiktokOauthRoutes } from './tiktok/tiktok-oauth.routes.js';
import { registerTiktokPostRoutes } from './tiktok/tiktok-post.routes.js';
import { type TiktokSimulatorOptions, TiktokSimulatorState } from './tiktok/tiktok-state.js';
import { registerTiktokStatusRoutes } from './tiktok/tiktok-status.routes.js';

export { tiktokSimulatorBaseUrls } from './simulator-urls.js';
export {
  type TiktokSimulatorOptions,
  TiktokSimulatorState,
} from './tiktok/tiktok-state.js';

export type TiktokSimulatorPluginOptions = SimulatorPluginOptions<TiktokSimulatorState>;

// every request is judged by the TikTok API v2 description first (contracts/tiktok)
export const tiktokSimulatorPlugin: FastifyPluginAsync<TiktokSimulatorPluginOptions> = simulatorPlugin(
  addBodyParsers,
  enforceTiktokContract,
  [registerTiktokOauthRoutes, (app, ctx) => registerTiktokPostRoutes(app, ctx, app.prefix), registerTiktokStatusRoutes],
);

export type RunningTiktokSimulator = RunningSimulator<TiktokSimulatorState, Endpoints>;

export async function startTiktokSimulator(opts: TiktokSimulatorOptions = {}): Promise<RunningTiktokSimulator> {
  return startSimulatorServer(tiktokSimulatorPlugin, new TiktokSimulatorState(opts), tiktokSimulatorBaseUrls, {
    bodyLimit: 200 * 1024 * 1024,
  });
}
