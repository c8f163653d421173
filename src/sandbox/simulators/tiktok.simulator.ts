/**
 * Loopback simulator of the TikTok APIs the adapter calls (Login Kit v2, user info, Content Posting API
 * Direct Post with FILE_UPLOAD chunks, photo posts, status fetch, video query), with TikTok's response
 * envelope {"data":{...},"error":{"code","message","log_id"}} and the FailureQueue switches.
 *
 * Runs standalone on 127.0.0.1:<random> (tests) or mounted under a prefix of another Fastify app (sandbox
 * mode); in both cases authBaseUrl and uploadBaseUrl are the origin + prefix and apiBaseUrl adds /v2.
 */
import Fastify, { type FastifyPluginAsync } from 'fastify';
import { FailureQueue, SimulatorLedger } from '../simulator-kit.js';
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

export interface TiktokSimulatorPluginOptions {
  state: TiktokSimulatorState;
  ledger: SimulatorLedger;
  failures: FailureQueue;
}

export const tiktokSimulatorPlugin: FastifyPluginAsync<TiktokSimulatorPluginOptions> = async (app, opts) => {
  const ctx: SimContext = {
    state: opts.state,
    ledger: opts.ledger,
    failures: opts.failures,
  };
  addBodyParsers(app);
  // every request is judged by the TikTok API v2 description first (contracts/tiktok)
  enforceTiktokContract(app, opts.ledger);
  registerTiktokOauthRoutes(app, ctx);
  registerTiktokPostRoutes(app, ctx, app.prefix);
  registerTiktokStatusRoutes(app, ctx);
};

export interface RunningTiktokSimulator {
  url: string;
  baseUrls: SimulatorBaseUrls;
  state: TiktokSimulatorState;
  ledger: SimulatorLedger;
  failures: FailureQueue;
  close(): Promise<void>;
}

export async function startTiktokSimulator(opts: TiktokSimulatorOptions = {}): Promise<RunningTiktokSimulator> {
  const state = new TiktokSimulatorState(opts);
  const ledger = new SimulatorLedger();
  const failures = new FailureQueue();
  const app = Fastify({
    logger: false,
    forceCloseConnections: true,
    bodyLimit: 200 * 1024 * 1024,
  });
  await app.register(tiktokSimulatorPlugin, { state, ledger, failures });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    baseUrls: tiktokSimulatorBaseUrls(url),
    state,
    ledger,
    failures,
    close: () => app.close(),
  };
}
