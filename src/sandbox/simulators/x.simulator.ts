/**
 * Loopback simulator of the X API v2 subset the adapter calls: OAuth 2.0 with PKCE (authorize approves at
 * once), /2/users/me, users and communities search, POST /2/tweets, post lookup, recent search of a
 * conversation, hide replies (PUT /2/tweets/:id/hidden), and chunked media upload with async processing. Errors use X problem details
 * ({"title","detail","type","status"}, {"errors":[...]}), every authorized answer carries
 * x-rate-limit-limit/-remaining/-reset, and the FailureQueue switches apply per operation
 * (authorize, token, revoke, users_me, users_search, users_lookup, community_search, publish, tweet_lookup,
 * search, hide_reply, media_upload, media_status, media_metadata), and the Account Activity webhooks (x/x-webhooks.routes.ts).
 *
 * Runs standalone on 127.0.0.1:<random> (tests) or mounted under a prefix of another Fastify app (sandbox
 * mode); apiBaseUrl, authBaseUrl and uploadBaseUrl are then all origin + prefix.
 */
import type { FastifyPluginAsync } from 'fastify';
import { loadContract } from '../../platform/contracts/contracts.js';
import type { Endpoints } from '../../providers/registry.js';
import { type RunningSimulator, type SimulatorPluginOptions, simulatorPlugin, startSimulatorServer } from '../simulator-kit.js';
import { xSimulatorBaseUrls } from './simulator-urls.js';
import { enforceXContract } from './x/x-contract.js';
import { addBodyParsers } from './x/x-http.js';
import { registerXMediaRoutes } from './x/x-media.routes.js';
import { registerXMetricsRoutes } from './x/x-metrics.routes.js'; // analytics
import { registerXOauthRoutes } from './x/x-oauth.routes.js';
import { type XSimulatorOptions, XSimulatorState } from './x/x-state.js';
import { registerXTweetRoutes } from './x/x-tweets.routes.js';
import { registerXUserRoutes } from './x/x-users.routes.js';
import { registerXWebhookRoutes } from './x/x-webhooks.routes.js';

export { xSimulatorBaseUrls } from './simulator-urls.js';
export { type XSimulatorOptions, XSimulatorState } from './x/x-state.js';

export type XSimulatorPluginOptions = SimulatorPluginOptions<XSimulatorState>;

export const xSimulatorPlugin: FastifyPluginAsync<XSimulatorPluginOptions> = simulatorPlugin(addBodyParsers, enforceXContract, [
  registerXOauthRoutes,
  registerXUserRoutes,
  registerXTweetRoutes,
  registerXMediaRoutes,
  registerXMetricsRoutes, // analytics
  registerXWebhookRoutes,
]);

export type RunningXSimulator = RunningSimulator<XSimulatorState, Endpoints>;

export async function startXSimulator(opts: XSimulatorOptions = {}): Promise<RunningXSimulator> {
  // standalone (tests): read the description before the first request rather than on it
  await loadContract('x');
  return startSimulatorServer(xSimulatorPlugin, new XSimulatorState(opts), xSimulatorBaseUrls);
}
