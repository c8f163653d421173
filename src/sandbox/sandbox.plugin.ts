/**
 * Sandbox mode (SERVICE_PROVIDER_MODE=sandbox): this process serves every platform simulator under
 * /sandbox/<family> and the provider registry points the adapters there, so a new user can connect fake
 * accounts and publish locally without platform credentials. Each simulator is registered in its own
 * encapsulated context (its body parsers never leak into the API), configured with the app
 * credentials the adapters use. With a data dir, the simulators' worlds survive a restart (sandbox-store.ts).
 */
import path from 'node:path';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Platform, ProviderAppConfig } from '../providers/provider.js';
import { registerCommentControl } from './sandbox-control.comments.js';
import { registerMetricsControl } from './sandbox-metrics-control.js'; // analytics
import { SandboxStore } from './sandbox-store.js';
import { SANDBOX_PREFIX, type SandboxFamily } from './sandbox-urls.js';
import { FailureQueue, SimulatorLedger, type SimulatorPluginOptions } from './simulator-kit.js';
import { GoogleSimulatorState, googleSimulatorPlugin } from './simulators/google.simulator.js';
import { MetaSimState, metaSimulatorPlugin } from './simulators/meta.simulator.js';
import { PinterestSimulatorState, pinterestSimulatorPlugin } from './simulators/pinterest.simulator.js';
import { TiktokSimulatorState, tiktokSimulatorPlugin } from './simulators/tiktok.simulator.js';
import { XSimulatorState, xSimulatorPlugin } from './simulators/x.simulator.js';

/** The simulators' in-memory worlds, reachable for inspection (tests, the sandbox docs' walkthrough). */
export interface SandboxHandle {
  meta: MetaSimState;
  google: GoogleSimulatorState;
  pinterest: PinterestSimulatorState;
  tiktok: TiktokSimulatorState;
  x: XSimulatorState;
  ledgers: Record<SandboxFamily, SimulatorLedger>;
  failures: Record<SandboxFamily, FailureQueue>;
  /** where the worlds are kept between restarts (null: memory only) */
  store: SandboxStore | null;
}

export interface SandboxOptions {
  /** keep the simulators' state in <dataDir>/sandbox (null: memory only) */
  dataDir?: string | null;
}

const need = (c: ProviderAppConfig, platform: Platform) => {
  if (!c.clientId || !c.clientSecret) throw new Error(`sandbox: ${platform} has no client id/secret`);
  return { id: c.clientId, secret: c.clientSecret };
};

export async function registerSandbox(
  app: FastifyInstance,
  configs: Record<Platform, ProviderAppConfig>,
  opts: SandboxOptions = {},
): Promise<SandboxHandle> {
  const families: SandboxFamily[] = ['meta', 'google', 'pinterest', 'tiktok', 'x'];
  const ledgers = Object.fromEntries(families.map((f) => [f, new SimulatorLedger()])) as Record<SandboxFamily, SimulatorLedger>;
  const failures = Object.fromEntries(families.map((f) => [f, new FailureQueue()])) as Record<SandboxFamily, FailureQueue>;

  // one Meta app serves the four Meta platforms; Facebook's credentials are the family's
  const metaApp = need(configs.facebook_page, 'facebook_page');
  const meta = new MetaSimState(50);
  const google = new GoogleSimulatorState();
  google.client = need(configs.youtube, 'youtube');
  const pinterest = new PinterestSimulatorState();
  pinterest.client = need(configs.pinterest, 'pinterest');
  const tiktokApp = need(configs.tiktok, 'tiktok');
  const tiktok = new TiktokSimulatorState({
    clientKey: tiktokApp.id,
    clientSecret: tiktokApp.secret,
  });
  const xApp = need(configs.x, 'x');
  const x = new XSimulatorState({
    clientId: xApp.id,
    clientSecret: xApp.secret,
  });
  // the inbound webhook endpoint signs and answers X's CRC with the app secret by default
  x.consumerSecret = xApp.secret;

  let store: SandboxStore | null = null;
  if (opts.dataDir) {
    store = new SandboxStore(
      path.join(opts.dataDir, 'sandbox'),
      {
        meta: { state: meta, ledger: ledgers.meta },
        google: { state: google, ledger: ledgers.google },
        pinterest: { state: pinterest, ledger: ledgers.pinterest },
        tiktok: { state: tiktok, ledger: ledgers.tiktok },
        x: { state: x, ledger: ledgers.x },
      },
      (message) => app.log.warn(message),
    );
    const restored = store.load();
    if (restored.length > 0) app.log.info({ families: restored, dir: store.dir }, 'sandbox: simulators restored from the data dir');
    const saving = store;
    // any request to a simulator (or the sandbox controls) may change its world: save it shortly after
    app.addHook('onResponse', (request, _reply, done) => {
      if (request.url.startsWith(`${SANDBOX_PREFIX}/`)) saving.touch(request.url.slice(SANDBOX_PREFIX.length + 1).split(/[/?]/)[0]);
      done();
    });
    app.addHook('onClose', (_instance, done) => {
      try {
        saving.flush();
      } catch (err) {
        app.log.warn(`sandbox: could not save the simulators' state (${(err as Error).message})`);
      }
      done();
    });
  }

  // one encapsulated scope: the simulators' parsers stay inside it and their routes stay out of the
  // API's OpenAPI document
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.schema = { ...(route.schema ?? {}), hide: true };
    });
    await scope.register(metaSimulatorPlugin, {
      prefix: `${SANDBOX_PREFIX}/meta`,
      clientId: metaApp.id,
      clientSecret: metaApp.secret,
      state: meta,
      ledger: ledgers.meta,
      failures: failures.meta,
    });
    const mount = <S>(family: SandboxFamily, plugin: FastifyPluginAsync<SimulatorPluginOptions<S>>, state: S) =>
      scope.register(plugin, { prefix: `${SANDBOX_PREFIX}/${family}`, state, ledger: ledgers[family], failures: failures[family] });
    await mount('google', googleSimulatorPlugin, google);
    await mount('pinterest', pinterestSimulatorPlugin, pinterest);
    await mount('tiktok', tiktokSimulatorPlugin, tiktok);
    await mount('x', xSimulatorPlugin, x);
    registerCommentControl(scope, { meta, x, google });
  });
  registerMetricsControl(app, { meta, google, pinterest, x }); // analytics
  return { meta, google, pinterest, tiktok, x, ledgers, failures, store };
}
