/**
 * POST /v1/internal/provider-webhooks/provision: registers or renews, through each platform's own API,
 * the subscriptions that make the platforms deliver to /v1/provider-webhooks/{platform}:
 * Meta app subscriptions (page, instagram, threads objects), the X Account Activity webhook and one
 * subscription per connected X account, and one WebSub subscription per connected YouTube channel feed.
 * TikTok and Pinterest are set up in their developer consoles. A dry run (the default) calls nothing.
 */

import { newId } from '../../platform/ids.js';
import type { Platform } from '../../providers/provider.js';
import { META_SUBSCRIPTION, metaSubscriptionUrl, subscribeMetaApp } from '../../providers/webhooks/meta-webhooks.js';
import { ensureXWebhook, subscribeXUser } from '../../providers/webhooks/x-webhooks.js';
import { subscribeWebSub, youtubeTopic } from '../../providers/webhooks/youtube-websub.js';
import type { AppDeps } from '../app-deps.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import { providerWebhooksRepository as repo } from './provider-webhooks.repository.js';
import type { ProvisionAnswerT, ProvisionBodyT, ProvisionPlatformT, ProvisionStepT } from './provider-webhooks.schemas.js';
import { INBOUND_PLATFORMS, type WebhookSettings } from './webhook-settings.js';

export const PROVISION_PLATFORMS = [...INBOUND_PLATFORMS, 'tiktok', 'pinterest'] as const;

const CONSOLE_NOTES: Partial<Record<Platform, string>> = {
  tiktok: 'TikTok webhooks are configured in the TikTok for Developers portal (app > Webhooks: callback URL); no API registers them.',
  pinterest: 'Pinterest offers no API to register webhooks; configure them with Pinterest in the developer console.',
};

/** YouTube leases ending within this window are renewed; pending or failed ones are retried after STUCK_MS. */
const LEASE_RENEW_WINDOW_MS = 24 * 3_600_000;
const STUCK_MS = 3_600_000;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

export class WebhookProvisioning {
  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock'>,
    private readonly settings: WebhookSettings,
    private readonly channels: ChannelsReadPort,
  ) {}

  async run(body: ProvisionBodyT): Promise<ProvisionAnswerT> {
    const dryRun = body.dryRun ?? true;
    const platforms = body.platforms && body.platforms.length > 0 ? [...new Set(body.platforms)] : [...PROVISION_PLATFORMS];
    const out: ProvisionPlatformT[] = [];
    for (const platform of platforms) out.push(await this.one(platform, dryRun));
    return { mode: dryRun ? 'dry_run' : 'provisioned', platforms: out };
  }

  /**
   * The periodic renewal (job provider-webhooks.renew): the YouTube topics whose lease ends within
   * LEASE_RENEW_WINDOW_MS, or left pending or failed for STUCK_MS, subscribed again exactly as
   * provisioning does. Topics of channels no longer connected are left to expire. Null: nothing due.
   */
  async renewDue(): Promise<ProvisionPlatformT | null> {
    const now = this.deps.clock.now().getTime();
    const due = await repo.dueForRenewal(this.deps.database.db, 'youtube', new Date(now + LEASE_RENEW_WINDOW_MS), new Date(now - STUCK_MS));
    if (due.length === 0) return null;
    const callbackUrl = this.settings.callbackUrl('youtube');
    return {
      platform: 'youtube',
      callbackUrl,
      method: 'websub',
      ...(await this.youtube(callbackUrl, false, new Set(due.map((d) => d.topic)))),
    };
  }

  private async one(platform: (typeof PROVISION_PLATFORMS)[number], dryRun: boolean): Promise<ProvisionPlatformT> {
    const callbackUrl = platform === 'tiktok' || platform === 'pinterest' ? null : this.settings.callbackUrl(platform);
    const base = { platform, callbackUrl };
    if (platform === 'tiktok' || platform === 'pinterest')
      return { ...base, method: 'developer_console', outcome: 'manual', steps: [], note: CONSOLE_NOTES[platform]! };
    if (platform === 'x') return { ...base, method: 'account_activity', ...(await this.x(callbackUrl!, dryRun)) };
    if (platform === 'youtube') return { ...base, method: 'websub', ...(await this.youtube(callbackUrl!, dryRun)) };
    return { ...base, method: 'app_subscription', ...(await this.meta(platform, callbackUrl!, dryRun)) };
  }

  private finish(steps: ProvisionStepT[], dryRun: boolean, note: string | null = null) {
    const failed = steps.some((s) => s.outcome === 'failed');
    const outcome = dryRun ? 'would_provision' : failed ? 'failed' : 'provisioned';
    return { outcome: outcome as ProvisionPlatformT['outcome'], steps, note };
  }

  private notConfigured(missing: string[]) {
    return { outcome: 'not_configured' as const, steps: [], note: `Missing settings: ${missing.join(', ')}.` };
  }

  private async meta(platform: Platform, callbackUrl: string, dryRun: boolean) {
    const sub = META_SUBSCRIPTION[platform]!;
    const app = this.settings.appConfig(platform);
    // app subscriptions live on graph.facebook.com for every Meta app (Threads and Instagram Login apps too)
    const graphBaseUrl = this.settings.appConfig('facebook_page').apiBaseUrl;
    const verifyToken = this.settings.verifyToken();
    const missing = [
      ...(app.clientId ? [] : [`SERVICE_${platform.toUpperCase()}_CLIENT_ID`]),
      ...(app.clientSecret ? [] : [`SERVICE_${platform.toUpperCase()}_CLIENT_SECRET`]),
      ...(verifyToken ? [] : ['SERVICE_PROVIDER_WEBHOOK_VERIFY_TOKEN']),
    ];
    if (missing.length > 0) return this.notConfigured(missing);
    const step: ProvisionStepT = {
      request: `POST ${metaSubscriptionUrl({ graphBaseUrl, appId: app.clientId! })}`,
      description: `app subscription object=${sub.object} fields=${sub.fields.join(',')} (Graph verifies the callback with a GET handshake)`,
      outcome: 'would_call',
      error: null,
    };
    if (!dryRun) {
      try {
        await subscribeMetaApp(platform, {
          graphBaseUrl,
          appId: app.clientId!,
          appSecret: app.clientSecret!,
          object: sub.object,
          fields: sub.fields,
          callbackUrl,
          verifyToken: verifyToken!,
          timeoutMs: app.timeoutMs,
        });
        step.outcome = 'ok';
        await this.record(platform, `${sub.object}:${app.clientId}`, callbackUrl, 'active', { object: sub.object, fields: sub.fields });
      } catch (err) {
        step.outcome = 'failed';
        step.error = message(err);
      }
    }
    return this.finish(
      [step],
      dryRun,
      platform === 'facebook_page'
        ? 'Each Page must also have the app installed (POST /{page-id}/subscribed_apps), which connecting the Page through this service does not do yet.'
        : null,
    );
  }

  private async x(callbackUrl: string, dryRun: boolean) {
    const app = this.settings.appConfig('x');
    const bearer = this.deps.config.env.SERVICE_X_WEBHOOK_APP_BEARER_TOKEN;
    const missing = [
      ...(bearer ? [] : ['SERVICE_X_WEBHOOK_APP_BEARER_TOKEN']),
      ...(this.settings.secret('x') ? [] : ['SERVICE_X_WEBHOOK_SECRET']),
    ];
    if (missing.length > 0) return this.notConfigured(missing);
    const base = app.apiBaseUrl.replace(/\/+$/, '');
    const accounts = await this.channels.usableOfPlatform(this.deps.database.db, 'x');
    const register: ProvisionStepT = {
      request: `POST ${base}/webhooks`,
      description: 'register the webhook URL (X runs a CRC GET against it), or re-validate it with PUT /2/webhooks/{id}',
      outcome: 'would_call',
      error: null,
    };
    const steps: ProvisionStepT[] = [register];
    const subscriptionStep = (externalId: string): ProvisionStepT => ({
      request: `POST ${base}/account_activity/webhooks/{webhook_id}/subscriptions/all`,
      description: `subscribe account ${externalId} with its user token`,
      outcome: 'would_call',
      error: null,
    });
    if (dryRun) return this.finish([...steps, ...accounts.map((a) => subscriptionStep(a.externalAccountId))], true);
    let webhookId: string;
    try {
      const hook = await ensureXWebhook({ apiBaseUrl: base, timeoutMs: app.timeoutMs, appBearerToken: bearer!, url: callbackUrl });
      webhookId = hook.id;
      register.outcome = 'ok';
      register.request = register.request.replace('{webhook_id}', webhookId);
      await this.record('x', `webhook:${webhookId}`, callbackUrl, hook.valid ? 'active' : 'pending', { webhookId });
    } catch (err) {
      register.outcome = 'failed';
      register.error = message(err);
      return this.finish(steps, false);
    }
    for (const a of accounts) {
      const step = subscriptionStep(a.externalAccountId);
      step.request = step.request.replace('{webhook_id}', webhookId);
      try {
        const { ctx } = await this.channels.usableChannel(this.deps.database.db, a.organizationId, a.channelAccountId);
        await subscribeXUser({ apiBaseUrl: base, timeoutMs: app.timeoutMs, webhookId, userAccessToken: ctx.accessToken });
        step.outcome = 'ok';
        await this.record('x', `account:${a.externalAccountId}`, callbackUrl, 'active', { webhookId });
      } catch (err) {
        step.outcome = 'failed';
        step.error = message(err);
      }
      steps.push(step);
    }
    return this.finish(steps, false);
  }

  /** `only`: subscribe just these topics (the renewal), still only for connected channels. */
  private async youtube(callbackUrl: string, dryRun: boolean, only?: Set<string>) {
    const secret = this.settings.secret('youtube');
    if (!secret) return this.notConfigured(['SERVICE_YOUTUBE_WEBHOOK_SECRET (or SERVICE_YOUTUBE_CLIENT_SECRET)']);
    const hubUrl = this.settings.hubUrl();
    const lease = this.deps.config.env.SERVICE_YOUTUBE_WEBSUB_LEASE_SECONDS;
    const channels = await this.channels.usableOfPlatform(this.deps.database.db, 'youtube');
    const topics = [...new Set(channels.map((c) => c.externalAccountId))].map(youtubeTopic).filter((t) => !only || only.has(t));
    const steps: ProvisionStepT[] = [];
    for (const topic of topics) {
      const step: ProvisionStepT = {
        request: `POST ${hubUrl}`,
        description: `hub.mode=subscribe hub.topic=${topic} hub.lease_seconds=${lease} (the hub verifies with a GET to the callback)`,
        outcome: 'would_call',
        error: null,
      };
      if (!dryRun) {
        try {
          // recorded first: the hub's verification GET may arrive before its answer
          await this.record('youtube', topic, callbackUrl, 'pending', { hubUrl });
          await subscribeWebSub({
            hubUrl,
            topic,
            callbackUrl,
            secret,
            leaseSeconds: lease,
            timeoutMs: this.settings.appConfig('youtube').timeoutMs,
          });
          step.outcome = 'ok';
        } catch (err) {
          step.outcome = 'failed';
          step.error = message(err);
          await this.record('youtube', topic, callbackUrl, 'failed', { hubUrl, error: step.error });
        }
      }
      steps.push(step);
    }
    return this.finish(steps, dryRun, topics.length === 0 ? 'No connected YouTube channel: nothing to subscribe.' : null);
  }

  private async record(
    platform: string,
    topic: string,
    callbackUrl: string,
    state: 'pending' | 'active' | 'failed',
    details: Record<string, unknown>,
  ) {
    const existing = await repo.getSubscription(this.deps.database.db, platform, topic);
    // a renewal keeps an active YouTube subscription active until the hub's verification updates its lease
    const next = existing?.state === 'active' && state === 'pending' ? 'active' : state;
    await repo.upsertSubscription(this.deps.database.db, {
      id: newId('pws'),
      platform,
      topic,
      callbackUrl,
      state: next,
      details,
      at: this.deps.clock.now(),
    });
  }
}
