/** The provider registry's configuration: live defaults, env settings, sandbox URLs and test overrides. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { providerRegistryFromConfig } from '../../src/main/provider-configs.js';
import { PLATFORMS } from '../../src/providers/provider.js';
import { X_ENDPOINTS } from '../../src/providers/x/x.rules.js';
import { YOUTUBE_ENDPOINTS } from '../../src/providers/youtube/youtube.rules.js';
import { SIMULATOR_FAMILY } from '../support/simulators.js';

describe('provider registry', () => {
  it("builds all eight adapters on the platforms' production endpoints, with env settings over them", () => {
    const registry = providerRegistryFromConfig(
      loadConfig({
        SERVICE_PUBLIC_BASE_URL: 'https://api.example.test',
        SERVICE_X_CLIENT_ID: 'xid',
        SERVICE_X_API_BASE_URL: 'https://x-proxy.example.test',
      }),
    );
    assert.equal(registry.mode, 'live');
    assert.deepEqual(
      registry.all().map((p) => p.platform),
      [...PLATFORMS],
    );
    assert.deepEqual(
      { ...registry.appConfig('youtube'), timeoutMs: 0 },
      {
        clientId: null,
        clientSecret: null,
        redirectUri: 'https://api.example.test/v1/channel-accounts/oauth/callback/youtube',
        ...YOUTUBE_ENDPOINTS,
        timeoutMs: 0,
      },
    );
    const x = registry.appConfig('x');
    assert.equal(x.clientId, 'xid');
    assert.equal(x.apiBaseUrl, 'https://x-proxy.example.test');
    assert.equal(x.authBaseUrl, X_ENDPOINTS.authBaseUrl);
  });

  it('points every adapter at the simulators of this process in sandbox mode, with sandbox credentials', () => {
    const registry = providerRegistryFromConfig(
      loadConfig({ SERVICE_PROVIDER_MODE: 'sandbox', SERVICE_PUBLIC_BASE_URL: 'http://127.0.0.1:4000' }),
    );
    assert.equal(registry.mode, 'sandbox');
    for (const platform of PLATFORMS) {
      const c = registry.appConfig(platform);
      for (const url of [c.apiBaseUrl, c.authBaseUrl, c.uploadBaseUrl])
        assert.ok(url.startsWith(`http://127.0.0.1:4000/sandbox/${SIMULATOR_FAMILY[platform]}`), `${platform}: ${url}`);
      assert.ok(c.clientId && c.clientSecret, platform);
    }
  });

  it('lets tests point one adapter at a standalone simulator', () => {
    const registry = providerRegistryFromConfig(loadConfig({}), { tiktok: { apiBaseUrl: 'http://127.0.0.1:9/api', clientId: 'k' } });
    assert.equal(registry.appConfig('tiktok').apiBaseUrl, 'http://127.0.0.1:9/api');
    assert.equal(registry.appConfig('tiktok').clientId, 'k');
    assert.notEqual(registry.appConfig('x').apiBaseUrl, 'http://127.0.0.1:9/api');
  });
});
