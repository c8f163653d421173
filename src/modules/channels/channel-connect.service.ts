/**
 * POST /v1/channel-accounts/connect-url: the adapter's real authorization URL with a stored,
 * single-use state (bound to organization, brand, return URL and expiry) and PKCE (S256) where the
 * adapter supports it.
 */

import type { Config } from '../../config.js';
import { dashboardOrigins } from '../../http/dashboard-auth.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { assertOwnOrganization } from '../../platform/organization-guard.js';
import type { Encryptor } from '../../platform/secrets/encryption.js';
import type { Platform } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { Db } from '../database.js';
import { createConnectState, pkcePair } from './connect-states.js';

export interface ConnectUrlRequest {
  organizationId?: string;
  platform: Platform;
  brandId?: string | null;
  returnUrl?: string | null;
  redirectUri?: string | null;
  scopes?: string[];
}

export interface ConnectDeps {
  db: Db;
  config: Config;
  registry: ProviderRegistry;
  encryptor: Encryptor;
  clock: Clock;
  /** the brand existence check (the brands read port) */
  brands: Pick<BrandsReadPort, 'brand'>;
}

function httpUrl(value: string | null | undefined): URL | null {
  if (!value) return null;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

const invalid = (field: string, message: string) =>
  new AppError('invalid_public_channel_connect_url_request', {
    message,
    fields: [{ path: [field], source: 'body' }],
  });

export class ChannelConnectService {
  constructor(private readonly deps: ConnectDeps) {}

  /**
   * The origins a returnUrl may point at: this service's own (SERVICE_PUBLIC_BASE_URL), the dashboard's
   * (SERVICE_DASHBOARD_ORIGINS) and the extra ones of SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS. Anything
   * else would make the callback an open redirect.
   */
  private allowedReturn(url: URL): boolean {
    const extra = (this.deps.config.env.SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS ?? '').split(',');
    const allowed = [new URL(this.deps.config.publicBaseUrl).origin, ...dashboardOrigins(this.deps), ...extra]
      .map((o) => o.trim().replace(/\/+$/, '').toLowerCase())
      .filter(Boolean);
    return allowed.includes(url.origin.toLowerCase());
  }

  async connectUrl(organizationId: string, body: ConnectUrlRequest) {
    assertOwnOrganization(organizationId, body.organizationId);
    const { registry, config } = this.deps;
    const platform = body.platform;
    const app = registry.appConfig(platform);
    const key = platform.toUpperCase();
    if (!app.clientId || !app.clientSecret) {
      throw new AppError('channel_oauth_config_missing', {
        message: `${platform} has no OAuth app configured: set SERVICE_${key}_CLIENT_ID and SERVICE_${key}_CLIENT_SECRET (or run with SERVICE_PROVIDER_MODE=sandbox).`,
        details: { platform },
      });
    }
    const configured = httpUrl(app.redirectUri);
    if (!configured || configured.hash) {
      throw new AppError('channel_oauth_config_invalid', {
        message: `SERVICE_${key}_REDIRECT_URI is not an absolute http(s) URL.`,
        details: { platform },
      });
    }
    if (!httpUrl(app.authBaseUrl) || !httpUrl(app.apiBaseUrl)) {
      throw new AppError('channel_oauth_config_invalid', {
        message: `The ${platform} authorization or API base URL is not an absolute http(s) URL.`,
        details: { platform },
      });
    }
    const redirectUri = app.redirectUri!;
    if (body.redirectUri != null && body.redirectUri !== app.redirectUri) {
      throw new AppError('channel_oauth_redirect_uri_forbidden', {
        message: `redirectUri must be the configured ${app.redirectUri} (SERVICE_${key}_REDIRECT_URI).`,
        fields: [{ path: ['redirectUri'], source: 'body' }],
      });
    }
    let returnUrl: string | null = null;
    if (body.returnUrl != null) {
      const u = httpUrl(body.returnUrl);
      if (!u) throw invalid('returnUrl', 'returnUrl must be an absolute http(s) URL.');
      if (!this.allowedReturn(u))
        throw invalid(
          'returnUrl',
          `returnUrl origin ${u.origin} is not allowed: only this service's origin, the dashboard origins and those of SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS.`,
        );
      returnUrl = u.toString();
    }
    if (body.brandId && !(await this.deps.brands.brand(this.deps.db, organizationId, body.brandId))) {
      throw new AppError('brand_not_found', {
        message: `No brand ${body.brandId} in the principal organization.`,
        fields: [{ path: ['brandId'], source: 'body' }],
      });
    }
    const provider = registry.get(platform);
    const scopes = body.scopes && body.scopes.length > 0 ? [...new Set(body.scopes)] : [...provider.oauth.defaultScopes];
    const pkce = provider.oauth.supportsPkce ? pkcePair() : null;
    const now = this.deps.clock.now();
    const state = await createConnectState(this.deps.db, this.deps.encryptor, {
      organizationId,
      brandId: body.brandId ?? null,
      platform,
      returnUrl,
      redirectUri,
      scopes,
      codeVerifier: pkce?.verifier ?? null,
      expiresAt: new Date(now.getTime() + config.env.SERVICE_CHANNEL_CONNECT_STATE_TTL_SECONDS * 1000),
      at: now,
    });
    let authorizationUrl: string;
    try {
      authorizationUrl = provider.oauth.authorizationUrl({
        state,
        redirectUri,
        scopes,
        ...(pkce ? { codeChallenge: pkce.challenge } : {}),
      });
      new URL(authorizationUrl);
    } catch {
      throw new AppError('channel_oauth_config_invalid', {
        message: `The ${platform} authorization URL cannot be built from the configuration.`,
        details: { platform },
      });
    }
    return { platform, authorizationUrl, redirectUri, state, scopes };
  }
}
