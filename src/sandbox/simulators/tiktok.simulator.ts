/**
 * Loopback simulator of the TikTok APIs the adapter calls (Login Kit v2, user info, Content Posting API
 * Direct Post with FILE_UPLOAD chunks, photo posts, status fetch, video query), with TikTok's response
 * envelope {"data":{...},"error":{"code","message","log_id"}} and the FailureQueue switches.
 *
 * Runs standalone on 127.0.0.1:<random> (tests) or mounted under a prefix of another Fastify app (sandbox
 * mode); in both cases authBaseUrl and uploadBaseUrl are the origin + prefix and apiBaseUrl adds /v2.
 */
import type { FastifyPluginAsync } from 'fastify';
import { type RunningSimulator, type SimulatorPluginOptions, startSimulatorServer } from '../simulator-kit.js';
import { type TiktokSimulatorBaseUrls as SimulatorBaseUrls, tiktokSimulatorBaseUrls } from './simulator-urls.js';
import { enforceTiktokContract } from './tiktok/tiktok-contract.js';
import { addBodyParsers, type SimContext } from './tiktok/tiktok-http.js';
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

export const tiktokSimulatorPlugin: FastifyPluginAsync<TiktokSimulatorPluginOptions> = async (app, opts) => {
  const ctx: SimContext = opts;
  addBodyParsers(app);
  // every request is judged by the TikTok API v2 description first (contracts/tiktok)
  enforceTiktokContract(app, opts.ledger);
  registerTiktokOauthRoutes(app, ctx);
  registerTiktokPostRoutes(app, ctx, app.prefix);
  registerTiktokStatusRoutes(app, ctx);
};

export type RunningTiktokSimulator = RunningSimulator<TiktokSimulatorState, SimulatorBaseUrls>;

export async function startTiktokSimulator(opts: TiktokSimulatorOptions = {}): Promise<RunningTiktokSimulator> {
  return startSimulatorServer(tiktokSimulatorPlugin, new TiktokSimulatorState(opts), tiktokSimulatorBaseUrls, {
    bodyLimit: 200 * 1024 * 1024,
  });
}
