/**
 * Loopback simulator for the Meta family: Facebook Pages, Instagram (Facebook Login and Instagram
 * Login) and Threads. One Fastify plugin serves every host under its own path:
 *
 *   /facebook/www/{v}      www.facebook.com (dialog/oauth)
 *   /facebook/graph/{v}    graph.facebook.com (Pages, Instagram with Facebook Login, tokens)
 *   /facebook/video/{v}    graph-video.facebook.com (Page videos)
 *   /instagram/api         api.instagram.com (oauth/authorize, oauth/access_token)
 *   /instagram/graph/{v}   graph.instagram.com (Instagram Login API; /access_token unversioned)
 *   /threads/www           threads.net (oauth/authorize)
 *   /threads/graph/{v}     graph.threads.net (Threads API; oauth and token endpoints unversioned)
 *
 * Webhook app subscriptions (POST/GET/DELETE /{app-id}/subscriptions) are served on the graph host.
 *
 * Standalone for tests (startMetaSimulator, 127.0.0.1 on a free port) or mounted under a prefix of
 * another Fastify app for sandbox mode (register metaSimulatorPlugin with { prefix }, then point the
 * adapters at metaSandboxBaseUrls(origin, prefix)).
 */
import Fastify, { type FastifyPluginAsync } from 'fastify';
import type { Endpoints } from '../../providers/registry.js';
import { FailureQueue, SimulatorLedger } from '../simulator-kit.js';
import { registerMetaCommentRoutes } from './meta/meta-comments.routes.js';
import { enforceMetaContracts } from './meta/meta-contract.js';
import { registerMetaOAuthRoutes } from './meta/meta-oauth.routes.js';
import { registerMetaReadRoutes } from './meta/meta-read.routes.js';
import { MetaSimState } from './meta/meta-state.js';
import { registerMetaSubscriptionRoutes } from './meta/meta-subscriptions.routes.js';
import { registerMetaWriteRoutes } from './meta/meta-write.routes.js';
import { META_SANDBOX_APP, type MetaPlatform, metaSandboxBaseUrls } from './simulator-urls.js';

export { MetaSimState } from './meta/meta-state.js';

export {
  META_SANDBOX_APP,
  type MetaPlatform,
  metaSandboxBaseUrls,
} from './simulator-urls.js';

export interface MetaSimulatorOptions {
  /** how long a container (or Page video) stays IN_PROGRESS after its media was fetched; default 50 ms */
  containerDelayMs?: number;
  clientId?: string;
  clientSecret?: string;
  /** pass shared instances to inspect a mounted simulator from outside */
  state?: MetaSimState;
  ledger?: SimulatorLedger;
  failures?: FailureQueue;
}

const FORM = 'application/x-www-form-urlencoded';

export const metaSimulatorPlugin: FastifyPluginAsync<MetaSimulatorOptions> = async (app, opts) => {
  const state = opts.state ?? new MetaSimState(opts.containerDelayMs ?? 50);
  const closing = new AbortController();
  const ctx = {
    state,
    ledger: opts.ledger ?? new SimulatorLedger(),
    failures: opts.failures ?? new FailureQueue(),
    closing: closing.signal,
  };
  app.addHook('preClose', async () => closing.abort());
  if (!app.hasContentTypeParser(FORM)) {
    app.addContentTypeParser(FORM, { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
  }
  const simApp = {
    clientId: opts.clientId ?? META_SANDBOX_APP.clientId,
    clientSecret: opts.clientSecret ?? META_SANDBOX_APP.clientSecret,
  };
  // every request is judged by its host's description first (contracts/facebook-graph, instagram-graph, threads)
  enforceMetaContracts(app, ctx.ledger);
  registerMetaOAuthRoutes(app, ctx, simApp);
  // webhooks: the app's subscriptions live on graph.facebook.com
  registerMetaSubscriptionRoutes(app, ctx, '/facebook/graph/:version', simApp);
  const hosts = [
    {
      family: 'facebook',
      prefix: '/facebook/graph/:version',
      video: '/facebook/video/:version',
    },
    { family: 'instagram', prefix: '/instagram/graph/:version' },
    { family: 'threads', prefix: '/threads/graph/:version' },
  ] as const;
  for (const host of hosts) {
    registerMetaWriteRoutes(app, ctx, host.family, host.prefix, 'video' in host ? host.video : undefined);
    registerMetaReadRoutes(app, ctx, host.family, host.prefix);
    registerMetaCommentRoutes(app, ctx, host.family, host.prefix);
  }
};

export interface RunningMetaSimulator {
  url: string;
  baseUrls: Record<MetaPlatform, Endpoints>;
  state: MetaSimState;
  ledger: SimulatorLedger;
  failures: FailureQueue;
  close(): Promise<void>;
}

export async function startMetaSimulator(
  opts: Omit<MetaSimulatorOptions, 'state' | 'ledger' | 'failures'> = {},
): Promise<RunningMetaSimulator> {
  const state = new MetaSimState(opts.containerDelayMs ?? 50);
  const ledger = new SimulatorLedger();
  const failures = new FailureQueue();
  const app = Fastify({ logger: false, forceCloseConnections: true });
  await app.register(metaSimulatorPlugin, { ...opts, state, ledger, failures });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrls: metaSandboxBaseUrls(url),
    state,
    ledger,
    failures,
    close: () => app.close(),
  };
}
