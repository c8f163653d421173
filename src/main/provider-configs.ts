/**
 * Each platform's effective app configuration, assembled by the root: SERVICE_<PLATFORM>_* settings
 * over the adapter's default endpoints; in sandbox mode (SERVICE_PROVIDER_MODE=sandbox) every adapter
 * points at the simulators this same process serves under /sandbox/<family>, and app credentials
 * default to the simulators' sandbox values. `overrides` lets tests point an adapter at a standalone
 * simulator.
 */
import { type Config, providerEnv } from '../config.js';
import type { ProviderCallObserver } from '../platform/metrics/metrics.js';
import { PLATFORMS, type Platform, type ProviderAppConfig } from '../providers/provider.js';
import { createProviderRegistry, defaultEndpoints, type ProviderOverrides, type ProviderRegistry } from '../providers/registry.js';
import { PLATFORM_FAMILY, SANDBOX_APP_CREDENTIALS, sandboxBaseUrls } from '../sandbox/sandbox-urls.js';

export function providerAppConfigs(config: Config, overrides: ProviderOverrides = {}): Record<Platform, ProviderAppConfig> {
  const sandbox = config.env.SERVICE_PROVIDER_MODE === 'sandbox';
  const simulated = sandbox ? sandboxBaseUrls(config.publicBaseUrl) : null;
  const out = {} as Record<Platform, ProviderAppConfig>;
  for (const platform of PLATFORMS) {
    const env = providerEnv(config, platform);
    const defaults = defaultEndpoints(platform);
    const creds = sandbox ? SANDBOX_APP_CREDENTIALS[PLATFORM_FAMILY[platform]] : null;
    out[platform] = {
      clientId: env.clientId ?? creds?.clientId ?? null,
      clientSecret: env.clientSecret ?? creds?.clientSecret ?? null,
      redirectUri: env.redirectUri,
      apiBaseUrl: simulated?.[platform].apiBaseUrl ?? env.apiBaseUrl ?? defaults.apiBaseUrl,
      authBaseUrl: simulated?.[platform].authBaseUrl ?? env.authBaseUrl ?? defaults.authBaseUrl,
      uploadBaseUrl: simulated?.[platform].uploadBaseUrl ?? env.uploadBaseUrl ?? defaults.uploadBaseUrl,
      timeoutMs: config.env.SERVICE_PROVIDER_TIMEOUT_MS,
      ...overrides[platform],
    };
  }
  return out;
}

/** The provider registry of a configuration (the root builds it once; tests build their own). */
export function providerRegistryFromConfig(
  config: Config,
  overrides: ProviderOverrides = {},
  observer?: ProviderCallObserver,
): ProviderRegistry {
  return createProviderRegistry(config.env.SERVICE_PROVIDER_MODE, providerAppConfigs(config, overrides), observer);
}
