/** Which platforms have an inbound endpoint, and the secrets and URLs each one uses (from config). */
import { createHmac } from 'node:crypto';
import type { Platform } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { AppDeps } from '../app-deps.js';

export const INBOUND_PLATFORMS = ['facebook_page', 'instagram_business', 'instagram_standalone', 'threads', 'x', 'youtube'] as const;
export type InboundPlatform = (typeof INBOUND_PLATFORMS)[number];

export const isInboundPlatform = (p: string): p is InboundPlatform => (INBOUND_PLATFORMS as readonly string[]).includes(p);

/** Platforms whose channels a delivery to `platform` may name (both Instagram logins send the same payloads). */
export function accountPlatforms(platform: InboundPlatform): Platform[] {
  return platform.startsWith('instagram') ? ['instagram_business', 'instagram_standalone'] : [platform];
}

export class WebhookSettings {
  constructor(
    private readonly deps: Pick<AppDeps, 'config'>,
    private readonly registry: ProviderRegistry,
  ) {}

  private get env() {
    return this.deps.config.env;
  }

  callbackUrl(platform: Platform): string {
    return `${this.deps.config.publicBaseUrl}/v1/provider-webhooks/${platform}`;
  }

  verifyToken(): string | null {
    return this.env.SERVICE_PROVIDER_WEBHOOK_VERIFY_TOKEN ?? null;
  }

  /** The key of a platform's delivery signatures (and of X's CRC answer). */
  secret(platform: InboundPlatform): string | null {
    const app = this.registry.appConfig(platform);
    switch (platform) {
      case 'facebook_page':
        return this.env.SERVICE_FACEBOOK_PAGE_WEBHOOK_SECRET ?? app.clientSecret;
      case 'instagram_business':
        return this.env.SERVICE_INSTAGRAM_BUSINESS_WEBHOOK_SECRET ?? app.clientSecret;
      case 'instagram_standalone':
        return this.env.SERVICE_INSTAGRAM_STANDALONE_WEBHOOK_SECRET ?? app.clientSecret;
      case 'threads':
        return this.env.SERVICE_THREADS_WEBHOOK_SECRET ?? app.clientSecret;
      case 'x':
        return this.env.SERVICE_X_WEBHOOK_SECRET ?? app.clientSecret;
      case 'youtube':
        // hub.secret is ours to choose: by default derived from the client secret (never sent as such)
        return (
          this.env.SERVICE_YOUTUBE_WEBHOOK_SECRET ??
          (app.clientSecret ? createHmac('sha256', app.clientSecret).update('youtube-websub').digest('hex') : null)
        );
    }
  }

  hubUrl(): string {
    if (this.env.SERVICE_YOUTUBE_WEBSUB_HUB_URL) return this.env.SERVICE_YOUTUBE_WEBSUB_HUB_URL;
    return this.registry.mode === 'sandbox'
      ? `${this.deps.config.publicBaseUrl}/sandbox/google/websub/subscribe`
      : 'https://pubsubhubbub.appspot.com/subscribe';
  }

  appConfig(platform: Platform) {
    return this.registry.appConfig(platform);
  }
}
